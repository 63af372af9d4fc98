//! Fuzzes the Full Note reader and writer: frontmatter split / YAML parse /
//! event validation / recurrence compilation must never panic, and a
//! rewrite must keep the body byte-for-byte and read back as what was
//! written.
#![no_main]

use almanac_core::calendar::EventFields;
use almanac_core::calendar::frontmatter;
use almanac_core::calendar::sources::fullnote;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = fullnote::parse(
        "events/2024-01-01 Fuzz.md",
        text,
        chrono_tz::Tz::Europe__Berlin,
    );

    let Some(split) = frontmatter::split(text) else {
        return;
    };
    assert_eq!(
        format!("{}{}{}{}", split.head, split.yaml, split.close, split.body),
        text
    );
    let Ok(old) = fullnote::spec_of("events/n.md", text) else {
        return;
    };
    let change = EventFields {
        title: Some("Renamed: \"quoted\" # not a comment".into()),
        category: Some(Some("x: y".into())),
        ..EventFields::default()
    };
    let Ok(new) = old.patched(&change) else {
        return;
    };
    let Ok(rewritten) = fullnote::render_update("events/n.md", text, &old, &new) else {
        return;
    };
    let again = frontmatter::split(&rewritten).expect("a rewrite keeps the frontmatter");
    assert_eq!(again.body, split.body, "the body is kept byte-for-byte");
    let read_back = fullnote::spec_of("events/n.md", &rewritten).expect("a rewrite reads back");
    assert_eq!(read_back, new);
});
