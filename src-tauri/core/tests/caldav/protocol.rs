//! The protocol's edges over real HTTP: discovery, the hardening shared with
//! the REST server, authentication and scopes, reports, ETag
//! preconditions, read-only calendars, and the server following its setting.

use std::net::Ipv4Addr;

use almanac_core::rest::ServerState;
use almanac_core::settings::class::Actor;
use almanac_core::tokens::{Scope, ScopeSet};
use reqwest::StatusCode;
use serde_json::json;

use crate::caldav::support::{CaldavHarness, HOLIDAYS, PLANNING, PLANNING_NOTE};

const PROPFIND_CALENDARS: &str = r#"<?xml version="1.0"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/">
  <d:prop><d:displayname/><d:resourcetype/><cs:getctag/><d:sync-token/>
  <c:supported-calendar-component-set/><d:current-user-privilege-set/><x:odd xmlns:x="urn:x"/></d:prop>
</d:propfind>"#;

fn january_query() -> &'static str {
    r#"<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">
    <c:time-range start="20260101T000000Z" end="20260201T000000Z"/>
  </c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>"#
}

const EVENT: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
UID:protocol-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20260210T100000\r\n\
DTEND;TZID=Europe/Berlin:20260210T110000\r\nSUMMARY:Review\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

#[tokio::test(flavor = "multi_thread")]
async fn discovery_leads_from_the_well_known_url_to_the_calendars() {
    let app = CaldavHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));
    let redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{}/.well-known/caldav", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(redirect.status(), StatusCode::MOVED_PERMANENTLY);
    assert_eq!(redirect.headers()["location"], "/");

    let principal =
        r#"<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>"#;
    let root = client.query_at_depth("PROPFIND", "/", "0", principal).await;
    assert_eq!(root.status(), StatusCode::MULTI_STATUS);
    assert!(
        root.text()
            .await
            .unwrap()
            .contains("<D:current-user-principal><D:href>/principal/</D:href>")
    );

    let home = r#"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-home-set/></d:prop></d:propfind>"#;
    let body = client
        .query_at_depth("PROPFIND", "/principal/", "0", home)
        .await
        .text()
        .await
        .unwrap();
    assert!(
        body.contains("<C:calendar-home-set><D:href>/calendars/</D:href>"),
        "{body}"
    );

    let listing = client
        .query("PROPFIND", "/calendars/", PROPFIND_CALENDARS)
        .await;
    assert_eq!(listing.status(), StatusCode::MULTI_STATUS);
    let body = listing.text().await.unwrap();
    assert!(
        body.contains("<D:href>/calendars/local/</D:href>"),
        "{body}"
    );
    assert!(body.contains("<D:displayname>Events</D:displayname>"));
    assert!(body.contains("<D:displayname>Holidays</D:displayname>"));
    assert!(body.contains("<D:resourcetype><D:collection/><C:calendar/></D:resourcetype>"));
    assert!(body.contains(r#"<C:comp name="VEVENT"/>"#));
    assert!(body.contains("<CS:getctag>urn:almanac:sync:"));
    assert!(
        body.contains("<D:privilege><D:write/></D:privilege>"),
        "the note calendar is writable"
    );
    assert!(
        body.contains(r#"<X:odd xmlns:X="urn:x"/>"#),
        "an unknown property is a 404 propstat"
    );
    assert!(body.contains("404 Not Found"));

    let members = client
        .query(
            "PROPFIND",
            "/calendars/local/",
            r#"<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>"#,
        )
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(members.matches(".ics</D:href>").count(), 4, "{members}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_month_query_expands_series_and_leaves_out_other_months() {
    let app = CaldavHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));
    let answer = client
        .query("REPORT", "/calendars/local/", january_query())
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    let body = answer.text().await.unwrap();
    for title in [
        "SUMMARY:Standup",
        "SUMMARY:Planning",
        "SUMMARY:Gym",
        "SUMMARY:Offsite",
    ] {
        assert!(body.contains(title), "{title} missing: {body}");
    }
    // The weekly note series as iCalendar: first real occurrence, rule,
    // UTC UNTIL, the skipped day, and the zone defined.
    assert!(
        body.contains("DTSTART;TZID=Europe/Berlin:20260101T070000"),
        "{body}"
    );
    assert!(body.contains("RRULE:FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20260331T215959Z"));
    assert!(body.contains("EXDATE;TZID=Europe/Berlin:20260108T070000"));
    assert!(body.contains("BEGIN:VTIMEZONE"));
    assert!(
        body.contains("DTSTART;VALUE=DATE:20260120") && body.contains("DTEND;VALUE=DATE:20260122")
    );

    let march = january_query()
        .replace("20260101", "20260301")
        .replace("20260201", "20260401");
    let body = client
        .query("REPORT", "/calendars/local/", march)
        .await
        .text()
        .await
        .unwrap();
    assert!(body.contains("SUMMARY:Gym"), "the series runs in March");
    assert!(!body.contains("SUMMARY:Standup"), "{body}");

    let broken = client
        .query("REPORT", "/calendars/local/", "<not xml")
        .await;
    assert_eq!(broken.status(), StatusCode::BAD_REQUEST);
    let json: serde_json::Value = broken.json().await.unwrap();
    assert_eq!(json["error"], "Bad Request");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rest_servers_hardening_applies() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));

    let anonymous = app.as_client(None).send("PROPFIND", "/calendars/").await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(
        anonymous.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic ")
    );
    let wrong = app
        .as_client(Some("alm_not_a_token"))
        .send("PROPFIND", "/calendars/")
        .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let body: serde_json::Value = wrong.json().await.unwrap();
    assert_eq!(body["message"], almanac_core::tokens::REFUSED_TOKEN);

    let rebinding = client
        .request("PROPFIND", "/calendars/")
        .header("Host", "evil.example:80")
        .send()
        .await
        .unwrap();
    assert_eq!(rebinding.status(), StatusCode::MISDIRECTED_REQUEST);

    let page = client
        .request("PROPFIND", "/calendars/")
        .header("Origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::FORBIDDEN);
    assert!(page.headers().get("access-control-allow-origin").is_none());

    let options = app.as_client(None).send("OPTIONS", "/").await;
    assert!(
        options.headers()["dav"]
            .to_str()
            .unwrap()
            .contains("calendar-access")
    );

    let unscoped = app.token(&[Scope::UiOpenCalendar]).await;
    let refused = app
        .as_client(Some(&unscoped))
        .send("PROPFIND", "/calendars/")
        .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let reader = app.token(&[Scope::EventsRead]).await;
    let put = app
        .as_client(Some(&reader))
        .put("/calendars/local/protocol-1.ics", None, EVENT)
        .await;
    assert_eq!(put.status(), StatusCode::FORBIDDEN);
    assert!(put.text().await.unwrap().contains("events:write"));

    let (status, _) = client
        .put_raw("/calendars/local/big.ics", &vec![b'x'; 2 * 1024 * 1024])
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE.as_u16());
    let odd = client.send("PATCH", "/calendars/local/").await;
    assert_eq!(odd.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(
        odd.headers()["allow"]
            .to_str()
            .unwrap()
            .contains("PROPFIND")
    );
    let nowhere = client.send("PROPFIND", "/calendars/nope/").await;
    assert_eq!(nowhere.status(), StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread")]
async fn etag_preconditions_and_read_only_calendars_refuse_and_change_nothing() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let created = client
        .put(
            "/calendars/local/protocol-1.ics",
            Some(("If-None-Match", "*")),
            EVENT,
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let etag = created.headers()["etag"].to_str().unwrap().to_string();

    let again = client
        .put(
            "/calendars/local/protocol-1.ics",
            Some(("If-None-Match", "*")),
            EVENT,
        )
        .await;
    assert_eq!(again.status(), StatusCode::PRECONDITION_FAILED);
    let stale = client
        .put(
            "/calendars/local/protocol-1.ics",
            Some(("If-Match", "\"stale\"")),
            EVENT.replace("Review", "Changed"),
        )
        .await;
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let delete = client
        .request("DELETE", "/calendars/local/protocol-1.ics")
        .header("If-Match", "\"stale\"")
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::PRECONDITION_FAILED);
    let get = client.send("GET", "/calendars/local/protocol-1.ics").await;
    assert_eq!(
        get.headers()["etag"].to_str().unwrap(),
        etag,
        "nothing changed"
    );
    assert!(get.text().await.unwrap().contains("SUMMARY:Review"));

    let to_feed = client
        .put(
            &format!("/calendars/{HOLIDAYS}/x.ics"),
            None,
            EVENT.replace("protocol-1", "x"),
        )
        .await;
    assert_eq!(to_feed.status(), StatusCode::FORBIDDEN);

    let garbage = client
        .put(
            "/calendars/local/garbage.ics",
            None,
            "BEGIN:VCALENDAR\r\nthis is not iCalendar",
        )
        .await;
    assert_eq!(garbage.status(), StatusCode::FORBIDDEN);
    assert!(
        garbage
            .text()
            .await
            .unwrap()
            .contains("valid-calendar-data")
    );

    // A value the engine refuses (an alarm over a week ahead): a 400
    // naming it, and the note untouched.
    let href = app.href_of(&token, "Planning").await;
    let current = client.send("GET", &href).await.text().await.unwrap();
    let far_alarm = current.replace(
        "END:VEVENT",
        "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-P8D\r\nDESCRIPTION:x\r\nEND:VALARM\r\nEND:VEVENT",
    );
    let refused = client.put(&href, None, far_alarm).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(refused.text().await.unwrap().contains("alarms"));
    assert_eq!(app.note(PLANNING), PLANNING_NOTE);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_follows_its_setting_and_no_token_may_change_it() {
    let app = CaldavHarness::start().await;
    let port: u16 = app.base.rsplit(':').next().unwrap().parse().unwrap();
    let mut state = app.server.subscribe();
    app.settings_as_user(json!({"caldavServer": {"enabled": false}}))
        .await;
    state
        .wait_for(|s| *s == ServerState::Disabled)
        .await
        .unwrap();
    assert!(
        tokio::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .await
            .is_err()
    );

    let full: ScopeSet = [Scope::SystemFullAccess].into_iter().collect();
    let plugin = app.core.plugin().clone();
    let refused = tokio::task::spawn_blocking(move || {
        plugin.update_settings(
            Actor::Token(full),
            &json!({"caldavServer": {"enabled": true}}),
        )
    })
    .await
    .unwrap()
    .unwrap_err();
    assert!(refused.to_string().contains("caldavServer"), "{refused}");
    assert!(!app.core.settings.get().caldav_server.enabled);

    app.settings_as_user(json!({"caldavServer": {"enabled": true}}))
        .await;
    state
        .wait_for(|s| matches!(s, ServerState::Listening(a) if a.port() == port))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_changes_only_what_the_client_changed() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let href = app.href_of(&token, "Gym").await;
    let current = client.send("GET", &href).await;
    let etag = current.headers()["etag"].to_str().unwrap().to_string();
    let text = current.text().await.unwrap();
    let renamed = client
        .put(
            &href,
            Some(("If-Match", &etag)),
            text.replace("SUMMARY:Gym", "SUMMARY:Gym class"),
        )
        .await;
    assert_eq!(renamed.status(), StatusCode::NO_CONTENT);
    assert_ne!(renamed.headers()["etag"].to_str().unwrap(), etag);
    assert!(
        renamed.headers().get("location").is_none(),
        "the resource stays where it was"
    );

    let notes = std::fs::read_dir(app.vault().join("events")).unwrap();
    let note = notes
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|text| text.contains("title: Gym class\n"))
        .expect("the renamed note");
    // The weekly note series keeps its own fields: the client only renamed it.
    for kept in [
        "type: recurring\n",
        "daysOfWeek: [M, R]\n",
        "startRecur: 2026-01-01\n",
        "skipDates: [2026-01-08]\n",
    ] {
        assert!(note.contains(kept), "{kept:?} lost: {note}");
    }
    assert!(!note.contains("rrule"), "{note}");
    let again = client.send("GET", &href).await;
    assert_eq!(again.status(), StatusCode::OK);
    assert!(again.text().await.unwrap().contains("SUMMARY:Gym class"));
}

/// Two events a client creates with the same title on the same day, under
/// different UIDs (a duplicate, or two "Lunch"es), are two notes: a client
/// cannot choose a note's name, so the second is numbered rather than
/// refused. Each reads back under its own UID.
#[tokio::test(flavor = "multi_thread")]
async fn same_title_same_day_from_a_client_is_a_second_note() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let event = |uid: &str| {
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n\
             DTSTAMP:20260101T000000Z\r\nDTSTART:20260120T120000Z\r\nDTEND:20260120T130000Z\r\n\
             SUMMARY:Lunch\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
    };
    for uid in ["lunch-a", "lunch-b"] {
        let put = client
            .put(
                &format!("/calendars/local/{uid}.ics"),
                Some(("If-None-Match", "*")),
                event(uid),
            )
            .await;
        assert_eq!(put.status(), StatusCode::CREATED, "{uid}");
    }
    let folder = app.vault().join("events");
    assert!(folder.join("2026-01-20 Lunch.md").exists());
    assert!(folder.join("2026-01-20 Lunch 2.md").exists());
    for uid in ["lunch-a", "lunch-b"] {
        let got = client
            .send("GET", &format!("/calendars/local/{uid}.ics"))
            .await;
        assert_eq!(got.status(), StatusCode::OK, "{uid}");
        assert!(got.text().await.unwrap().contains(&format!("UID:{uid}")));
    }
}

