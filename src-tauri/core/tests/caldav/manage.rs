//! Calendars managed from a client: `MKCALENDAR` makes a notes calendar (a
//! new vault folder and source, for events, tasks or both), `PROPPATCH`
//! renames, recolours and reorders one, all or nothing, and `DELETE` of a calendar is refused; each needs a token with
//! `events:write` and `settings:write` (docs/tokens.md).

use almanac_core::tokens::Scope;
use reqwest::StatusCode;

use crate::caldav::support::CaldavHarness;

const MKCALENDAR: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">
  <D:set><D:prop>
    <D:displayname>Side / project</D:displayname>
    <I:calendar-color>#FF8800FF</I:calendar-color>
    <C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>"#;

fn proppatch(props: &str) -> String {
    format!(
        r#"<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:I="http://apple.com/ns/ical/"><D:set><D:prop>{props}</D:prop></D:set></D:propertyupdate>"#
    )
}

/// The home's listing: each calendar's href, name and colour.
async fn home(app: &CaldavHarness, token: &str) -> String {
    let answer = app
        .as_client(Some(token))
        .query("PROPFIND", "/calendars/", "")
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    answer.text().await.unwrap()
}

fn event(uid: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART:20260310T100000Z\r\nDTEND:20260310T110000Z\r\n\
         SUMMARY:Kick-off\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn mkcalendar_for_journals_is_refused_and_for_tasks_accepted() {
    let app = CaldavHarness::start().await;
    let manager = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::SettingsWrite])
        .await;
    let client = app.as_client(Some(&manager));
    let asking = |comps: &str| MKCALENDAR.replace(r#"<C:comp name="VEVENT"/>"#, comps);
    let refused = client
        .request("MKCALENDAR", "/calendars/diary/")
        .body(asking(r#"<C:comp name="VJOURNAL"/>"#))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let reason = refused.text().await.unwrap();
    assert!(
        reason.contains("<C:supported-calendar-component-set/>") && reason.contains("VJOURNAL"),
        "{reason}"
    );
    assert!(!app.vault().join("Side  project").exists());
    assert!(!home(&app, &manager).await.contains("/calendars/diary/"));
    let made = client
        .request("MKCALENDAR", "/calendars/todo/")
        .body(asking(r#"<C:comp name="VEVENT"/><C:comp name="VTODO"/>"#))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::CREATED);
    let listed = app
        .as_client(Some(&manager))
        .query_at_depth(
            "PROPFIND",
            "/calendars/todo/",
            "0",
            r#"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:supported-calendar-component-set/></d:prop></d:propfind>"#,
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(
        listed.contains(r#"<C:comp name="VEVENT"/><C:comp name="VTODO"/>"#),
        "{listed}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mkcalendar_makes_a_notes_calendar_that_takes_events() {
    let app = CaldavHarness::start().await;
    let manager = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::SettingsWrite])
        .await;
    let client = app.as_client(Some(&manager));
    let made = client
        .request("MKCALENDAR", "/calendars/side/")
        .body(MKCALENDAR)
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::CREATED);
    // A new folder named after it (what a path cannot hold left out).
    assert!(app.vault().join("Side  project").is_dir());
    let listed = home(&app, &manager).await;
    assert!(listed.contains("/calendars/side/"), "{listed}");
    assert!(
        listed.contains("<D:displayname>Side / project</D:displayname>"),
        "{listed}"
    );
    assert!(listed.contains("#ff8800"), "{listed}");
    // It takes events as notes in its folder.
    let put = client
        .put("/calendars/side/kick-off.ics", None, event("kick-off"))
        .await;
    assert_eq!(put.status(), StatusCode::CREATED);
    let notes: Vec<_> = std::fs::read_dir(app.vault().join("Side  project"))
        .unwrap()
        .collect();
    assert_eq!(notes.len(), 1);
    // The same URL again: it exists.
    let again = client
        .request("MKCALENDAR", "/calendars/side/")
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test(flavor = "multi_thread")]
async fn managing_calendars_needs_settings_write_too() {
    let app = CaldavHarness::start().await;
    let writer = app.read_write_token().await;
    let client = app.as_client(Some(&writer));
    let made = client
        .request("MKCALENDAR", "/calendars/side/")
        .body(MKCALENDAR)
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::FORBIDDEN);
    let text = made.text().await.unwrap();
    assert!(text.contains("settings:write"), "{text}");
    assert!(
        !app.vault().join("Side  project").exists(),
        "no folder made"
    );
    assert!(!home(&app, &writer).await.contains("/calendars/side/"));
    let patched = client
        .query(
            "PROPPATCH",
            "/calendars/local/",
            proppatch("<D:displayname>Renamed</D:displayname>"),
        )
        .await;
    assert_eq!(patched.status(), StatusCode::FORBIDDEN);
    assert!(!home(&app, &writer).await.contains("Renamed"));
}

#[tokio::test(flavor = "multi_thread")]
async fn proppatch_renames_and_recolours_all_or_nothing() {
    let app = CaldavHarness::start().await;
    let manager = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::SettingsWrite])
        .await;
    let client = app.as_client(Some(&manager));
    let body = proppatch(
        "<D:displayname>Work &amp; more</D:displayname><I:calendar-color>#112233</I:calendar-color>",
    );
    let patched = client.query("PROPPATCH", "/calendars/local/", body).await;
    assert_eq!(patched.status(), StatusCode::MULTI_STATUS);
    let text = patched.text().await.unwrap();
    assert!(text.contains("HTTP/1.1 200 OK"), "{text}");
    assert!(!text.contains("403"), "{text}");
    let listed = home(&app, &manager).await;
    assert!(
        listed.contains("<D:displayname>Work &amp; more</D:displayname>"),
        "{listed}"
    );
    assert!(listed.contains("#112233"), "{listed}");

    // An order that is no integer: refused for it, the rest not done.
    let body =
        proppatch("<D:displayname>Other</D:displayname><I:calendar-order>first</I:calendar-order>");
    let patched = client.query("PROPPATCH", "/calendars/local/", body).await;
    assert_eq!(patched.status(), StatusCode::MULTI_STATUS);
    let text = patched.text().await.unwrap();
    assert!(
        text.contains("<I:calendar-order/></D:prop><D:status>HTTP/1.1 403 Forbidden"),
        "{text}"
    );
    assert!(
        text.contains("<D:displayname/></D:prop><D:status>HTTP/1.1 424 Failed Dependency"),
        "{text}"
    );
    assert!(home(&app, &manager).await.contains("Work &amp; more"));
    // A colour by its CSS name is kept as its #rrggbb.
    let named = client
        .query(
            "PROPPATCH",
            "/calendars/local/",
            proppatch("<I:calendar-color>blue</I:calendar-color>"),
        )
        .await;
    assert_eq!(named.status(), StatusCode::MULTI_STATUS);
    assert!(home(&app, &manager).await.contains("#0000ff"));
    // A colour that is none: 400, nothing changed.
    let bad = client
        .query(
            "PROPPATCH",
            "/calendars/local/",
            proppatch("<I:calendar-color>reddish</I:calendar-color>"),
        )
        .await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    assert!(home(&app, &manager).await.contains("#0000ff"));
    // A calendar that does not exist.
    let missing = client
        .query(
            "PROPPATCH",
            "/calendars/nope/",
            proppatch("<D:displayname>X</D:displayname>"),
        )
        .await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread")]
async fn deleting_a_calendar_is_refused_and_keeps_its_notes() {
    let app = CaldavHarness::start().await;
    let manager = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::SettingsWrite])
        .await;
    let client = app.as_client(Some(&manager));
    let notes = || {
        std::fs::read_dir(app.vault().join("events"))
            .unwrap()
            .count()
    };
    let before = notes();
    let put = client
        .put("/calendars/local/keep.ics", None, event("keep"))
        .await;
    assert_eq!(put.status(), StatusCode::CREATED);
    let deleted = client.send("DELETE", "/calendars/local/").await;
    assert_eq!(deleted.status(), StatusCode::FORBIDDEN);
    let text = deleted.text().await.unwrap();
    assert!(text.contains("remove it in Almanac's settings"), "{text}");
    assert!(home(&app, &manager).await.contains("/calendars/local/"));
    assert_eq!(notes(), before + 1, "every note kept");
}

