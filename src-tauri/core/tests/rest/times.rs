//! Times an assistant cannot misread, over HTTP: every event `GET /events`,
//! `GET /events/{id}`, `POST` and `PUT` answer with carries its start and
//! end in UTC and in the display zone (with the offset of that day), the
//! zone's name and its timing, beside the spec's own fields, unchanged.
//! The display zone is New York, which springs forward on Sunday
//! 2026-03-08 (−05:00 before, −04:00 after).

use std::sync::Arc;

use almanac_core::api::HeadlessUi;
use almanac_core::tokens::Scope;
use chrono::DateTime;
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::rest::support::RestHarness;

/// `[timing, displayZone, startUtc, endUtc, startLocal, endLocal]`.
fn times(event: &Value) -> [Value; 6] {
    [
        "timing",
        "displayZone",
        "startUtc",
        "endUtc",
        "startLocal",
        "endLocal",
    ]
    .map(|field| {
        event
            .get(field)
            .cloned()
            .unwrap_or_else(|| panic!("no `{field}`: {event}"))
    })
}

fn expected(timing: &str, utc: [Option<&str>; 2], local: [&str; 2]) -> [Value; 6] {
    [
        json!(timing),
        json!("America/New_York"),
        json!(utc[0]),
        json!(utc[1]),
        json!(local[0]),
        json!(local[1]),
    ]
}

fn event_path(id: &str) -> String {
    format!(
        "/api/v1/events/{}",
        utf8_percent_encode(id, NON_ALPHANUMERIC)
    )
}

async fn create(instance: &RestHarness, token: &str, event: Value) -> Value {
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(token),
            Some(json!({"calendarId": "local", "event": event})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    reply.body["event"].clone()
}

/// The events of `2026-03-07` to `2026-03-09`, by title and date.
async fn listed(instance: &RestHarness, token: &str) -> Vec<Value> {
    let reply = instance
        .send(
            Method::GET,
            "/api/v1/events?start=2026-03-07&end=2026-03-09",
            Some(token),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    reply.body["events"].as_array().unwrap().clone()
}

fn find<'a>(events: &'a [Value], title: &str, date: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["title"] == title && e["date"] == date)
        .unwrap_or_else(|| panic!("no {title} on {date} in {events:#?}"))
}

