//! The ICS differential test: every feed of `tests/ics_corpus` (written the
//! way Google Calendar, Outlook / Exchange, Apple iCloud, Nextcloud,
//! Thunderbird and Fastmail export them) is served over loopback HTTP to a
//! real engine as an ICS source, and the occurrences it answers for a few
//! ranges (title, start, end) must equal those of an independent oracle:
//! Python's `icalendar` + `recurring-ical-events` (`ics_corpus/oracle.py`).
//!
//! The oracle (`common::ics_oracle`) runs in a virtual environment cached
//! under `~/.cache/almanac` (or `$XDG_CACHE_HOME`), made once with the
//! pinned `ics_corpus/requirements.txt` by scripts/ics-oracle-venv.sh (the
//! same locked maker as every test venv). When it cannot be made
//! (no `python3-venv`: run `scripts/setup.sh`; PyPI unreachable), the test
//! fails, never skips.

use crate::common;

use std::path::Path;

use almanac_core::calendar::{CalendarError, Event, EventQuery};
use almanac_core::settings::KindSettings;
use common::*;
use serde_json::{Value, json};

/// The display zone of the test vault: floating times and all-day events
/// are in it, and it is not UTC, so a zone mix-up shows.
const DISPLAY_TZ: &str = "America/New_York";

/// Each feed and the ranges compared (RFC 3339, both ends inclusive).
const CORPUS: &[(&str, &[(&str, &str)])] = &[
    (
        "google_calendar.ics",
        &[
            ("2024-03-01T00:00:00Z", "2024-04-30T23:59:59Z"),
            ("2024-10-20T00:00:00Z", "2024-11-10T00:00:00Z"),
            ("2024-01-01T00:00:00Z", "2025-01-31T23:59:59Z"),
        ],
    ),
    (
        "outlook_exchange.ics",
        &[
            ("2024-03-01T00:00:00Z", "2024-04-15T00:00:00Z"),
            ("2024-10-01T00:00:00Z", "2024-11-30T23:59:59Z"),
            ("2024-01-01T00:00:00Z", "2025-01-31T23:59:59Z"),
        ],
    ),
    (
        "apple_icloud.ics",
        &[
            ("2024-03-01T00:00:00Z", "2024-04-30T23:59:59Z"),
            ("2024-08-20T00:00:00Z", "2024-11-10T00:00:00Z"),
            ("2024-01-01T00:00:00Z", "2024-12-31T23:59:59Z"),
        ],
    ),
    (
        "nextcloud.ics",
        &[
            ("2024-02-01T00:00:00Z", "2024-03-31T23:59:59Z"),
            ("2024-05-01T00:00:00Z", "2024-08-31T23:59:59Z"),
            ("2024-01-01T00:00:00Z", "2025-12-31T23:59:59Z"),
        ],
    ),
    (
        "thunderbird.ics",
        &[
            ("2024-03-01T00:00:00Z", "2024-03-31T23:59:59Z"),
            ("2024-10-25T00:00:00Z", "2024-11-10T00:00:00Z"),
            ("2024-01-01T00:00:00Z", "2024-12-31T23:59:59Z"),
        ],
    ),
    (
        "long_series.ics",
        &[
            // A month near the end of 30-year daily series: never cut.
            ("2029-03-01T00:00:00Z", "2029-03-31T23:59:59Z"),
            ("2030-12-20T00:00:00Z", "2031-01-10T00:00:00Z"),
            ("2000-01-01T00:00:00Z", "2000-01-31T23:59:59Z"),
        ],
    ),
    (
        // ical.js's `timezone_from_file.ics` sample: a `VTIMEZONE`
        // (`Nowhere/Middle`, UTC−07:41) that no IANA zone matches.
        "zone_of_its_own_offset.ics",
        &[("2023-03-01T00:00:00Z", "2023-03-31T23:59:59Z")],
    ),
];

/// An answered event as the oracle writes occurrences: all-day ones as
/// dates (end exclusive), timed ones as UTC instants.
fn record(event: &Event) -> Value {
    if event.all_day {
        let first = chrono::NaiveDate::parse_from_str(&event.date, "%Y-%m-%d").unwrap();
        let last = event
            .end_date
            .as_deref()
            .map(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap())
            .unwrap_or(first);
        json!({
            "title": event.title,
            "start": first.to_string(),
            "end": (last + chrono::Duration::days(1)).to_string(),
        })
    } else {
        let iso = |millis: i64| {
            chrono::DateTime::from_timestamp_millis(millis)
                .unwrap()
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        };
        let start = event.start_millis.expect("a timed event has startMillis");
        json!({
            "title": event.title,
            "start": iso(start),
            "end": iso(event.end_millis.unwrap_or(start)),
        })
    }
}

