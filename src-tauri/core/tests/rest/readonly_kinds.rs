//! The `holidays` and `icsfile` calendars over REST and the CalDAV server:
//! listed with their kind, their events answered, every write refused as
//! read-only with the disk unchanged. Real HTTP on loopback.

use std::time::Duration;

use almanac_core::settings::{CalendarSource, KindSettings};
use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use almanac_core::api::HeadlessUi;

use crate::rest::support::RestHarness;

const SCHOOL: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:term@school\r\nDTSTART;VALUE=DATE:20260907\r\nSUMMARY:Term starts\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

fn calendar(id: &str, kind: KindSettings) -> CalendarSource {
    CalendarSource {
        id: id.into(),
        name: id.into(),
        color: "#336699".into(),
        kind,
        order: None,
        components: None,
    }
}

/// `GET /calendars`' entry for `id` once `ready` holds for it, re-checked
/// on every change of the engine's state.
async fn calendar_state(
    instance: &RestHarness,
    token: &str,
    id: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let mut changes = instance.core.calendar.subscribe();
    let wait = async {
        loop {
            changes.borrow_and_update();
            let reply = instance
                .send(Method::GET, "/api/v1/calendars", Some(token), None)
                .await;
            let found = reply.body["calendars"]
                .as_array()
                .and_then(|all| all.iter().find(|c| c["id"] == id))
                .cloned()
                .unwrap_or(Value::Null);
            if ready(&found) {
                return found;
            }
            changes.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("the calendar never reached the expected state")
}

#[tokio::test(flavor = "multi_thread")]
async fn holiday_and_vault_ics_calendars_answer_and_refuse_writes() {
    let instance = RestHarness::start_with(std::sync::Arc::new(HeadlessUi), |settings| {
        settings.calendar_sources.push(calendar(
            "public",
            KindSettings::Holidays {
                country: "GB".into(),
                subdivision: "SCT".into(),
            },
        ));
        settings.calendar_sources.push(calendar(
            "school",
            KindSettings::IcsFile {
                path: "calendars/school.ics".into(),
            },
        ));
    })
    .await;
    let token = instance
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead])
        .await;

    let public = calendar_state(&instance, &token, "public", |c| c.is_object()).await;
    assert_eq!(public["type"], "holidays");
    assert_eq!(public["editable"], false);
    // The file does not exist yet: the status says so.
    let school = calendar_state(&instance, &token, "school", |c| c["lastError"].is_string()).await;
    assert_eq!(school["type"], "icsfile");
    std::fs::create_dir_all(instance.vault().join("calendars")).unwrap();
    std::fs::write(instance.vault().join("calendars/school.ics"), SCHOOL).unwrap();
    calendar_state(&instance, &token, "school", |c| {
        c["eventCount"] == 1 && c["lastError"].is_null()
    })
    .await;

    let reply = instance
        .send(
            Method::GET,
            "/api/v1/events?start=2026-01-01&end=2026-12-31&calendar=public,school",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let events = reply.body["events"].as_array().unwrap();
    let titles_on = |date: &str| -> Vec<&str> {
        events
            .iter()
            .filter(|e| e["date"] == date)
            .map(|e| e["title"].as_str().unwrap())
            .collect()
    };
    // St Andrew's Day is Scotland's; Christmas the whole country's.
    assert_eq!(titles_on("2026-11-30"), ["Saint Andrew's Day"]);
    assert_eq!(titles_on("2026-12-25"), ["Christmas Day"]);
    assert_eq!(titles_on("2026-09-07"), ["Term starts"]);
    let christmas = events.iter().find(|e| e["date"] == "2026-12-25").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();

    let before = crate::rest::hostile::snapshot(&instance);
    for calendar in ["public", "school"] {
        let reply = instance
            .send(
                Method::POST,
                "/api/v1/events",
                Some(&token),
                Some(json!({"calendarId": calendar,
                    "event": {"title": "x", "date": "2026-01-01", "allDay": true}})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
        assert!(
            reply.body["message"]
                .as_str()
                .unwrap()
                .contains("read-only"),
            "{reply:?}"
        );
    }
    let path = format!(
        "/api/v1/events/{}",
        percent_encoding::utf8_percent_encode(&christmas, percent_encoding::NON_ALPHANUMERIC)
    );
    for method in [Method::PUT, Method::DELETE] {
        let body = (method == Method::PUT).then(|| json!({"event": {"title": "Not Christmas"}}));
        let reply = instance.send(method, &path, Some(&token), body).await;
        assert!(
            reply.status.is_client_error() && reply.text.contains("read-only"),
            "{reply:?}"
        );
    }
    assert_eq!(crate::rest::hostile::snapshot(&instance), before);

    // The CalDAV server, switched on as the Settings window does, serves
    // both as read-only collections.
    let core = &instance.core;
    let server = almanac_core::caldav_server::start(
        core.plugin().clone(),
        core.calendar.clone(),
        &core.paths,
        core.settings.subscribe(),
    );
    let port = almanac_testkit::free_port();
    instance
        .settings_as_user(json!({"caldavServer": {"enabled": true, "port": port}}))
        .await
        .unwrap();
    server
        .subscribe()
        .wait_for(
            |s| matches!(s, almanac_core::rest::ServerState::Listening(a) if a.port() == port),
        )
        .await
        .unwrap();
    let dav = |calendar: &str| {
        instance
            .client
            .request(
                Method::from_bytes(b"PROPFIND").unwrap(),
                format!("http://127.0.0.1:{port}/calendars/{calendar}/"),
            )
            .basic_auth("kinds", Some(token.clone()))
            .header("Depth", "1")
            .body(
                r#"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/><d:current-user-privilege-set/></d:prop></d:propfind>"#,
            )
            .send()
    };
    for (calendar, summary) in [
        ("public", "SUMMARY:Christmas Day"),
        ("school", "SUMMARY:Term starts"),
    ] {
        let answer = dav(calendar).await.unwrap();
        assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
        let text = answer.text().await.unwrap();
        assert!(
            text.contains(summary),
            "{calendar} over CalDAV: {}",
            &text[..text.len().min(2000)]
        );
    }
    let before = crate::rest::hostile::snapshot(&instance);
    let refused = instance
        .client
        .put(format!("http://127.0.0.1:{port}/calendars/public/new.ics"))
        .basic_auth("kinds", Some(token.clone()))
        .header("Content-Type", "text/calendar")
        .body(SCHOOL.replace("term@school", "new@x"))
        .send()
        .await
        .unwrap();
    assert!(refused.status().is_client_error(), "{refused:?}");
    assert_eq!(crate::rest::hostile::snapshot(&instance), before);
}
