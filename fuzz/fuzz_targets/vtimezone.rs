//! `VTIMEZONE` definitions as feeds and CalDAV copies send them: the input
//! is a definition's body (`TZID`, `STANDARD` / `DAYLIGHT` observances,
//! `RRULE`s, `RDATE`s), wrapped into a calendar whose events use it, and
//! read by the feed reader (which matches it to an IANA zone) and by the
//! CalDAV server's reader. Neither may panic, overflow the stack or run
//! away in the rule expansion.
#![no_main]

mod common;

use almanac_core::calendar::sources::{SourceConfig, ResolvedKind};
use almanac_core::ics::series::read_series;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Ok(definition) = std::str::from_utf8(data) else {
        return;
    };
    // The events name the TZID the definition gives, if it has one.
    let tzid = definition
        .lines()
        .find_map(|line| line.strip_prefix("TZID:"))
        .map(|id| id.trim_end_matches('\r'))
        .unwrap_or("Fuzz Standard Time");
    let text = format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fuzz//EN\r\nBEGIN:VTIMEZONE\r\n{definition}\r\n\
         END:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:z1\r\nDTSTAMP:20260101T000000Z\r\n\
         DTSTART;TZID={tzid}:20260329T013000\r\nDTEND;TZID={tzid}:20260329T033000\r\n\
         RRULE:FREQ=WEEKLY;COUNT=30\r\nSUMMARY:Zoned\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    );
    let source = SourceConfig {
        id: "zones".into(),
        name: "Zones".into(),
        color: "#3366ff".into(),
        kind: ResolvedKind::Ical {
            url: "https://calendar.example/zones.ics".into(),
            allow_private_network: false,
        },
        order: None,
        components: None,
    };
    let _ = almanac_core::fuzzing::read_feed(&source, &text, chrono_tz::Tz::Europe__Berlin);
    let _ = read_series(&text, chrono_tz::Tz::Europe__Berlin);
});
