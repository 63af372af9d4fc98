//! What a client writes cannot reach iCalendar as more than text, and one
//! runaway series never blocks its calendar: written through Almanac it is
//! refused; read from a note or a feed, it is left out of the answers that
//! cannot afford it, named in their `warnings` and in the calendar's status,
//! and everything else still answers.

use std::io::Write;
use std::time::Duration;

use almanac_core::tokens::Scope;
use almanac_testkit::HttpStub;
use reqwest::Method;
use serde_json::{Value, json};

use crate::rest::support::{RestHarness, STANDUP_ID};

const INJECTED_URL: &str =
    "https://x.example/\r\nATTENDEE;RSVP=TRUE:mailto:victim@example.com\r\nX-INJ:1";

/// The rule of the attack: one occurrence a second for 31 years, from 1990.
const RUNAWAY_RULE: &str = "FREQ=SECONDLY;COUNT=1000000000";

/// One day with the Standup note on it.
const STANDUP_DAY: &str = "start=2026-01-05&end=2026-01-05";

async fn post_event(
    instance: &RestHarness,
    token: &str,
    event: Value,
) -> crate::rest::support::Reply {
    instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(token),
            Some(json!({"calendarId": "local", "event": event})),
        )
        .await
}

fn notes_in_vault(instance: &RestHarness) -> usize {
    std::fs::read_dir(instance.vault().join("events"))
        .unwrap()
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_break_in_a_written_field_is_refused_naming_it() {
    let instance = RestHarness::start().await;
    let token = instance
        .token(&[Scope::EventsRead, Scope::EventsWrite])
        .await;
    let before = notes_in_vault(&instance);
    let event = |field: &str, value: &str| {
        let mut event = json!({"title": "Invite", "date": "2026-02-01", "allDay": true});
        event[field] = json!(value);
        event
    };
    let reply = post_event(&instance, &token, event("url", INJECTED_URL)).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_eq!(reply.error_id(), "Bad Request");
    assert!(
        reply.body["message"].as_str().unwrap().contains("`url`"),
        "{reply:?}"
    );
    for (field, value) in [
        ("location", "Room\nX-INJ:1"),
        ("category", "Work\rX"),
        ("title", "Bell\u{7}"),
        ("description", "Escape \u{1b}[31m"),
    ] {
        let reply = post_event(&instance, &token, event(field, value)).await;
        assert_eq!(reply.status, 400, "{field}: {reply:?}");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{field}`")), "{message}");
    }
    // Nothing was written.
    assert_eq!(notes_in_vault(&instance), before);
    // A description keeps its lines: the writer escapes them.
    let reply = post_event(&instance, &token, event("description", "one\ntwo")).await;
    assert_eq!(reply.status, 201, "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_hourly_rule_is_refused_when_written() {
    let instance = RestHarness::start().await;
    let token = instance
        .token(&[Scope::EventsRead, Scope::EventsWrite])
        .await;
    let before = notes_in_vault(&instance);
    for rule in [RUNAWAY_RULE, "FREQ=MINUTELY", "FREQ=HOURLY;COUNT=100000"] {
        let reply = post_event(
            &instance,
            &token,
            json!({"title": "Tick", "type": "rrule", "rrule": rule,
                   "startDate": "1990-01-01", "allDay": false, "startTime": "00:00"}),
        )
        .await;
        assert_eq!(reply.status, 400, "{rule}: {reply:?}");
        assert_eq!(reply.error_id(), "Bad Request");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains("`rrule`"), "{message}");
    }
    assert_eq!(notes_in_vault(&instance), before);
    // Changing an existing event into one is refused too.
    let path = "/api/v1/events/fullnote%3Aevents%2F2026-01-05%20Standup.md";
    let reply = instance
        .send(
            Method::PUT,
            path,
            Some(&token),
            Some(json!({"type": "rrule", "rrule": "FREQ=SECONDLY", "startDate": "2026-01-05"})),
        )
        .await;
    assert_eq!(reply.status, 400, "{reply:?}");
}

/// `GET /events?{range}` (optionally of one calendar), answered.
async fn events(instance: &RestHarness, token: &str, query: &str) -> crate::rest::support::Reply {
    instance
        .send(
            Method::GET,
            &format!("/api/v1/events?{query}"),
            Some(token),
            None,
        )
        .await
}

fn titles(reply: &crate::rest::support::Reply) -> Vec<String> {
    reply.body["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{reply:?}"))
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_string())
        .collect()
}

/// The calendar `id` as `GET /calendars` lists it.
async fn calendar(instance: &RestHarness, token: &str, id: &str) -> Value {
    let reply = instance
        .send(Method::GET, "/api/v1/calendars", Some(token), None)
        .await;
    reply.body["calendars"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["id"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("no calendar {id}: {reply:?}"))
}

fn assert_warns_of(reply: &crate::rest::support::Reply, title: &str) {
    let warnings = reply.body["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings: {reply:?}"));
    assert_eq!(warnings.len(), 1, "{reply:?}");
    assert_eq!(warnings[0]["title"], title);
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.contains("left out"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runaway_series_in_a_note_is_left_out_and_named() {
    let instance = RestHarness::start().await;
    let token = instance
        .token(&[Scope::EventsRead, Scope::ProvidersRead])
        .await;
    // Written by hand: reading must still work.
    let path = instance.vault().join("events/1990-01-01 Tick.md");
    std::fs::write(
        &path,
        format!(
            "---\ntitle: Tick\ntype: rrule\nrrule: {RUNAWAY_RULE}\nstartDate: 1990-01-01\n\
             allDay: false\nstartTime: \"00:00\"\n---\n"
        ),
    )
    .unwrap();
    instance.core.calendar.refresh_path(&path);
    assert_eq!(
        instance.core.calendar.stats().events,
        2,
        "Tick was not read"
    );

    for query in [
        STANDUP_DAY.to_string(),
        format!("{STANDUP_DAY}&calendar=local"),
    ] {
        let reply = events(&instance, &token, &query).await;
        assert_eq!(reply.status, 200, "{query}: {reply:?}");
        assert_eq!(titles(&reply), ["Standup"], "{query}");
        assert_eq!(reply.body["events"][0]["id"], STANDUP_ID);
        assert_warns_of(&reply, "Tick");
    }
    let status = calendar(&instance, &token, "local").await;
    let left_out = status["seriesLeftOut"]
        .as_array()
        .unwrap_or_else(|| panic!("{status}"));
    assert_eq!(left_out.len(), 1, "{status}");
    assert_eq!(left_out[0]["eventId"], "fullnote:events/1990-01-01 Tick.md");

    // Without the runaway, the answer has no warnings and the status clears.
    std::fs::remove_file(&path).unwrap();
    instance.core.calendar.refresh_path(&path);
    let reply = events(&instance, &token, STANDUP_DAY).await;
    assert_eq!(titles(&reply), ["Standup"]);
    assert!(reply.body.get("warnings").is_none(), "{reply:?}");
    let status = calendar(&instance, &token, "local").await;
    assert!(status.get("seriesLeftOut").is_none(), "{status}");
}

const FEED: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:tick@x\r\nDTSTART:19900101T000000Z\r\n\
RRULE:FREQ=SECONDLY;COUNT=1000000000\r\nSUMMARY:Tick\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:lan-party@x\r\nDTSTART:20260105T120000Z\r\nDTEND:20260105T130000Z\r\n\
SUMMARY:LAN party\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runaway_series_in_a_feed_is_left_out_and_named() {
    let instance = RestHarness::start().await;
    let token = instance
        .token(&[Scope::EventsRead, Scope::ProvidersRead])
        .await;
    let server = HttpStub::start(|stream| {
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{FEED}",
            FEED.len()
        );
    });
    let url = format!("http://127.0.0.1:{}/tick.ics", server.addr.port());
    instance
        .settings_as_user(json!({"calendarSources": [
            {"id": "lan", "name": "LAN", "type": "ical", "url": url, "allowPrivateNetwork": true},
        ]}))
        .await
        .unwrap();
    let mut changes = instance.core.calendar.subscribe();
    let fetched = async {
        while calendar(&instance, &token, "lan").await["eventCount"] != 2 {
            changes.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(60), fetched)
        .await
        .expect("the feed was never read");

    let reply = events(&instance, &token, &format!("{STANDUP_DAY}&calendar=lan")).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(titles(&reply), ["LAN party"]);
    assert_warns_of(&reply, "Tick");
    let status = calendar(&instance, &token, "lan").await;
    assert_eq!(status["seriesLeftOut"][0]["title"], "Tick", "{status}");
}
