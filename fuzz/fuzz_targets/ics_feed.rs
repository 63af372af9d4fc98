//! iCalendar as a subscribed ICS feed is read (`ical::parse` as
//! `calendar::engine::feeds` calls it, through `almanac_core::fuzzing::read_feed`)
//! and as the CalDAV writes read a resource (`ical::override_keys`): neither
//! may panic or overflow the stack, and every skipped event is named, with
//! a reason.
#![no_main]

mod common;

use almanac_core::calendar::sources::ical::override_keys;
use almanac_core::calendar::sources::{SourceConfig, ResolvedKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = SourceConfig {
        id: "feed".into(),
        name: "Feed".into(),
        color: "#3366ff".into(),
        kind: ResolvedKind::Ical {
            url: "https://calendar.example/feed.ics".into(),
            allow_private_network: false,
        },
        order: None,
        components: None,
    };
    let tz = chrono_tz::Tz::Europe__Berlin;
    if let Ok(skipped) = almanac_core::fuzzing::read_feed(&source, text, tz) {
        for skipped in &skipped {
            assert!(
                !skipped.path.is_empty() && !skipped.reason.is_empty(),
                "{skipped:?}"
            );
        }
    }
    let _ = override_keys(text, tz);
});
