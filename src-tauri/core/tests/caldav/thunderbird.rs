//! The exchange Thunderbird's CalDAV provider makes, request by request as
//! it sends them (its property lists, its `sync-collection` then
//! `calendar-multiget`, a full resource `PUT` with `If-Match`): discovery, a
//! time-range query, one occurrence of a series moved, a task completed.
//! Each step checks what Thunderbird relies on in the answer, and the end
//! checks the vault.

use reqwest::StatusCode;

use crate::caldav::support::{CaldavHarness, Client};

const TASK: &str = "events/2026-01-07 Pay rent.md";
const TASK_NOTE: &str = "---\ntitle: Pay rent\nallDay: true\ndate: 2026-01-07\ncompleted: false\n---\nIBAN in the folder.\n";

/// Thunderbird's `checkDavResourceType` properties.
const RESOURCE_TYPE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:resourcetype/><D:owner/><D:current-user-principal/><D:current-user-privilege-set/><D:supported-report-set/><C:supported-calendar-component-set/><CS:getctag/></D:prop></D:propfind>"#;

/// Thunderbird's principal namespace properties.
const PRINCIPAL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-home-set/><C:calendar-user-address-set/><C:schedule-inbox-URL/><C:schedule-outbox-URL/></D:prop></D:propfind>"#;

const FIRST_SYNC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getcontenttype/><D:getetag/></D:prop></D:sync-collection>"#;

/// The occurrences of January 2026, as Thunderbird asks when it shows the
/// month uncached.
const JANUARY: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="20260101T000000Z" end="20260201T000000Z"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"#;

fn multiget(hrefs: &[String]) -> String {
    let hrefs: String = hrefs
        .iter()
        .map(|h| format!("<D:href>{h}</D:href>"))
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>{hrefs}</C:calendar-multiget>"#
    )
}

/// Every `<D:href>` of a multistatus answer but the collection's own.
fn hrefs(body: &str, collection: &str) -> Vec<String> {
    body.split("<D:href>")
        .skip(1)
        .filter_map(|s| s.split("</D:href>").next())
        .filter(|h| *h != collection)
        .map(str::to_string)
        .collect()
}

/// The `calendar-data` and ETag of each resource of a multiget answer.
fn resources(body: &str) -> Vec<(String, String, String)> {
    body.split("<D:response>")
        .skip(1)
        .filter_map(|response| {
            let between = |open: &str, close: &str| {
                let start = response.find(open)? + open.len();
                let len = response[start..].find(close)?;
                Some(response[start..start + len].to_string())
            };
            let data = between("<C:calendar-data>", "</C:calendar-data>")?;
            let data = data
                .replace("&#13;", "\r")
                .replace("&lt;", "<")
                .replace("&gt;", ">");
            let data = data.replace("&quot;", "\"").replace("&amp;", "&");
            let etag = between("<D:getetag>", "</D:getetag>")?.replace("&quot;", "\"");
            Some((between("<D:href>", "</D:href>")?, etag, data))
        })
        .collect()
}

async fn put(client: &Client<'_>, href: &str, etag: &str, ics: String) -> StatusCode {
    client
        .request("PUT", href)
        .header("If-Match", etag)
        .header("Content-Type", "text/calendar; charset=utf-8")
        .body(ics)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test(flavor = "multi_thread")]
