//! The REST JSON bodies, sent through the real REST router of a real core:
//! `POST /api/v1/events` (create), `PUT /api/v1/events/{id}` (update) and
//! `PUT /api/v1/settings`. The first byte picks the route; the rest is the
//! body. No body may panic the server or get a 5xx; every refusal is the
//! spec's JSON error. An event the server accepts must write as clean
//! iCalendar (what the CalDAV server and the feeds serve of it): one
//! `VEVENT` and only the properties Almanac writes, so no field can inject
//! lines. What a body changed is undone, so every input meets the same
//! core.
#![no_main]

mod common;

use almanac_core::calendar::Event;
use almanac_core::ics::write::{Component, calendar};
use axum::body::Body;
use libfuzzer_sys::fuzz_target;
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

/// Every content line name the iCalendar writer emits.
const WRITTEN_NAMES: &[&str] = &[
    "BEGIN",
    "END",
    "VERSION",
    "PRODID",
    "CALSCALE",
    "X-WR-CALNAME",
    "TZID",
    "TZOFFSETFROM",
    "TZOFFSETTO",
    "TZNAME",
    "DTSTART",
    "RDATE",
    "UID",
    "DTSTAMP",
    "DTEND",
    "RECURRENCE-ID",
    "RRULE",
    "EXDATE",
    "SUMMARY",
    "DESCRIPTION",
    "LOCATION",
    "CATEGORIES",
    "URL",
    "ACTION",
    "TRIGGER",
];
const COMPONENTS: &[&str] = &[
    "VCALENDAR",
    "VTIMEZONE",
    "STANDARD",
    "DAYLIGHT",
    "VEVENT",
    "VALARM",
];

const DISPLAY_SETTINGS: &str =
    r#"{"settings":{"displayTimezone":"Europe/Berlin","initialView":"dayGridMonth","firstDay":0}}"#;

fn assert_clean_ics(event: &Event, body: &[u8]) {
    let component = Component {
        uid: "fuzz@almanac",
        event,
        recurrence_id: None,
    };
    let text = calendar(
        &[component],
        Some("Fuzz"),
        chrono_tz::Tz::Europe__Berlin,
        chrono::Utc::now(),
    );
    let unfolded = text.replace("\r\n ", "");
    let lines: Vec<&str> = unfolded.trim_end_matches("\r\n").split("\r\n").collect();
    let body = String::from_utf8_lossy(body);
    for line in &lines {
        assert!(
            !line.contains(['\r', '\n']),
            "a bare line break written: {line:?} from {body}"
        );
        let name = line.split([':', ';']).next().unwrap_or_default();
        assert!(
            WRITTEN_NAMES.contains(&name),
            "line {line:?} written from {body}"
        );
        if name == "BEGIN" || name == "END" {
            let value = line.split_once(':').map(|(_, v)| v).unwrap_or_default();
            assert!(
                COMPONENTS.contains(&value),
                "component {line:?} written from {body}"
            );
        }
    }
    let vevents = lines.iter().filter(|l| **l == "BEGIN:VEVENT").count();
    assert_eq!(vevents, 1, "one event writes one VEVENT: {body}");
}

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let live = common::live();
    let (method, uri, token) = match pick % 3 {
        0 => ("POST", "/api/v1/events", &live.events_token),
        1 => (
            "PUT",
            "/api/v1/events/local%3A%3Aevents%2Fmissing.md",
            &live.events_token,
        ),
        _ => ("PUT", "/api/v1/settings", &live.settings_token),
    };
    let send = |method: &str, uri: &str, body: Vec<u8>| {
        let request = live
            .request(method, uri)
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Body::from(body))
            .expect("a request");
        live.send(&live.rest, request)
    };
    let answer = send(method, uri, body.to_vec());
    common::assert_rest_answer(&answer, &String::from_utf8_lossy(body));
    if !answer.status.is_success() {
        return;
    }
    if uri == "/api/v1/settings" {
        let reset = send("PUT", uri, DISPLAY_SETTINGS.as_bytes().to_vec());
        assert!(
            reset.status.is_success(),
            "the display settings are restored"
        );
        return;
    }
    let written: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON");
    let event: Event = serde_json::from_value(written["event"].clone()).expect("an event");
    assert_clean_ics(&event, body);
    let id = utf8_percent_encode(&event.id, NON_ALPHANUMERIC).to_string();
    let deleted = send("DELETE", &format!("/api/v1/events/{id}"), Vec::new());
    assert!(
        deleted.status.is_success(),
        "the created event is deleted: {}",
        deleted.status
    );
});
