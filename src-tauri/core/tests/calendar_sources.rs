//! The daily-note and ICS sources, over real files and a real HTTP server on
//! loopback (with the ETag / 304 path), and invalid notes being skipped.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex};

use almanac_core::calendar::{CalendarError, Completion, EventQuery, EventType};
use almanac_core::settings::KindSettings;
use common::*;
use serde_json::json;

fn daily_vault() -> TestVault {
    TestVault::new().with_source(
        "daily",
        KindSettings::DailyNote {
            directory: "journal".into(),
            heading: "Events".into(),
        },
    )
}

const DAY: &str = "# 2024-05-01\nIntro text\n- not an event\n\n## Events\n- [ ] Call Ann [startTime:: 09:00] [endTime:: 09:30] [mood:: ok]\n- [x] Pay rent\n- Dentist [startTime:: 14:00]\n* Lunch [startTime:: 12:00] [endTime:: 13:00]\n\n## Notes\n- not an event either\n";

#[test]
fn daily_note_items_are_events_with_line_numbers() {
    let vault = daily_vault();
    vault.write("journal/2024-05-01.md", DAY);
    vault.write(
        "journal/2024/2024-05-02.md",
        "## Events\n- Nested folder [startTime:: 08:00]\n",
    );
    vault.write("journal/notes.md", "## Events\n- not a daily note\n");
    let cal = vault.open();
    let events = cal.query(&EventQuery {
        calendars: Some(vec!["daily".into()]),
        ..EventQuery::default()
    });
    let mut t = titles(&events);
    t.sort();
    assert_eq!(
        t,
        ["Call Ann", "Dentist", "Lunch", "Nested folder", "Pay rent"]
    );
    let call = events.iter().find(|e| e.title == "Call Ann").unwrap();
    assert_eq!(call.completed, Some(Completion::Open));
    assert_eq!(call.start_millis, Some(ms("2024-05-01T09:00:00Z")));
    assert_eq!(call.end_millis, Some(ms("2024-05-01T09:30:00Z")));
    assert!(call.id.starts_with("dailynote:journal/2024-05-01.md::"));
    let rent = events.iter().find(|e| e.title == "Pay rent").unwrap();
    assert!(rent.is_completed() && rent.all_day);
    let dentist = events.iter().find(|e| e.title == "Dentist").unwrap();
    assert!(!dentist.is_task());
    let details = cal.details(&call.id).unwrap();
    let location = details.location.unwrap();
    assert_eq!(location.file.path, "journal/2024-05-01.md");
    assert_eq!(location.line_number, 5);
    assert_eq!(
        cal.details(&dentist.id)
            .unwrap()
            .location
            .unwrap()
            .line_number,
        7
    );
    assert_eq!(
        cal.query(&EventQuery {
            is_completed: Some(true),
            ..EventQuery::default()
        })
        .len(),
        1
    );
}

