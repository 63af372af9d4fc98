//! Each route's behaviour and body shape, checked against the files on disk.

use std::sync::Arc;

use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::rest::support::{ICS_CALENDAR, RecordingUi, RestHarness, STANDUP_ID, STANDUP_PATH};

async fn admin(instance: &RestHarness) -> String {
    instance.token(&[Scope::SystemFullAccess]).await
}

#[tokio::test]
async fn get_events_filters_by_range_calendar_and_flags() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let count = |query: &'static str| {
        let (instance, token) = (&instance, &token);
        async move {
            let reply = instance
                .send(
                    Method::GET,
                    &format!("/api/v1/events{query}"),
                    Some(token),
                    None,
                )
                .await;
            assert_eq!(reply.status, StatusCode::OK, "{query}: {reply:?}");
            assert_eq!(reply.body["success"], true);
            let events = reply.body["events"].as_array().unwrap();
            assert_eq!(reply.body["count"], events.len());
            events.len()
        }
    };
    assert_eq!(count("").await, 1);
    assert_eq!(count("?start=2026-01-05&end=2026-01-05").await, 1);
    assert_eq!(
        count("?start=2026-01-05T09:15:00Z&end=2026-01-05T10:00:00Z").await,
        1
    );
    assert_eq!(count("?start=2026-01-06&end=2026-01-12").await, 0);
    // 2026-01-05T09:00Z and 09:14Z in epoch milliseconds.
    assert_eq!(count("?start=1767603600000&end=1767604440000").await, 1);
    assert_eq!(count("?calendar=local").await, 1);
    assert_eq!(count("?calendar=holidays,nope").await, 0);
    assert_eq!(count("?query=standup").await, 1);
    assert_eq!(count("?query=retro").await, 0);
    assert_eq!(count("?isTask=false").await, 1);
    assert_eq!(count("?isTask=true").await, 0);
    assert_eq!(count("?isCompleted=true").await, 0);

    let reply = instance
        .send(
            Method::GET,
            "/api/v1/events?start=2026-01-05",
            Some(&token),
            None,
        )
        .await;
    let event = &reply.body["events"][0];
    assert_eq!(event["id"], STANDUP_ID);
    assert_eq!(event["title"], "Standup");
    assert_eq!(event["date"], "2026-01-05");
    assert_eq!(event["startTime"], "09:00");
    assert_eq!(event["allDay"], false);
    assert_eq!(event["calendarId"], "local");

    for (query, field) in [
        ("?isTask=yes", "isTask"),
        ("?isCompleted=1", "isCompleted"),
        ("?start=tomorrow", "start"),
        ("?end=2026-13-01", "end"),
        ("?start=99999999999999999999", "start"),
        ("?start=2026-02-01&end=2026-01-01", "end"),
    ] {
        let reply = instance
            .send(
                Method::GET,
                &format!("/api/v1/events{query}"),
                Some(&token),
                None,
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(reply.error_id(), "Bad Request");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(field), "{query}: {message}");
    }
}