/// The spec's `startMillis` / `endMillis` name the instants `startUtc` /
/// `endUtc` do.
fn assert_same_instants(event: &Value) {
    for (millis, utc) in [("startMillis", "startUtc"), ("endMillis", "endUtc")] {
        let from_text = event[utc].as_str().map(|text| {
            DateTime::parse_from_rfc3339(text)
                .unwrap()
                .timestamp_millis()
        });
        assert_eq!(
            event[millis].as_i64(),
            from_text,
            "{millis} vs {utc}: {event}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_event_answered_states_its_times_in_utc_and_in_the_display_zone() {
    let instance = RestHarness::start_with(Arc::new(HeadlessUi), |settings| {
        settings.display_timezone = "America/New_York".into();
    })
    .await;
    let token = instance
        .token(&[Scope::EventsRead, Scope::EventsWrite])
        .await;

    // Floating (no zone of its own), the day before the change.
    let before = create(
        &instance,
        &token,
        json!({"title": "Before", "date": "2026-03-07", "startTime": "09:00",
               "endTime": "10:00", "allDay": false}),
    )
    .await;
    let before_times = expected(
        "floating",
        [Some("2026-03-07T14:00:00Z"), Some("2026-03-07T15:00:00Z")],
        ["2026-03-07T09:00:00-05:00", "2026-03-07T10:00:00-05:00"],
    );
    assert_eq!(times(&before), before_times);
    // Zoned in Berlin (still +01:00), the day after the change.
    let after = create(
        &instance,
        &token,
        json!({"title": "After", "date": "2026-03-09", "startTime": "15:00",
               "endTime": "16:00", "allDay": false, "timezone": "Europe/Berlin"}),
    )
    .await;
    let after_times = expected(
        "zoned",
        [Some("2026-03-09T14:00:00Z"), Some("2026-03-09T15:00:00Z")],
        ["2026-03-09T10:00:00-04:00", "2026-03-09T11:00:00-04:00"],
    );
    assert_eq!(times(&after), after_times);
    // All-day across the change: days, no instants.
    let trip = create(
        &instance,
        &token,
        json!({"title": "Trip", "date": "2026-03-08", "endDate": "2026-03-09", "allDay": true}),
    )
    .await;
    let trip_times = expected("allDay", [None, None], ["2026-03-08", "2026-03-09"]);
    assert_eq!(times(&trip), trip_times);
    // A weekly series (Saturdays and Mondays): unexpanded, it has no one start.
    let gym = create(
        &instance,
        &token,
        json!({"title": "Gym", "type": "recurring", "daysOfWeek": ["S", "M"],
               "startRecur": "2026-03-01", "endRecur": "2026-03-31", "startTime": "08:00",
               "endTime": "08:30", "allDay": false}),
    )
    .await;
    assert_eq!(
        times(&gym),
        [
            json!("floating"),
            json!("America/New_York"),
            json!(null),
            json!(null),
            json!(null),
            json!(null)
        ]
    );

    // An all-day series: each occurrence is its own day.
    create(
        &instance,
        &token,
        json!({"title": "Bins", "type": "recurring", "daysOfWeek": ["S"],
               "startRecur": "2026-03-01", "allDay": true}),
    )
    .await;

    // The list (written from bytes) says what the single answers said, and
    // each occurrence of the series has the offset of its own day.
    let events = listed(&instance, &token).await;
    assert_eq!(times(find(&events, "Before", "2026-03-07")), before_times);
    assert_eq!(times(find(&events, "After", "2026-03-09")), after_times);
    assert_eq!(times(find(&events, "Trip", "2026-03-08")), trip_times);
    assert_eq!(
        times(find(&events, "Gym", "2026-03-07")),
        expected(
            "floating",
            [Some("2026-03-07T13:00:00Z"), Some("2026-03-07T13:30:00Z")],
            ["2026-03-07T08:00:00-05:00", "2026-03-07T08:30:00-05:00"],
        )
    );
    assert_eq!(
        times(find(&events, "Gym", "2026-03-09")),
        expected(
            "floating",
            [Some("2026-03-09T12:00:00Z"), Some("2026-03-09T12:30:00Z")],
            ["2026-03-09T08:00:00-04:00", "2026-03-09T08:30:00-04:00"],
        )
    );
    assert_eq!(
        times(find(&events, "Bins", "2026-03-07")),
        expected("allDay", [None, None], ["2026-03-07", "2026-03-07"])
    );
    assert_eq!(events.len(), 6, "{events:#?}");
    // The spec's fields are still there and agree.
    for event in &events {
        assert_same_instants(event);
    }
    let listed_after = find(&events, "After", "2026-03-09");
    assert_eq!(listed_after["startTime"], "15:00", "its own zone's time");
    assert_eq!(listed_after["timezone"], "Europe/Berlin");
    assert_eq!(find(&events, "Trip", "2026-03-08")["allDay"], true);

    // One event's details, and an update.
    let reply = instance
        .send(
            Method::GET,
            &event_path(after["id"].as_str().unwrap()),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(times(&reply.body["details"]["event"]), after_times);
    assert!(reply.body["details"]["location"]["file"]["path"].is_string());
    let reply = instance
        .send(
            Method::PUT,
            &event_path(before["id"].as_str().unwrap()),
            Some(&token),
            Some(json!({"event": {"date": "2026-03-09"}})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(
        times(&reply.body["event"]),
        expected(
            "floating",
            [Some("2026-03-09T13:00:00Z"), Some("2026-03-09T14:00:00Z")],
            ["2026-03-09T09:00:00-04:00", "2026-03-09T10:00:00-04:00"],
        ),
        "moved across the change, the same wall clock has the new offset"
    );
    assert_same_instants(&reply.body["event"]);

    // A new display zone: the floating event keeps its wall clock there, the
    // zoned one its instant.
    instance
        .settings_as_user(json!({"displayTimezone": "Europe/Berlin"}))
        .await
        .unwrap();
    let events = listed(&instance, &token).await;
    let moved = find(&events, "Before", "2026-03-09");
    assert_eq!(moved["displayZone"], "Europe/Berlin");
    assert_eq!(moved["startUtc"], "2026-03-09T08:00:00Z");
    assert_eq!(moved["startLocal"], "2026-03-09T09:00:00+01:00");
    let zoned = find(&events, "After", "2026-03-09");
    assert_eq!(zoned["startUtc"], "2026-03-09T14:00:00Z");
    assert_eq!(zoned["startLocal"], "2026-03-09T15:00:00+01:00");
}