#[test]
fn daily_note_writes_touch_only_their_line() {
    let vault = daily_vault();
    vault.write("journal/2024-05-01.md", DAY);
    let cal = vault.open();
    let find = |title: &str| {
        cal.query(&EventQuery::default())
            .into_iter()
            .find(|e| e.title == title)
            .unwrap()
    };
    // Update: one line changes, user fields and the rest of the note stay.
    let call = find("Call Ann");
    let updated = cal
        .update(
            &call.id,
            fields(json!({"startTime": "10:00", "completed": true})),
        )
        .unwrap();
    assert_eq!(updated.id, call.id, "same title: same id");
    assert_eq!(
        vault.read("journal/2024-05-01.md"),
        DAY.replace(
            "- [ ] Call Ann [startTime:: 09:00] [endTime:: 09:30] [mood:: ok]",
            "- [x] Call Ann [startTime:: 10:00] [endTime:: 09:30] [mood:: ok]"
        )
    );
    // Create: appended after the last item of the section.
    let new = cal.create("daily", fields(json!({"title": "Gym", "date": "2024-05-01", "startTime": "18:00", "allDay": false}))).unwrap();
    let text = vault.read("journal/2024-05-01.md");
    assert!(
        text.contains(
            "* Lunch [startTime:: 12:00] [endTime:: 13:00]\n- Gym [startTime:: 18:00]\n\n## Notes"
        ),
        "{text}"
    );
    assert_eq!(
        cal.details(&new.id).unwrap().location.unwrap().line_number,
        9
    );
    // Create on a day without a note: the note is made.
    cal.create(
        "daily",
        fields(
            json!({"title": "Holiday", "date": "2024-05-09", "allDay": true, "completed": false}),
        ),
    )
    .unwrap();
    assert_eq!(
        vault.read("journal/2024-05-09.md"),
        "## Events\n- [ ] Holiday [allDay:: true]\n"
    );
    // Create in a note without the heading: the heading is added.
    vault.write("journal/2024-05-10.md", "just text");
    cal.refresh_path(&vault.vault().join("journal/2024-05-10.md"));
    cal.create(
        "daily",
        fields(json!({"title": "Late", "date": "2024-05-10", "allDay": true})),
    )
    .unwrap();
    assert_eq!(
        vault.read("journal/2024-05-10.md"),
        "just text\n\n## Events\n- Late [allDay:: true]\n"
    );
    // Moving to another day moves the line.
    let gym = cal
        .update(&new.id, fields(json!({"date": "2024-05-09"})))
        .unwrap();
    assert!(gym.id.starts_with("dailynote:journal/2024-05-09.md::"));
    assert!(!vault.read("journal/2024-05-01.md").contains("Gym"));
    assert!(
        vault
            .read("journal/2024-05-09.md")
            .ends_with("- Gym [startTime:: 18:00]\n")
    );
    // Delete removes the line only.
    cal.delete(&find("Dentist").id, None).unwrap();
    let text = vault.read("journal/2024-05-01.md");
    assert!(!text.contains("Dentist") && text.contains("* Lunch"));
    assert!(matches!(
        cal.delete(
            &find("Lunch").id,
            chrono::NaiveDate::from_ymd_opt(2024, 5, 1)
        ),
        Err(CalendarError::InvalidInput { .. })
    ));
    assert!(matches!(
        cal.update(
            &find("Lunch").id,
            fields(json!({"type": "recurring", "daysOfWeek": ["M"]}))
        ),
        Err(CalendarError::InvalidInput { .. })
    ));
}

#[test]
fn invalid_notes_are_skipped_counted_and_harmless() {
    let vault = daily_vault();
    vault.write(
        "events/good.md",
        "---\ntitle: Good\ndate: 2024-05-01\n---\n",
    );
    vault.write("events/nofm.md", "just a note\n");
    vault.write("events/badyaml.md", "---\ntitle: [unclosed\n---\n");
    vault.write(
        "events/baddate.md",
        "---\ntitle: Bad\ndate: 2024-02-30\n---\n",
    );
    vault.write(
        "events/badrule.md",
        "---\ntitle: R\ntype: rrule\nrrule: FREQ=NEVER\nstartDate: 2024-01-01\n---\n",
    );
    vault.write("events/list.md", "---\n- a\n- b\n---\n");
    vault.write("events/binary.md", "\u{0}\u{1}");
    std::fs::write(vault.vault().join("events/latin1.md"), [0xff, 0xfe, 0x00]).unwrap();
    vault.write(
        "journal/2024-05-01.md",
        "## Events\n- Fine\n- Broken [startTime:: 99:00]\n",
    );
    let cal = vault.open();
    let mut t = titles(&all(&cal));
    t.sort();
    assert_eq!(t, ["Fine", "Good"]);
    let stats = cal.stats();
    assert_eq!(stats.skipped, 8, "{stats:?}");
    assert_eq!(stats.notes_indexed, 2);
    assert!(
        stats
            .recent_skips
            .iter()
            .any(|s| s.path == "events/baddate.md" && s.reason.contains("date"))
    );
    assert!(
        stats
            .recent_skips
            .iter()
            .any(|s| s.path == "journal/2024-05-01.md:2")
    );
    assert!(stats.watcher_alive);
}