async fn thunderbird_discovers_queries_moves_one_occurrence_and_completes_a_task() {
    let app = CaldavHarness::start_with(|vault| vault.note(TASK, TASK_NOTE)).await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let calendar = "/calendars/local/";

    // Discovery: the calendar is a calendar of events and tasks, writable,
    // with a ctag, sync and multiget.
    let answer = client
        .query_at_depth("PROPFIND", calendar, "0", RESOURCE_TYPE)
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    let props = answer.text().await.unwrap();
    for wanted in [
        "<C:calendar/>",
        r#"<C:comp name="VEVENT"/>"#,
        r#"<C:comp name="VTODO"/>"#,
        "<D:write/>",
        "getctag>",
        "<D:sync-collection/>",
        "<C:calendar-multiget/>",
    ] {
        assert!(props.contains(wanted), "{wanted} in {props}");
    }
    let options = client.send("OPTIONS", calendar).await;
    let dav = options.headers()["dav"].to_str().unwrap().to_string();
    assert!(dav.contains("calendar-access"), "{dav}");
    let principal = client
        .query_at_depth("PROPFIND", "/principal/", "0", PRINCIPAL)
        .await;
    let principal = principal.text().await.unwrap();
    assert!(
        principal.contains("<D:href>/calendars/</D:href>"),
        "{principal}"
    );

    // First sync: every resource's href and ETag, then their data.
    let synced = client.query("REPORT", calendar, FIRST_SYNC).await;
    assert_eq!(synced.status(), StatusCode::MULTI_STATUS);
    let synced = synced.text().await.unwrap();
    assert!(synced.contains("<D:sync-token>"), "{synced}");
    let all = hrefs(&synced, calendar);
    let got = client.query("REPORT", calendar, multiget(&all)).await;
    let items = resources(&got.text().await.unwrap());
    assert_eq!(items.len(), all.len());

    // The month, by time range: the series and the task's day included.
    let january = client.query("REPORT", calendar, JANUARY).await;
    let january = hrefs(&january.text().await.unwrap(), calendar);
    let find = |summary: &str| {
        items
            .iter()
            .find(|(_, _, data)| data.contains(&format!("SUMMARY:{summary}\r\n")))
            .unwrap_or_else(|| panic!("{summary} in {items:?}"))
            .clone()
    };
    let (gym, gym_etag, gym_data) = find("Gym");
    assert!(january.contains(&gym), "{january:?}");
    let (task, task_etag, task_data) = find("Pay rent");
    assert!(task_data.contains("BEGIN:VTODO"), "{task_data}");

    // One occurrence moved (Monday 12 January, 07:00 → 09:00 Berlin): the
    // whole resource back, the series as it was plus the override.
    let moved = "BEGIN:VEVENT\r\nUID:{uid}\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260112T070000\r\n\
                 DTSTAMP:20260110T100000Z\r\nDTSTART;TZID=Europe/Berlin:20260112T090000\r\n\
                 DTEND;TZID=Europe/Berlin:20260112T100000\r\nSUMMARY:Gym\r\nSEQUENCE:1\r\n\
                 X-MOZ-GENERATION:1\r\nEND:VEVENT\r\n";
    let uid = gym_data
        .lines()
        .find_map(|l| l.strip_prefix("UID:"))
        .unwrap()
        .trim()
        .to_string();
    let with_override = gym_data.replace(
        "END:VCALENDAR",
        &format!("{}END:VCALENDAR", moved.replace("{uid}", &uid)),
    );
    assert_eq!(
        put(&client, &gym, &gym_etag, with_override).await,
        StatusCode::NO_CONTENT
    );

    // The task completed, as Thunderbird writes it.
    let done = task_data.replace(
        "STATUS:NEEDS-ACTION\r\n",
        "STATUS:COMPLETED\r\nCOMPLETED:20260107T180000Z\r\nPERCENT-COMPLETE:100\r\n",
    );
    assert_ne!(done, task_data, "{task_data}");
    assert_eq!(
        put(&client, &task, &task_etag, done).await,
        StatusCode::NO_CONTENT
    );

    // The vault: the series skips the 12th, a note stands in for it at
    // 09:00; the task note is done, its text as it was.
    let series = app.note("events/2026-01-05 Gym.md");
    assert!(series.contains("2026-01-12"), "{series}");
    let vault = app.vault().join("events");
    let detached: Vec<String> = std::fs::read_dir(&vault)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter(|text| text.contains("title: Gym") && text.contains("date: 2026-01-12"))
        .collect();
    assert_eq!(detached.len(), 1, "{detached:?}");
    assert!(
        detached[0].contains("startTime: \"09:00\""),
        "{}",
        detached[0]
    );
    let task_note = app.note(TASK);
    assert!(!task_note.contains("completed: false"), "{task_note}");
    assert!(
        task_note.ends_with("---\nIBAN in the folder.\n"),
        "{task_note}"
    );

    // Thunderbird's next sync reads the series back as one resource with
    // the moved occurrence as its override, under the same href.
    let again = client
        .query("REPORT", calendar, multiget(std::slice::from_ref(&gym)))
        .await;
    let again = resources(&again.text().await.unwrap());
    let (href, _, data) = &again[0];
    assert_eq!(href, &gym);
    assert!(
        data.contains("RECURRENCE-ID;TZID=Europe/Berlin:20260112T070000"),
        "{data}"
    );
    assert!(
        data.contains("DTSTART;TZID=Europe/Berlin:20260112T090000"),
        "{data}"
    );
}
