//! iCalendar as the copy of a synced CalDAV calendar holds it: a resource
//! of the mirror is read into the cache (`ical::parse`), found by UID
//! (`Mirror::href_of`), and rewritten by Almanac's edits (`splice`: a
//! rewritten master beside the old overrides, one occurrence modified, one
//! removed). None may panic or overflow the stack, and every rewrite has
//! CRLF line ends throughout.
#![no_main]

mod common;

use std::collections::BTreeMap;

use almanac_core::calendar::sources::caldav::mirror::{Mirror, Resource};
use almanac_core::calendar::sources::caldav::splice::{
    Alarms, Occurrence, put_override, remove_occurrence, with_overrides,
};
use almanac_core::calendar::sources::ical::override_keys;
use almanac_core::calendar::sources::{SourceConfig, ResolvedKind};
use chrono::NaiveDate;
use libfuzzer_sys::fuzz_target;

/// An occurrence as Almanac writes it back (one `VEVENT`, no `RECURRENCE-ID`).
const WRITTEN: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n\
END:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\n\
DTSTART;TZID=Europe/Berlin:20260105T100000\r\nDTEND;TZID=Europe/Berlin:20260105T110000\r\n\
SUMMARY:Moved\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

fn crlf_throughout(text: &str) -> bool {
    text.match_indices('\n')
        .all(|(at, _)| at > 0 && text.as_bytes()[at - 1] == b'\r')
}

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Ok(old) = std::str::from_utf8(data) else {
        return;
    };
    let tz = chrono_tz::Tz::Europe__Berlin;
    let source = SourceConfig {
        id: "remote".into(),
        name: "Remote".into(),
        color: "#3366ff".into(),
        kind: ResolvedKind::Caldav {
            server: "https://dav.example/".into(),
            username: "me".into(),
            calendar: "https://dav.example/cal/".into(),
        },
        order: None,
        components: None,
    };
    let _ = almanac_core::fuzzing::read_caldav_item(&source, old, tz);

    let uid = old
        .lines()
        .find_map(|line| line.strip_prefix("UID:"))
        .unwrap_or("fuzz")
        .trim_end_matches('\r');
    let mirror = Mirror {
        resources: BTreeMap::from([(
            "https://dav.example/cal/a.ics".to_string(),
            Resource {
                etag: "\"1\"".into(),
                ics: old.to_string(),
            },
        )]),
        ..Mirror::default()
    };
    let _ = mirror.href_of(uid);

    let Ok(keys) = override_keys(old, tz) else {
        return;
    };
    let written = WRITTEN.replace("{uid}", uid);
    let _ = with_overrides(&written, old, Alarms::Written);
    let _ = with_overrides(&written, old, Alarms::Kept);
    let at = NaiveDate::from_ymd_opt(2026, 1, 5)
        .and_then(|d| d.and_hms_opt(9, 0, 0))
        .expect("a date");
    // The key of an override the text has, else one it lacks.
    let key = keys.iter().flatten().next().cloned();
    let key = key.as_deref().unwrap_or("20260105T090000");
    let occurrence = Occurrence { uid, key, at };
    if let Ok(spliced) = put_override(old, &keys, &occurrence, &written, &["LOCATION"]) {
        assert!(crlf_throughout(&spliced), "{spliced:?}");
    }
    if let Ok(spliced) = remove_occurrence(old, &keys, &occurrence) {
        assert!(crlf_throughout(&spliced), "{spliced:?}");
    }
});