/// A tiny ICS server: serves `body` with an ETag, answers 304 to a matching
/// If-None-Match, and records each request's conditional header.
struct IcsServer {
    url: String,
    body: Arc<Mutex<String>>,
    seen: Arc<Mutex<Vec<Option<String>>>>,
    hold: Arc<Hold>,
}

/// While closed, a request the server reads is held, unanswered, until the
/// test opens it again: a fetch in flight at a moment the test knows.
#[derive(Default)]
struct Hold {
    /// (closed, requests held so far)
    state: Mutex<(bool, usize)>,
    changed: Condvar,
}

impl Hold {
    fn close(&self) {
        self.state.lock().unwrap().0 = true;
    }

    fn open(&self) {
        self.state.lock().unwrap().0 = false;
        self.changed.notify_all();
    }

    /// Called by the server with a request read: waits while closed.
    fn pass(&self) {
        let mut state = self.state.lock().unwrap();
        if state.0 {
            state.1 += 1;
            self.changed.notify_all();
        }
        let _state = self.changed.wait_while(state, |s| s.0).unwrap();
    }

    fn wait_held(&self) {
        let state = self.state.lock().unwrap();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, almanac_testkit::wait::PATIENCE, |s| s.1 == 0)
            .unwrap();
        assert!(state.1 > 0, "timed out waiting for the feed's fetch");
    }
}

impl IcsServer {
    fn start(body: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "http://{}/private/calendar.ics",
            listener.local_addr().unwrap()
        );
        let body = Arc::new(Mutex::new(body.to_string()));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let hold = Arc::new(Hold::default());
        let (b, s, h) = (body.clone(), seen.clone(), hold.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut if_none_match = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':')
                        && name.eq_ignore_ascii_case("if-none-match")
                    {
                        if_none_match = Some(value.trim().to_string());
                    }
                }
                h.pass();
                let body = b.lock().unwrap().clone();
                let etag = format!("\"{}\"", body.len());
                s.lock().unwrap().push(if_none_match.clone());
                let response = if if_none_match.as_deref() == Some(etag.as_str()) {
                    "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n".to_string()
                } else {
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nETag: {etag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                };
                let _ = stream.write_all(response.as_bytes());
            }
        });
        Self {
            url,
            body,
            seen,
            hold,
        }
    }
}

const ICS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:standup@x\r\nDTSTART;TZID=Europe/Berlin:20240304T093000\r\nDTEND;TZID=Europe/Berlin:20240304T094500\r\n\
RRULE:FREQ=WEEKLY;BYDAY=MO\r\nEXDATE;TZID=Europe/Berlin:20240318T093000\r\nSUMMARY:Standup\r\nDESCRIPTION:Daily sync with the\r\n  whole team\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:standup@x\r\nRECURRENCE-ID;TZID=Europe/Berlin:20240311T093000\r\nDTSTART;TZID=Europe/Berlin:20240311T110000\r\nDTEND;TZID=Europe/Berlin:20240311T111500\r\nSUMMARY:Standup (moved)\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:holiday@x\r\nDTSTART;VALUE=DATE:20240329\r\nDTEND;VALUE=DATE:20240402\r\nSUMMARY:Easter break\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:call@x\r\nDTSTART:20240305T150000Z\r\nDURATION:PT30M\r\nSUMMARY:Call\r\nLOCATION:Room 4\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:gone@x\r\nDTSTART:20240305T150000Z\r\nSTATUS:CANCELLED\r\nSUMMARY:Cancelled\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nSUMMARY:No uid\r\nDTSTART:20240305T150000Z\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

/// A vault whose calendar `team` is `server`'s feed, opened and loaded.
fn open_team_feed(server: &IcsServer) -> (TestVault, almanac_core::calendar::Calendar) {
    let vault = TestVault::new().with_source(
        "team",
        KindSettings::Ical {
            url: server.url.clone(),
            // The test server is on loopback.
            allow_private_network: true,
        },
    );
    let cal = vault.open();
    wait_until(&cal, "feed loaded", |c| c.stats().events >= 4);
    (vault, cal)
}

