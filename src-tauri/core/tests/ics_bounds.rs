//! Hostile iCalendar text from a feed and in the on-disk copies (the ICS
//! cache, the CalDAV copy): a bad item is set aside and named in its
//! calendar's status, the rest of the calendar shows, and nothing read at
//! start brings the engine down. Real feeds over HTTP on loopback, real
//! files.

use crate::common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use almanac_core::calendar::sources::caldav::mirror::{Mirror, MirrorStore, Resource};
use almanac_core::calendar::{Calendar, EventQuery};
use almanac_core::settings::KindSettings;
use common::*;

fn event(uid: &str, title: &str, inside: &str) -> String {
    format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTART:20240305T150000Z\r\nDTEND:20240305T160000Z\r\n\
         SUMMARY:{title}\r\n{inside}END:VEVENT\r\n"
    )
}

fn calendar(body: &str) -> String {
    format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{body}END:VCALENDAR\r\n")
}

/// The crash: a calendar that opens 100,000 components.
fn crash_text() -> String {
    format!("BEGIN:VCALENDAR\r\n{}", "BEGIN:X\r\n".repeat(100_000))
}

/// An event with `levels` nested components (far deeper than allowed),
/// balanced: the items after it are items of their own.
fn deep_event(levels: usize) -> String {
    let inside = format!(
        "{}{}",
        "BEGIN:X\r\n".repeat(levels),
        "END:X\r\n".repeat(levels)
    );
    event("deep", "Deep", &inside)
}

/// A `VTIMEZONE` `tzid` with `rules` × `rule`, and an event in it.
fn hostile_zone(tzid: &str, rule: &str, rules: usize) -> String {
    format!(
        "BEGIN:VTIMEZONE\r\nTZID:{tzid}\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\n\
         TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\n{}END:STANDARD\r\nEND:VTIMEZONE\r\n\
         BEGIN:VEVENT\r\nUID:{tzid}\r\nDTSTART;TZID={tzid}:20240305T100000\r\nSUMMARY:{tzid}\r\n\
         END:VEVENT\r\n",
        format!("RRULE:{rule}\r\n").repeat(rules)
    )
}

/// A feed on loopback answering `body` (200), or 304 once `body` is `None`.
struct Feed {
    url: String,
    body: Arc<Mutex<Option<String>>>,
    _stub: almanac_testkit::HttpStub,
}

impl Feed {
    fn start(body: &str) -> Feed {
        let body = Arc::new(Mutex::new(Some(body.to_string())));
        let served = body.clone();
        let stub = almanac_testkit::HttpStub::start(move |stream| {
            let answer = match served.lock().unwrap().as_deref() {
                Some(body) => format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nETag: \"1\"\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                ),
                None => "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n".into(),
            };
            let _ = stream.write_all(answer.as_bytes());
        });
        Feed {
            url: format!("http://{}/feed.ics", stub.addr),
            body,
            _stub: stub,
        }
    }

    fn vault(&self) -> TestVault {
        TestVault::new().with_source(
            "feed",
            KindSettings::Ical {
                url: self.url.clone(),
                allow_private_network: true,
            },
        )
    }
}

fn status(calendar: &Calendar, id: &str) -> String {
    calendar
        .sources()
        .into_iter()
        .find(|s| s.id == id)
        .and_then(|s| s.last_error)
        .unwrap_or_default()
}

fn titles_of(calendar: &Calendar, id: &str) -> Vec<String> {
    let mut titles = titles(&calendar.query(&EventQuery {
        calendars: Some(vec![id.into()]),
        ..range("2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z")
    }));
    titles.sort();
    titles
}