fn sorted(mut records: Vec<Value>) -> Vec<Value> {
    let key = |r: &Value| {
        (
            r["start"].as_str().unwrap_or("").to_string(),
            r["end"].as_str().unwrap_or("").to_string(),
            r["title"].as_str().unwrap_or("").to_string(),
        )
    };
    records.sort_by_key(key);
    records
}

/// Serves `body` on loopback for as long as the test runs.
fn serve(body: Vec<u8>) -> String {
    use std::io::Write;
    let server = almanac_testkit::HttpStub::start(move |stream| {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/calendar; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&body);
    });
    format!("http://{}/calendar.ics", server.addr)
}

/// A vault whose one ICS source `feed` serves `file` over loopback HTTP,
/// loaded.
fn engine_with_feed(file: &Path) -> (TestVault, almanac_core::calendar::Calendar) {
    let url = serve(std::fs::read(file).unwrap());
    let vault = TestVault::new().with_timezone(DISPLAY_TZ).with_source(
        "feed",
        KindSettings::Ical {
            url,
            // The server is on loopback.
            allow_private_network: true,
        },
    );
    let cal = vault.open();
    wait_until(&cal, "the feed is fetched", |c| {
        c.sources()
            .iter()
            .any(|s| s.id == "feed" && (s.last_fetched.is_some() || s.last_error.is_some()))
    });
    let info = cal.sources().into_iter().find(|s| s.id == "feed").unwrap();
    assert_eq!(info.last_error, None, "{}", file.display());
    (vault, cal)
}

#[test]
fn every_corpus_feed_agrees_with_the_oracle() {
    let python = ics_oracle_python();
    let mut report = Vec::new();
    for (file, ranges) in CORPUS {
        let path = ics_corpus_dir().join(file);
        let ranges: Vec<(i64, i64)> = ranges.iter().map(|(s, e)| (ms(s), ms(e))).collect();
        let expected = ics_oracle(&python, &path, DISPLAY_TZ, &ranges);
        let (_vault, cal) = engine_with_feed(&path);
        let skipped = cal.stats().skipped;
        let mut feed_ok = skipped == 0;
        let mut compared = 0;
        if skipped > 0 {
            report.push(format!("{file}: {skipped} VEVENT(s) skipped"));
        }
        for ((start, end), expected) in ranges.iter().zip(expected) {
            assert!(!expected.is_empty(), "{file}: the oracle found nothing");
            let answer = cal
                .query_checked(&EventQuery {
                    calendars: Some(vec!["feed".into()]),
                    ..range_ms(*start, *end)
                })
                .unwrap_or_else(|e| panic!("{file}: the query was refused: {e}"));
            let got = sorted(answer.iter().map(record).collect());
            let expected = sorted(expected);
            compared += expected.len();
            if got != expected {
                feed_ok = false;
                let missing: Vec<&Value> = expected.iter().filter(|r| !got.contains(r)).collect();
                let extra: Vec<&Value> = got.iter().filter(|r| !expected.contains(r)).collect();
                report.push(format!(
                    "{file} [{start}, {end}]: {} from Almanac, {} from the oracle\n  \
                     missing: {missing:?}\n  extra: {extra:?}",
                    got.len(),
                    expected.len()
                ));
            }
        }
        eprintln!(
            "{file}: {} ({compared} occurrences over {} ranges)",
            if feed_ok { "agrees" } else { "DISAGREES" },
            ranges.len()
        );
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn a_query_past_the_ceiling_is_refused_naming_the_limit() {
    let (_vault, cal) = engine_with_feed(&ics_corpus_dir().join("long_series.ics"));
    // Thirty years of two daily series: more events than one answer holds.
    let err = cal
        .query_checked(&range("2000-01-01T00:00:00Z", "2030-12-31T23:59:59Z"))
        .unwrap_err();
    assert!(
        matches!(&err, CalendarError::QueryTooLarge(m) if m.contains("10000")),
        "{err}"
    );
}