/// Renames the calendar `team` in the settings `cal` follows.
fn rename_team(vault: &TestVault, cal: &almanac_core::calendar::Calendar, name: &str) {
    let mut settings = vault.settings.clone();
    let team = settings
        .calendar_sources
        .iter_mut()
        .find(|s| s.id == "team")
        .unwrap();
    team.name = name.into();
    cal.apply_settings(&settings);
}

#[test]
fn ics_feeds_are_fetched_cached_and_revalidated_conditionally() {
    let server = IcsServer::start(ICS);
    let (vault, cal) = open_team_feed(&server);
    let march = cal.query(&EventQuery {
        calendars: Some(vec!["team".into()]),
        ..range("2024-03-01T00:00:00Z", "2024-04-01T23:59:59Z")
    });
    let standups: Vec<_> = march.iter().filter(|e| e.title == "Standup").collect();
    // Mondays Mar 4, (11 moved), (18 excluded), 25, Apr 1 — after the EU
    // DST change of Mar 31, 09:30 Berlin is an hour earlier in UTC.
    assert_eq!(
        standups.iter().map(|e| e.date.as_str()).collect::<Vec<_>>(),
        ["2024-03-04", "2024-03-25", "2024-04-01"]
    );
    assert_eq!(standups[0].start_millis, Some(ms("2024-03-04T08:30:00Z")));
    assert_eq!(standups[1].start_millis, Some(ms("2024-03-25T08:30:00Z")));
    assert_eq!(standups[2].start_millis, Some(ms("2024-04-01T07:30:00Z")));
    assert_eq!(standups[0].id, "ical:team::standup@x");
    assert_eq!(standups[0].kind, EventType::Rrule);
    assert_eq!(standups[0].timezone.as_deref(), Some("Europe/Berlin"));
    let moved = march.iter().find(|e| e.title == "Standup (moved)").unwrap();
    assert_eq!(moved.start_millis, Some(ms("2024-03-11T10:00:00Z")));
    assert_eq!(moved.id, "ical:team::standup@x::20240311T093000");
    let easter = march.iter().find(|e| e.title == "Easter break").unwrap();
    assert!(easter.all_day);
    assert_eq!(
        easter.end_date.as_deref(),
        Some("2024-04-01"),
        "DTEND is exclusive"
    );
    let call = march.iter().find(|e| e.title == "Call").unwrap();
    assert_eq!(call.end_millis, Some(ms("2024-03-05T15:30:00Z")));
    assert!(march.iter().all(|e| e.title != "Cancelled"));
    // Text search reaches folded descriptions and locations.
    let q = |text: &str| {
        cal.query(&EventQuery {
            text: Some(text.into()),
            ..EventQuery::default()
        })
        .len()
    };
    assert!(q("whole team") > 0 && q("room 4") == 1);
    // Details: no note location; writes refused.
    let details = cal.details("ical:team::call@x").unwrap();
    assert_eq!(details.calendar_id, "team");
    assert!(details.location.is_none());
    assert!(matches!(
        cal.update("ical:team::call@x", fields(json!({"title": "x"}))),
        Err(CalendarError::ReadOnly(_))
    ));
    assert!(matches!(
        cal.delete("ical:team::call@x", None),
        Err(CalendarError::ReadOnly(_))
    ));
    assert!(matches!(
        cal.create("team", fields(json!({"title": "x", "date": "2024-05-01"}))),
        Err(CalendarError::ReadOnly(_))
    ));
    let info = cal.sources().into_iter().find(|s| s.id == "team").unwrap();
    assert!(!info.editable && info.last_error.is_none() && info.last_fetched.is_some());
    assert_eq!(info.kind, "ical");
    // A VEVENT without UID (RFC 5545 wants one; samples go without) is
    // kept, under an id derived from its content.
    let no_uid = march.iter().find(|e| e.title == "No uid").unwrap();
    assert!(no_uid.id.starts_with("ical:team::no-uid-"), "{}", no_uid.id);
    assert_eq!(no_uid.start_millis, Some(ms("2024-03-05T15:00:00Z")));

    // Revalidation without force inside the minimum interval: no request.
    let requests = server.seen.lock().unwrap().len();
    cal.revalidate(false);
    // Forced: a conditional request that the server answers with 304.
    let fetched = info.last_fetched.clone();
    cal.revalidate(true);
    wait_until(&cal, "conditional refetch", |_| {
        server.seen.lock().unwrap().len() > requests
    });
    assert_eq!(
        server.seen.lock().unwrap().len(),
        requests + 1,
        "the unforced call fetched nothing"
    );
    let etag = format!("\"{}\"", ICS.len());
    assert_eq!(
        server.seen.lock().unwrap().last().unwrap().as_deref(),
        Some(etag.as_str())
    );
    wait_until(&cal, "304 recorded", |c| {
        c.sources()
            .iter()
            .any(|s| s.id == "team" && s.last_fetched != fetched)
    });
    assert_eq!(
        cal.query(&EventQuery {
            calendars: Some(vec!["team".into()]),
            ..range("2024-03-01T00:00:00Z", "2024-04-01T23:59:59Z")
        })
        .len(),
        march.len()
    );

    // The feed changes: a forced refetch brings the new body.
    *server.body.lock().unwrap() = ICS.replace("SUMMARY:Call", "SUMMARY:Call renamed");
    cal.revalidate(true);
    wait_until(&cal, "changed feed", |c| {
        c.query(&EventQuery {
            text: Some("call renamed".into()),
            ..EventQuery::default()
        })
        .len()
            == 1
    });
    drop(cal);

    // Restart with the server gone: the disk copy serves the calendar.
    let mut settings = vault.settings.clone();
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://{}/gone.ics", dead.local_addr().unwrap());
    drop(dead);
    settings.calendar_sources[1] = common::source(
        "team",
        KindSettings::Ical {
            url: dead_url,
            allow_private_network: true,
        },
    );
    let cal = almanac_core::calendar::Calendar::open(&settings, &vault.paths());
    assert!(
        cal.query(&EventQuery {
            text: Some("call renamed".into()),
            ..EventQuery::default()
        })
        .is_empty(),
        "the copy belongs to the old URL"
    );
    let cal = almanac_core::calendar::Calendar::open(&vault.settings, &vault.paths());
    assert!(
        cal.query(&EventQuery {
            text: Some("call renamed".into()),
            ..EventQuery::default()
        })
        .len()
            == 1
    );
}