/// One property of a collection, as `PROPFIND Depth: 0` answers it.
async fn property(app: &CaldavHarness, token: &str, path: &str, prop: &str) -> String {
    let answer = app
        .as_client(Some(token))
        .query_at_depth(
            "PROPFIND",
            path,
            "0",
            format!(
                r#"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:i="http://apple.com/ns/ical/"><d:prop>{prop}</d:prop></d:propfind>"#
            ),
        )
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    answer.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn calendar_order_is_kept_as_the_client_sets_it() {
    let app = CaldavHarness::start().await;
    let manager = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::SettingsWrite])
        .await;
    let client = app.as_client(Some(&manager));
    let order = || property(&app, &manager, "/calendars/local/", "<i:calendar-order/>");
    // None set yet: the calendar has no order.
    let unset = order().await;
    assert!(unset.contains("404 Not Found"), "{unset}");
    for value in ["12", "34"] {
        let patched = client
            .query(
                "PROPPATCH",
                "/calendars/local/",
                proppatch(&format!("<I:calendar-order>{value}</I:calendar-order>")),
            )
            .await;
        assert_eq!(patched.status(), StatusCode::MULTI_STATUS);
        let text = patched.text().await.unwrap();
        assert!(text.contains("HTTP/1.1 200 OK"), "{text}");
        let read = order().await;
        assert!(
            read.contains(&format!("<I:calendar-order>{value}</I:calendar-order>")),
            "{read}"
        );
    }
    // Kept in the settings' source, beside its name and colour.
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(app.core.paths.settings_file()).unwrap())
            .unwrap();
    let local = &settings["calendarSources"][0];
    assert_eq!(local["id"], "local");
    assert_eq!(local["order"], 34);
    // An order that is no integer makes no calendar.
    let refused = client
        .request("MKCALENDAR", "/calendars/side/")
        .body(MKCALENDAR.replace(
            "<D:displayname>",
            "<I:calendar-order>first</I:calendar-order><D:displayname>",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(!app.vault().join("Side  project").exists());
    // A calendar made with an order has it from the start.
    let made = client
        .request("MKCALENDAR", "/calendars/side/")
        .body(MKCALENDAR.replace(
            "<D:displayname>",
            "<I:calendar-order>7</I:calendar-order><D:displayname>",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::CREATED);
    let read = property(&app, &manager, "/calendars/side/", "<i:calendar-order/>").await;
    assert!(
        read.contains("<I:calendar-order>7</I:calendar-order>"),
        "{read}"
    );
}

fn task(uid: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nDUE;VALUE=DATE:20260312\r\nSTATUS:NEEDS-ACTION\r\n\
         SUMMARY:File taxes\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_calendar_made_for_tasks_holds_tasks_only() {
    let app = CaldavHarness::start().await;
    let manager = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::SettingsWrite])
        .await;
    let client = app.as_client(Some(&manager));
    let made = client
        .request("MKCALENDAR", "/calendars/chores/")
        .body(MKCALENDAR.replace(r#"<C:comp name="VEVENT"/>"#, r#"<C:comp name="vtodo"/>"#))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::CREATED);
    let set = property(
        &app,
        &manager,
        "/calendars/chores/",
        "<c:supported-calendar-component-set/>",
    )
    .await;
    assert!(set.contains(r#"<C:comp name="VTODO"/>"#), "{set}");
    assert!(!set.contains("VEVENT"), "{set}");
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(app.core.paths.settings_file()).unwrap())
            .unwrap();
    let chores = settings["calendarSources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "chores")
        .unwrap()
        .clone();
    assert_eq!(chores["components"], serde_json::json!(["VTODO"]));

    let folder = app.vault().join("Side  project");
    let notes = || std::fs::read_dir(&folder).unwrap().count();
    let refused = client
        .put("/calendars/chores/kick-off.ics", None, event("kick-off"))
        .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let reason = refused.text().await.unwrap();
    assert!(
        reason.contains("<C:supported-calendar-component/>") && reason.contains("VEVENT"),
        "{reason}"
    );
    assert_eq!(notes(), 0, "no note written for the refused event");
    let put = client
        .put("/calendars/chores/taxes.ics", None, task("taxes"))
        .await;
    assert_eq!(put.status(), StatusCode::CREATED);
    assert_eq!(notes(), 1);

    // The other calendars hold both, as before.
    let local = property(
        &app,
        &manager,
        "/calendars/local/",
        "<c:supported-calendar-component-set/>",
    )
    .await;
    assert!(
        local.contains(r#"<C:comp name="VEVENT"/><C:comp name="VTODO"/>"#),
        "{local}"
    );
}