#[tokio::test]
async fn post_creates_a_note_and_refuses_bad_bodies() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let create = |body: serde_json::Value| {
        instance.send(Method::POST, "/api/v1/events", Some(&token), Some(body))
    };
    let reply = create(json!({
        "calendarId": "local",
        "event": {"title": "Retro", "date": "2026-01-09", "startTime": "15:00",
                  "endTime": "16:00", "allDay": false},
        "options": {"silent": true}
    }))
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(
        (&reply.body["success"], &reply.body["result"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(
        reply.body["event"]["id"],
        "fullnote:events/2026-01-09 Retro.md"
    );
    let note =
        std::fs::read_to_string(instance.vault().join("events/2026-01-09 Retro.md")).unwrap();
    assert!(note.contains("title: Retro"), "{note}");

    let all_day = create(json!({"calendarId": "local",
        "event": {"title": "Offsite", "date": "2026-01-12", "endDate": "2026-01-13", "allDay": true}}))
    .await;
    assert_eq!(all_day.status, StatusCode::CREATED, "{all_day:?}");

    let again = create(json!({"calendarId": "local",
        "event": {"title": "Retro", "date": "2026-01-09", "allDay": true}}))
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{again:?}");
    assert_eq!(again.error_id(), "Conflict");

    let before = crate::rest::hostile::snapshot(&instance);
    for (body, field) in [
        (
            json!({"event": {"title": "x", "date": "2026-01-01"}}),
            "calendarId",
        ),
        (json!({"calendarId": "local"}), "event"),
        (json!({"calendarId": 7, "event": {}}), "calendarId"),
        (
            json!({"calendarId": "local", "event": {"title": "x", "date": "2026-02-30", "allDay": true}}),
            "date",
        ),
        (
            json!({"calendarId": "local", "event": {"title": "x", "date": "2026-01-01", "allDay": "yes"}}),
            "event.allDay",
        ),
        (
            json!({"calendarId": "local", "event": {"title": "x", "bogus": 1}}),
            "bogus",
        ),
        (
            json!({"calendarId": "nope", "event": {"title": "x", "date": "2026-01-01", "allDay": true}}),
            "calendar",
        ),
        (
            json!({"calendarId": ICS_CALENDAR, "event": {"title": "x", "date": "2026-01-01", "allDay": true}}),
            "read-only",
        ),
        (
            json!({"calendarId": "local", "event": {"title": "x", "date": "2026-01-01", "allDay": true}, "options": {"silent": "no"}}),
            "options.silent",
        ),
    ] {
        let reply = create(body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {reply:?}");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(field), "{body}: {message}");
    }
    assert_eq!(
        crate::rest::hostile::snapshot(&instance),
        before,
        "a refused create changed the disk"
    );
}

#[tokio::test]
async fn get_details_by_encoded_or_raw_id() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    for path in [
        STANDUP_PATH,
        "/api/v1/events/fullnote:events/2026-01-05%20Standup.md",
    ] {
        let reply = instance.send(Method::GET, path, Some(&token), None).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}: {reply:?}");
        let details = &reply.body["details"];
        assert_eq!(reply.body["success"], true);
        assert_eq!(details["calendarId"], "local");
        assert_eq!(details["event"]["id"], STANDUP_ID);
        assert_eq!(details["event"]["title"], "Standup");
        assert_eq!(
            details["location"]["file"]["path"],
            "events/2026-01-05 Standup.md"
        );
        assert!(details["location"]["lineNumber"].is_number());
    }
    for path in [
        "/api/v1/events/fullnote%3Aevents%2Fnope.md",
        "/api/v1/events/nope",
        "/api/v1/events/fullnote%3Aevents%2F2026-01-05%20standup.md",
    ] {
        let reply = instance.send(Method::GET, path, Some(&token), None).await;
        assert!(
            [StatusCode::NOT_FOUND, StatusCode::BAD_REQUEST].contains(&reply.status),
            "{path}: {reply:?}"
        );
        reply.error_id();
    }
    let reply = instance
        .send(
            Method::GET,
            "/api/v1/events/fullnote%3Aevents%2Fnope.md",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn put_updates_the_note() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let reply = instance
        .send(
            Method::PUT,
            STANDUP_PATH,
            Some(&token),
            Some(json!({"event": {"endTime": "09:45"}, "options": {"silent": true}})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(
        (&reply.body["success"], &reply.body["result"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(reply.body["event"]["endTime"], "09:45");
    let note =
        std::fs::read_to_string(instance.vault().join("events/2026-01-05 Standup.md")).unwrap();
    assert!(note.contains("09:45"), "{note}");
    assert!(note.contains("Daily sync."), "the body was lost: {note}");

    let before = crate::rest::hostile::snapshot(&instance);
    for (path, body, status) in [
        (STANDUP_PATH, json!({}), StatusCode::BAD_REQUEST),
        (
            STANDUP_PATH,
            json!({"event": {"date": "soon"}}),
            StatusCode::BAD_REQUEST,
        ),
        (
            STANDUP_PATH,
            json!({"event": {"startTime": "25:00"}}),
            StatusCode::BAD_REQUEST,
        ),
        (STANDUP_PATH, json!({"event": []}), StatusCode::BAD_REQUEST),
        (
            "/api/v1/events/fullnote%3Aevents%2Fnope.md",
            json!({"event": {"title": "x"}}),
            StatusCode::NOT_FOUND,
        ),
    ] {
        let reply = instance
            .send(Method::PUT, path, Some(&token), Some(body.clone()))
            .await;
        assert_eq!(reply.status, status, "{path} {body}: {reply:?}");
        reply.error_id();
    }
    assert_eq!(
        crate::rest::hostile::snapshot(&instance),
        before,
        "a refused update changed the disk"
    );
}

#[tokio::test]
async fn delete_removes_a_note_or_one_occurrence() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let reply = instance
        .send(Method::DELETE, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body, json!({"success": true}));
    assert!(
        !instance
            .vault()
            .join("events/2026-01-05 Standup.md")
            .exists()
    );
    let again = instance
        .send(Method::DELETE, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
    assert_eq!(again.error_id(), "Not Found");

    let created = instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(&token),
            Some(json!({"calendarId": "local", "event": {
                "title": "Gym", "type": "recurring", "daysOfWeek": ["M", "W"],
                "startRecur": "2026-01-01", "startTime": "07:00", "endTime": "08:00", "allDay": false}})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{created:?}");
    let id = created.body["event"]["id"].as_str().unwrap().to_string();
    let path = format!(
        "/api/v1/events/{}",
        id.replace('%', "%25")
            .replace('/', "%2F")
            .replace(' ', "%20")
    );
    let week = "/api/v1/events?start=2026-01-05&end=2026-01-11&query=gym";
    let listed = instance.send(Method::GET, week, Some(&token), None).await;
    assert_eq!(listed.body["count"], 2, "{listed:?}");

    let suppressed = instance
        .send(
            Method::DELETE,
            &path,
            Some(&token),
            Some(json!({"options": {"instanceDate": "2026-01-07"}})),
        )
        .await;
    assert_eq!(suppressed.status, StatusCode::OK, "{suppressed:?}");
    let listed = instance.send(Method::GET, week, Some(&token), None).await;
    assert_eq!(listed.body["count"], 1, "{listed:?}");
    assert_eq!(listed.body["events"][0]["date"], "2026-01-05");

    let bad = instance
        .send(
            Method::DELETE,
            &path,
            Some(&token),
            Some(json!({"options": {"instanceDate": "Wednesday"}})),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{bad:?}");
    assert!(
        bad.body["message"]
            .as_str()
            .unwrap()
            .contains("options.instanceDate")
    );
}

#[tokio::test]
async fn calendars_and_revalidate() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let reply = instance
        .send(Method::GET, "/api/v1/calendars", Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["success"], true);
    let ids: Vec<_> = reply.body["calendars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["local", ICS_CALENDAR]);

    for body in [None, Some(json!({})), Some(json!({"force": true}))] {
        let reply = instance
            .send(
                Method::POST,
                "/api/v1/providers/revalidate",
                Some(&token),
                body,
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.body, json!({"success": true}));
    }
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/providers/revalidate",
            Some(&token),
            Some(json!({"force": "yes"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(reply.body["message"].as_str().unwrap().contains("force"));
}

#[tokio::test]
async fn ui_routes_drive_the_windows_or_report_headless() {
    let headless = RestHarness::start().await;
    let token = admin(&headless).await;
    for path in ["/api/v1/ui/open-calendar", "/api/v1/ui/open-sidebar"] {
        let reply = headless.send(Method::POST, path, Some(&token), None).await;
        assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert_eq!(reply.error_id(), "Service Unavailable");
    }

    let ui = Arc::new(RecordingUi::default());
    let instance = RestHarness::start_with_ui(ui.clone()).await;
    let token = admin(&instance).await;
    for (path, body) in [
        ("/api/v1/ui/open-calendar", None),
        ("/api/v1/ui/open-sidebar", None),
        (
            "/api/v1/ui/change-view",
            Some(json!({"viewName": "listWeek"})),
        ),
    ] {
        let reply = instance.send(Method::POST, path, Some(&token), body).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}: {reply:?}");
        assert_eq!(reply.body, json!({"success": true}));
    }
    assert_eq!(
        ui.calls(),
        ["open_calendar", "open_sidebar", "change_view listWeek"]
    );
    for body in [
        json!({}),
        json!({"viewName": 3}),
        json!({"viewName": "yearGrid"}),
    ] {
        let reply = instance
            .send(
                Method::POST,
                "/api/v1/ui/change-view",
                Some(&token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert!(
            reply.body["message"].as_str().unwrap().contains("viewName"),
            "{reply:?}"
        );
    }
    assert_eq!(ui.calls().len(), 3);
}

#[tokio::test]
async fn settings_read_and_update() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let reply = instance
        .send(Method::GET, "/api/v1/settings", Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["success"], true);
    assert_eq!(reply.body["settings"]["localServerPort"], 8540);
    assert_eq!(reply.body["settings"]["restServerEnabled"], false);

    let reply = instance
        .send(
            Method::PUT,
            "/api/v1/settings",
            Some(&token),
            Some(json!({"settings": {"firstDay": 1}})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body["settings"]["firstDay"], 1);
    assert_eq!(instance.core.settings.get().first_day, 1);
    let file = std::fs::read_to_string(instance.core.paths.settings_file()).unwrap();
    assert!(file.contains("\"firstDay\": 1"), "{file}");

    let before = instance.core.settings.get();
    for (body, field) in [
        (json!({}), "settings"),
        (json!({"settings": 5}), "settings"),
        (json!({"settings": {"nope": 1}}), "nope"),
        (
            json!({"settings": {"localServerPort": 80}}),
            "localServerPort",
        ),
        (
            json!({"settings": {"localServerPort": "9000"}}),
            "localServerPort",
        ),
        (json!({"settings": {"firstDay": 1}, "extra": true}), "extra"),
    ] {
        let reply = instance
            .send(
                Method::PUT,
                "/api/v1/settings",
                Some(&token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {reply:?}");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(field), "{body}: {message}");
    }
    assert_eq!(instance.core.settings.get(), before);
}

#[tokio::test]
async fn repeated_queries_follow_every_change() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let day = "/api/v1/events?start=2026-01-05&end=2026-01-05";
    let count = || async {
        let reply = instance.send(Method::GET, day, Some(&token), None).await;
        assert_eq!(reply.status, StatusCode::OK);
        reply.body["count"].as_u64().unwrap()
    };
    assert_eq!(count().await, 1);
    assert_eq!(count().await, 1);

    // An edit made outside Almanac, picked up by the engine's watcher.
    let mut changes = instance.core.calendar.subscribe();
    changes.mark_unchanged();
    std::fs::write(
        instance.vault().join("events/2026-01-05 Lunch.md"),
        "---\ntitle: Lunch\nallDay: false\ndate: 2026-01-05\nstartTime: \"12:00\"\nendTime: \"13:00\"\n---\n",
    )
    .unwrap();
    changes.changed().await.unwrap();
    assert_eq!(count().await, 2);

    // A write through the API.
    let reply = instance
        .send(Method::DELETE, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(count().await, 1);
}

#[tokio::test]
async fn put_with_a_calendar_id_moves_the_event_or_says_why_not() {
    let instance = RestHarness::start().await;
    let token = admin(&instance).await;
    let put = |body: serde_json::Value| {
        let (instance, token) = (&instance, &token);
        async move {
            instance
                .send(Method::PUT, STANDUP_PATH, Some(token), Some(body))
                .await
        }
    };
    let before = crate::rest::hostile::snapshot(&instance);
    for (calendar, says) in [(ICS_CALENDAR, "read-only"), ("nope", "calendar")] {
        let reply = put(json!({"calendarId": calendar, "event": {}})).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
        assert!(
            reply.body["message"].as_str().unwrap().contains(says),
            "{reply:?}"
        );
    }
    assert_eq!(crate::rest::hostile::snapshot(&instance), before);

    instance
        .settings_as_user(json!({"calendarSources": [
            {"id": "local", "name": "Events", "type": "local", "directory": "events"},
            {"id": ICS_CALENDAR, "name": "Holidays", "type": "ical", "url": "http://127.0.0.1:9/holidays.ics"},
            {"id": "work", "name": "Work", "type": "local", "directory": "work"},
        ]}))
        .await
        .unwrap();
    let note = std::fs::read(instance.vault().join("events/2026-01-05 Standup.md")).unwrap();
    let reply = put(json!({"calendarId": "work", "event": {}})).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(
        reply.body["event"]["id"],
        "fullnote:work/2026-01-05 Standup.md"
    );
    assert_eq!(reply.body["event"]["calendarId"], "work");
    assert_eq!(
        std::fs::read(instance.vault().join("work/2026-01-05 Standup.md")).unwrap(),
        note
    );
    assert!(
        !instance
            .vault()
            .join("events/2026-01-05 Standup.md")
            .exists()
    );
    assert_ne!(STANDUP_ID, reply.body["event"]["id"]);
}

/// A published calendar's sync is in `GET /calendars` for a `providers:read`
/// token: here a server that is not there, so the first pass (asked for by
/// `POST /providers/revalidate`, "sync now") fails in plain words, and the
/// calendar's note waits to be pushed.
#[tokio::test]
async fn a_published_calendars_sync_is_listed_with_what_waits_and_why() {
    let instance = RestHarness::start_with(Arc::new(RecordingUi::default()), |settings| {
        settings
            .published_calendars
            .push(almanac_core::settings::PublishedCalendar {
                calendar_id: "local".into(),
                // The discard port: nothing answers there.
                url: "http://127.0.0.1:9/dav/calendars/me/almanac/".into(),
                username: "me".into(),
                poll_seconds: *almanac_core::settings::POLL_SECONDS.end(),
            });
    })
    .await;
    let reader = instance.token(&[Scope::ProvidersRead]).await;
    let writer = instance.token(&[Scope::ProvidersWrite]).await;
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/providers/revalidate",
            Some(&writer),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let published = almanac_testkit::wait::eventually("the failed pass in the status", || {
        let (instance, reader) = (&instance, &reader);
        async move {
            let reply = instance
                .send(Method::GET, "/api/v1/calendars", Some(reader), None)
                .await;
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
            let published = reply.body["published"][0].clone();
            published["lastError"].is_string().then_some(published)
        }
    })
    .await;
    assert_eq!(published["calendarId"], "local");
    assert_eq!(published["lastSync"], serde_json::Value::Null);
    assert_eq!(published["waiting"], 1, "the Standup note: {published}");
    assert_eq!(published["conflicts"], json!([]));
    assert_eq!(published["oneWay"], false, "a notes calendar: both ways");
}