/// Answers are written from JSON kept with each cached event; a feed
/// calendar renamed keeps its events (same URL) but never the old name.
#[test]
fn a_renamed_feed_calendar_is_named_anew_in_answers_written_from_kept_json() {
    let server = IcsServer::start(ICS);
    let (vault, cal) = open_team_feed(&server);
    let march = EventQuery {
        calendars: Some(vec!["team".into()]),
        ..range("2024-03-01T00:00:00Z", "2024-04-01T23:59:59Z")
    };
    let names = |cal: &almanac_core::calendar::Calendar| -> Vec<String> {
        let answer = cal.query_json(&march).unwrap();
        let events: Vec<serde_json::Value> = serde_json::from_slice(&answer.events).unwrap();
        assert_eq!(events.len(), answer.count);
        assert_eq!(
            serde_json::to_string(&cal.query(&march)).unwrap(),
            String::from_utf8_lossy(&answer.events),
            "the written answer is what serializing the events writes"
        );
        events
            .iter()
            .map(|e| e["calendarName"].as_str().unwrap().to_string())
            .collect()
    };
    let before = names(&cal);
    assert!(before.len() >= 4 && before.iter().all(|n| n == "team calendar"));
    let fetches = server.seen.lock().unwrap().len();

    rename_team(&vault, &cal, "Team (renamed)");
    let after = names(&cal);
    assert_eq!(after.len(), before.len(), "the feed's events were kept");
    assert!(after.iter().all(|n| n == "Team (renamed)"), "{after:?}");
    assert_eq!(
        server.seen.lock().unwrap().len(),
        fetches,
        "kept, not fetched again"
    );
}

