//! iCalendar as a subscribed ICS feed is read (`calendar::sources::ical`):
//! `parse` and `override_keys` (which the CalDAV writes use) must never
//! panic or overflow the stack, must agree on whether the text is
//! iCalendar, and every skipped event names its place in the feed.
#![no_main]

mod common;

use almanac_core::calendar::sources::ical::{override_keys, parse};
use almanac_core::calendar::sources::{SourceConfig, SourceType};
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
        kind: SourceType::Ical {
            url: "https://calendar.example/feed.ics".into(),
            allow_private_network: false,
        },
    };
    let tz = chrono_tz::Tz::Europe__Berlin;
    let parsed = parse(&source, text, tz);
    let keys = override_keys(text, tz);
    assert_eq!(parsed.is_ok(), keys.is_ok(), "the two readings agree");
    if let Ok(parsed) = parsed {
        for skipped in &parsed.skipped {
            assert!(skipped.path.starts_with("feed#"), "{}", skipped.path);
            assert!(!skipped.reason.is_empty());
        }
    }
});
