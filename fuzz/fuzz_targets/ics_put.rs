//! iCalendar as the CalDAV server reads a client's `PUT`
//! (`almanac_core::ics::series::read_series`: one event or a series with
//! its modified occurrences): no input may panic or overflow the stack, and
//! what it accepts has a UID and reads stably (comparing it with itself
//! changes nothing).
#![no_main]

mod common;

use almanac_core::calendar::EventFields;
use almanac_core::ics::read::changes;
use almanac_core::ics::series::read_series;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(series) = read_series(text, chrono_tz::Tz::Europe__Berlin) else {
        return;
    };
    let event = series.master;
    assert!(!event.uid.trim().is_empty(), "an accepted event has a UID");
    assert_eq!(
        changes(&event.fields, &event.fields),
        EventFields::default()
    );
});