/// A fetch that answers after the calendar's settings changed (here: a
/// rename, which keeps the feed) must still reach the cache: the copy on
/// disk, which the next conditional fetch is asked against, and the cache
/// move together or not at all. Were the copy moved on alone, the server's
/// next answer would be "not modified" and the change would never show.
#[test]
fn a_feed_answer_arriving_after_a_rename_still_shows() {
    let server = IcsServer::start(ICS);
    let (vault, cal) = open_team_feed(&server);
    let march = EventQuery {
        calendars: Some(vec!["team".into()]),
        ..range("2024-03-01T00:00:00Z", "2024-04-01T23:59:59Z")
    };
    let titles = |cal: &almanac_core::calendar::Calendar| -> Vec<(String, String)> {
        cal.query(&march)
            .into_iter()
            .map(|e| (e.title, e.calendar_name))
            .collect()
    };

    server.hold.close();
    *server.body.lock().unwrap() = ICS.replace("SUMMARY:Call", "SUMMARY:Call moved to Room 5");
    cal.revalidate(true);
    server.hold.wait_held();
    rename_team(&vault, &cal, "Team (renamed)");
    server.hold.open();

    wait_until(&cal, "the held answer shown under the new name", |c| {
        titles(c).contains(&("Call moved to Room 5".into(), "Team (renamed)".into()))
    });
    assert!(
        titles(&cal)
            .iter()
            .all(|(_, name)| name == "Team (renamed)"),
        "{:?}",
        titles(&cal)
    );
}

