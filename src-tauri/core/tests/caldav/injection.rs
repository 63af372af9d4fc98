//! iCalendar injection: text a note holds (a user may write anything in its
//! frontmatter) reaches the CalDAV answers and the subscription feeds
//! escaped, never as properties of its own. Each answer is read back with
//! the `icalendar` crate's parser, as a client would.

use almanac_core::caldav_server::feeds::FeedStore;
use almanac_core::tokens::Scope;
use icalendar::parser::{read_calendar, unfold};
use reqwest::StatusCode;

use crate::caldav::support::{CaldavHarness, JANUARY, LOCAL};

/// A note whose `url` and `description` try to end their line and add an
/// attendee (who would get an invitation from the user's account).
const TRAP: &str = "events/2026-01-07 Trap.md";
const TRAP_NOTE: &str = "---\ntitle: Trap\nallDay: false\ndate: 2026-01-07\n\
startTime: \"10:00\"\nendTime: \"11:00\"\n\
url: \"https://x.example/\\r\\nATTENDEE;RSVP=TRUE:mailto:victim@example.com\\r\\nX-INJ:1\"\n\
description: \"Hi\\r\\nATTENDEE:mailto:victim@example.com\\nX-INJ:2\"\n\
location: \"Room 1\\r\\nX-INJ:3\"\n---\n";

async fn with_trap() -> CaldavHarness {
    let app = CaldavHarness::start().await;
    let path = app.vault().join(TRAP);
    std::fs::write(&path, TRAP_NOTE).unwrap();
    app.core.calendar.refresh_path(&path);
    app
}

/// The `calendar-data` texts of a multistatus answer.
fn calendar_data(body: &str) -> Vec<String> {
    body.split("calendar-data>")
        .skip(1)
        .step_by(2)
        .map(|part| {
            let text = part.split("</").next().unwrap_or_default();
            quick_xml::escape::unescape(text).unwrap().into_owned()
        })
        .collect()
}

/// Asserts `ics` parses, holds the Trap event, and that event has exactly
/// the properties Almanac writes, its text intact.
fn assert_trap_is_inert(ics: &str) {
    let unfolded = unfold(ics);
    let calendars = read_calendar(&unfolded).unwrap_or_else(|e| panic!("{e}: {ics}"));
    // The parser lists the calendar's components at its top.
    let trap = calendars
        .components
        .iter()
        .find(|e| {
            e.name == "VEVENT"
                && e.properties
                    .iter()
                    .any(|p| p.name == "SUMMARY" && p.val.as_str() == "Trap")
        })
        .unwrap_or_else(|| panic!("no Trap event: {ics}"));
    let names: Vec<&str> = trap.properties.iter().map(|p| p.name.as_str()).collect();
    for injected in ["ATTENDEE", "X-INJ"] {
        assert!(!names.contains(&injected), "{injected} injected: {ics}");
    }
    let value = |name: &str| {
        trap.properties
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no {name}: {ics}"))
            .val
            .to_string()
    };
    assert!(
        value("URL").starts_with("https://x.example/ATTENDEE"),
        "{ics}"
    );
    // The parser unescapes TEXT: the note's text comes back whole, one
    // property each.
    assert_eq!(
        value("DESCRIPTION"),
        "Hi\nATTENDEE:mailto:victim@example.com\nX-INJ:2"
    );
    assert_eq!(value("LOCATION"), "Room 1\nX-INJ:3");
    assert!(
        ics.split("\r\n").all(|line| line.len() <= 75),
        "a line over 75 octets: {ics}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_note_cannot_inject_properties_into_caldav_answers() {
    let app = with_trap().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));

    let answer = client
        .query("REPORT", &format!("/calendars/{LOCAL}/"), JANUARY)
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    let body = answer.text().await.unwrap();
    let trap = calendar_data(&body)
        .into_iter()
        .find(|ics| ics.contains("SUMMARY:Trap"))
        .unwrap_or_else(|| panic!("no Trap in the report: {body}"));
    assert_trap_is_inert(&trap);

    let href = app.href_of(&token, "Trap").await;
    let resource = client.send("GET", &href).await;
    assert_eq!(resource.status(), StatusCode::OK);
    assert_trap_is_inert(&resource.text().await.unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_note_cannot_inject_properties_into_a_subscription_feed() {
    let app = with_trap().await;
    let feeds = FeedStore::new(app.core.paths.feeds_file());
    let made = feeds.create("Phone", vec![LOCAL.into()]).unwrap();
    let answer = app
        .as_client(None)
        .send("GET", &format!("/feeds/{}.ics", made.secret))
        .await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_trap_is_inert(&answer.text().await.unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_calendar_app_cannot_write_a_series_repeating_every_second() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let before = std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .count();
    let tick = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
UID:tick-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:19900101T000000Z\r\n\
RRULE:FREQ=SECONDLY;COUNT=1000000000\r\nSUMMARY:Tick\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let refused = app
        .as_client(Some(&token))
        .put(&format!("/calendars/{LOCAL}/tick-1.ics"), None, tick)
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let message = refused.text().await.unwrap();
    assert!(
        message.contains("rrule") && message.contains("SECONDLY"),
        "{message}"
    );
    let after = std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .count();
    assert_eq!(after, before, "a note was written");
}
