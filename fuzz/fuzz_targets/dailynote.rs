//! Fuzzes daily-note parsing: list-item lines and whole notes must never
//! panic, and an item rendered from a valid event must parse back to it.
#![no_main]

use almanac_core::calendar::sources::dailynote::{self, Style};
use almanac_core::calendar::sources::dateformat::DateFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = dailynote::parse(
        "Events",
        &DateFormat::default(),
        "journal/2024-03-31.md",
        text,
        chrono_tz::Tz::Europe__Berlin,
    );
    let date = chrono::NaiveDate::from_ymd_opt(2024, 3, 31).unwrap();
    for (number, line) in text.lines().enumerate() {
        let Some(item) = dailynote::parse_line(line, number) else {
            continue;
        };
        let Ok(spec) = dailynote::item_spec(&item, date) else {
            continue;
        };
        let extra = dailynote::extra_fields(&item);
        let Ok(rendered) = dailynote::render_checked(&spec, Style::of(&item), &extra, date) else {
            continue;
        };
        let again =
            dailynote::parse_line(&rendered, number).expect("a rendered item is a list item");
        assert_eq!(
            dailynote::item_spec(&again, date).ok(),
            Some(spec),
            "{rendered:?}"
        );
        assert_eq!(dailynote::extra_fields(&again), extra, "{rendered:?}");
    }
});