#[test]
fn broken_feeds_report_errors_and_keep_nothing_stale() {
    let server = almanac_testkit::HttpStub::start(|stream| {
        let _ = stream
            .write_all(b"HTTP/1.1 500 Oops\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
    let url = format!("http://{}/x.ics", server.addr);
    let vault = TestVault::new().with_source(
        "bad",
        KindSettings::Ical {
            url: url.clone(),
            allow_private_network: true,
        },
    );
    let cal = vault.open();
    wait_until(&cal, "error recorded", |c| {
        c.sources().iter().any(|s| s.last_error.is_some())
    });
    let error = cal
        .sources()
        .into_iter()
        .find(|s| s.id == "bad")
        .unwrap()
        .last_error
        .unwrap();
    assert!(error.contains("500"), "{error}");
    assert!(!error.contains(&url), "the feed URL may be secret: {error}");
}

const PARTS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VTIMEZONE\r\nTZID:Nowhere Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n\
TZOFFSETFROM:+0517\r\nTZOFFSETTO:+0517\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n\
BEGIN:VEVENT\r\nUID:lesson@x\r\nDTSTART;TZID=Europe/Berlin:20240304T100000\r\nDTEND;TZID=Europe/Berlin:20240304T110000\r\n\
RRULE:FREQ=WEEKLY\r\nRRULE:FREQ=WEEKLY;BYDAY=TH\r\nSUMMARY:Lesson\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:lesson@x\r\nRECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20240318T100000\r\n\
DTSTART;TZID=Europe/Berlin:20240318T120000\r\nDTEND;TZID=Europe/Berlin:20240318T123000\r\nSUMMARY:Short lesson\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:elsewhere@x\r\nDTSTART;TZID=Nowhere Standard Time:20240305T100000\r\nSUMMARY:Elsewhere\r\nEND:VEVENT\r\n\
BEGIN:VTIMEZONE\r\nTZID:Shifting Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n\
TZOFFSETFROM:+0517\r\nTZOFFSETTO:+0517\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:20200301T020000\r\n\
TZOFFSETFROM:+0517\r\nTZOFFSETTO:+0617\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n\
BEGIN:VEVENT\r\nUID:drifting@x\r\nDTSTART;TZID=Shifting Time:20240306T100000\r\nSUMMARY:Drifting\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

#[test]
fn ics_series_split_by_thisandfuture_have_their_own_ids_and_unmatched_zones_are_applied_or_reported()
 {
    let server = IcsServer::start(PARTS);
    let vault = TestVault::new().with_source(
        "lessons",
        KindSettings::Ical {
            url: server.url.clone(),
            allow_private_network: true,
        },
    );
    let cal = vault.open();
    wait_until(&cal, "feed loaded", |c| c.stats().events >= 3);
    let march = cal.query(&EventQuery {
        calendars: Some(vec!["lessons".into()]),
        ..range("2024-03-11T00:00:00Z", "2024-03-24T23:59:59Z")
    });
    let listed: Vec<(&str, &str, &str)> = march
        .iter()
        .map(|e| (e.date.as_str(), e.title.as_str(), e.id.as_str()))
        .collect();
    // Both rules count; from the 18th on the series is the override's.
    assert_eq!(
        listed,
        [
            ("2024-03-11", "Lesson", "ical:lessons::lesson@x"),
            ("2024-03-14", "Lesson", "ical:lessons::lesson@x"),
            (
                "2024-03-18",
                "Short lesson",
                "ical:lessons::lesson@x::20240318T100000"
            ),
            (
                "2024-03-21",
                "Short lesson",
                "ical:lessons::lesson@x::20240318T100000::thisandfuture"
            ),
        ]
    );
    let moved = &march[3];
    assert_eq!(moved.start_time.as_deref(), Some("12:00"));
    assert_eq!(moved.end_millis, Some(ms("2024-03-21T11:30:00Z")));
    let part = cal
        .details("ical:lessons::lesson@x::20240318T100000::thisandfuture")
        .unwrap();
    assert_eq!(part.calendar_id, "lessons");
    // A zone no IANA zone follows, at one offset for all time (+05:17):
    // applied by that offset.
    let elsewhere = cal.query(&EventQuery {
        calendars: Some(vec!["lessons".into()]),
        ..range("2024-03-05T00:00:00Z", "2024-03-05T23:59:59Z")
    });
    let elsewhere: Vec<_> = elsewhere
        .iter()
        .filter(|e| e.title == "Elsewhere")
        .collect();
    assert_eq!(elsewhere.len(), 1, "{elsewhere:?}");
    assert_eq!(elsewhere[0].start_millis, Some(ms("2024-03-05T04:43:00Z")));
    // One with transitions of its own is reported, not guessed.
    let recent = cal.stats();
    assert_eq!(recent.skipped, 1, "{recent:?}");
    assert!(
        recent
            .recent_skips
            .iter()
            .any(|s| s.reason.contains("Shifting Time") && s.reason.contains("changes its offset")),
        "{recent:?}"
    );
}

/// ical.js's `timezone_from_file.ics`, as published: an event in
/// `Nowhere/Middle`, a zone at UTC−07:41 that no IANA zone has. Python's
/// `icalendar` (the oracle) applies the definition's offset; so does
/// Almanac: 13:42 there is 21:23 UTC.
#[test]
fn a_vtimezone_of_its_own_offset_places_its_event_as_the_oracle_does() {
    const SAMPLE: &str = "BEGIN:VCALENDAR\nPRODID:-//Google Inc//Google Calendar 70.9054//EN\n\
VERSION:2.0\nBEGIN:VTIMEZONE\nTZID:Nowhere/Middle\nBEGIN:STANDARD\nDTSTART:16010101T000000\n\
TZOFFSETFROM:-0741\nTZOFFSETTO:-0741\nEND:STANDARD\nEND:VTIMEZONE\nBEGIN:VEVENT\n\
DTSTAMP:20230306T080000Z\nDTSTART;TZID=Nowhere/Middle:20230306T134200\n\
DTEND;TZID=Nowhere/Middle:20230306T144200\nSUMMARY:A test event\nEND:VEVENT\nEND:VCALENDAR\n";
    let server = IcsServer::start(SAMPLE);
    let vault = TestVault::new().with_source(
        "sample",
        KindSettings::Ical {
            url: server.url.clone(),
            allow_private_network: true,
        },
    );
    let cal = vault.open();
    wait_until(&cal, "feed loaded", |c| c.stats().events >= 1);
    let day = cal.query(&EventQuery {
        calendars: Some(vec!["sample".into()]),
        ..range("2023-03-06T00:00:00Z", "2023-03-07T23:59:59Z")
    });
    assert_eq!(day.len(), 1, "{day:?}");
    assert_eq!(day[0].title, "A test event");
    assert_eq!(day[0].start_millis, Some(ms("2023-03-06T21:23:00Z")));
    assert_eq!(day[0].end_millis, Some(ms("2023-03-06T22:23:00Z")));
    assert_eq!(cal.stats().skipped, 0, "{:?}", cal.stats());
}