#[test]
fn a_feed_with_hostile_items_shows_the_good_ones_and_names_the_bad() {
    let feed = Feed::start(&calendar(&format!(
        "{}{}BEGIN:VEVENT\r\nUID:torn\r\nEND:VTODO\r\n{}{}{}",
        event("one", "Good one", ""),
        deep_event(50_000),
        event("two", "Good two", ""),
        hostile_zone("Rules", "FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", 101),
        hostile_zone("Seconds", "FREQ=SECONDLY", 1),
    )));
    let vault = feed.vault();
    let cal = vault.open();
    wait_until(&cal, "feed read", |c| !status(c, "feed").is_empty());
    assert_eq!(titles_of(&cal, "feed"), ["Good one", "Good two"]);
    let status = status(&cal, "feed");
    assert!(status.starts_with("2 item(s) of the feed"), "{status}");
    assert!(
        status.contains("VEVENT at line 10: iCalendar nesting deeper than 8 components"),
        "{status}"
    );
    assert!(status.contains("END:VTODO"), "{status}");
    // The hostile zones: refused by name, their events skipped.
    let skips: Vec<String> = cal
        .stats()
        .recent_skips
        .into_iter()
        .map(|s| s.reason)
        .collect();
    for reason in ["more than 100 RRULEs", "is not FREQ=YEARLY"] {
        assert!(skips.iter().any(|s| s.contains(reason)), "{skips:?}");
    }
}

#[test]
fn hostile_copies_on_disk_do_not_crash_the_start() {
    let feed = Feed::start(&calendar(&event("one", "Good one", "")));
    let vault = feed.vault();
    let cal = vault.open();
    wait_until(&cal, "feed read", |c| titles_of(c, "feed").len() == 1);
    drop(cal);
    let copy = std::fs::read_dir(vault.paths().ical_cache_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "ics"))
        .expect("the feed's copy on disk");
    // From now on the feed says "not modified": the copy is what shows.
    *feed.body.lock().unwrap() = None;

    // A hostile item beside a good one: the good one shows.
    let text = calendar(&format!(
        "{}{}",
        event("one", "Good one", ""),
        deep_event(99_000)
    ));
    std::fs::write(&copy, text).unwrap();
    let cal = vault.open();
    wait_until(&cal, "copy read", |c| !status(c, "feed").is_empty());
    assert_eq!(titles_of(&cal, "feed"), ["Good one"]);
    assert!(
        status(&cal, "feed").contains("nesting deeper than 8 components"),
        "{}",
        status(&cal, "feed")
    );
    drop(cal);

    // The text itself: refused whole, by name.
    std::fs::write(&copy, crash_text()).unwrap();
    let cal = vault.open();
    wait_until(&cal, "copy refused", |c| !status(c, "feed").is_empty());
    assert!(
        status(&cal, "feed").contains("more than 100000 components"),
        "{}",
        status(&cal, "feed")
    );
}

#[test]
fn a_hostile_item_in_the_caldav_copy_is_set_aside_at_start() {
    let vault = TestVault::new().with_source(
        "dav",
        KindSettings::Caldav {
            url: "http://127.0.0.1:9/".into(),
            username: "alice".into(),
            calendar_url: "http://127.0.0.1:9/cal/".into(),
        },
    );
    let resource = |ics: String| Resource {
        etag: "\"1\"".into(),
        ics,
    };
    let mirror = Mirror {
        calendar_url: "http://127.0.0.1:9/cal/".into(),
        resources: [
            (
                "http://127.0.0.1:9/cal/good.ics".to_string(),
                resource(calendar(&event("good", "Good", ""))),
            ),
            (
                "http://127.0.0.1:9/cal/hostile.ics".to_string(),
                resource(crash_text()),
            ),
            (
                "http://127.0.0.1:9/cal/deep.ics".to_string(),
                resource(calendar(&format!(
                    "{}{}",
                    event("deep-good", "Beside the deep one", ""),
                    deep_event(1_000)
                ))),
            ),
        ]
        .into(),
        // Just synced: the start shows the copy and asks the server nothing.
        fetched_at_millis: Some(chrono::Utc::now().timestamp_millis()),
        ..Mirror::default()
    };
    MirrorStore::new(&vault.paths().ical_cache_dir())
        .store("dav", &mirror)
        .unwrap();
    let cal = vault.open();
    wait_until(&cal, "copy read", |c| !status(c, "dav").is_empty());
    assert_eq!(titles_of(&cal, "dav"), ["Beside the deep one", "Good"]);
    let status = status(&cal, "dav");
    assert!(
        status.contains("hostile.ics (iCalendar text with more than 5000 components"),
        "{status}"
    );
    assert!(
        status.contains("deep.ics (VEVENT at line 10: iCalendar nesting deeper than 8"),
        "{status}"
    );
}