/// `free-busy-query`: the calendar's busy times in a range as one
/// `VFREEBUSY`, overlapping events merged, a read token enough.
#[tokio::test(flavor = "multi_thread")]
async fn free_busy_query_answers_the_busy_periods() {
    let app = CaldavHarness::start().await;
    let writer = app.read_write_token().await;
    let event = |uid: &str, from: &str, to: &str| {
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n\
             DTSTAMP:20260101T000000Z\r\nDTSTART:20260210T{from}00Z\r\nDTEND:20260210T{to}00Z\r\n\
             SUMMARY:{uid}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
    };
    for (uid, from, to) in [
        ("a", "0900", "1000"),
        ("b", "0930", "1030"),
        ("c", "1400", "1500"),
    ] {
        let put = app
            .as_client(Some(&writer))
            .put(
                &format!("/calendars/local/{uid}.ics"),
                None,
                event(uid, from, to),
            )
            .await;
        assert_eq!(put.status(), StatusCode::CREATED);
    }
    let reader = app.token(&[Scope::EventsRead]).await;
    let query = r#"<?xml version="1.0"?><C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="20260210T000000Z" end="20260211T000000Z"/></C:free-busy-query>"#;
    let answer = app
        .as_client(Some(&reader))
        .query("REPORT", "/calendars/local/", query)
        .await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert!(
        answer.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/calendar")
    );
    let text = answer.text().await.unwrap();
    let periods: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("FREEBUSY:"))
        .collect();
    assert_eq!(
        periods,
        [
            "20260210T090000Z/20260210T103000Z",
            "20260210T140000Z/20260210T150000Z"
        ],
        "{text}"
    );
    assert!(text.contains("DTSTART:20260210T000000Z\r\nDTEND:20260211T000000Z\r\n"));
    // No range: refused, naming it.
    let bad = app
        .as_client(Some(&reader))
        .query(
            "REPORT",
            "/calendars/local/",
            r#"<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"/>"#,
        )
        .await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
}
