//! Rules for what a client writes through Almanac (REST, CalDAV `PUT`, the
//! window, the in-process API), on top of those every event read must
//! satisfy ([`EventSpec::validate`](crate::spec::EventSpec::validate)). They
//! apply to the fields a write sends, so a note written by hand (which the
//! user may fill with anything) still reads, and editing one field of it
//! does not trip over another.
//!
//! - Control characters: every field that reaches iCalendar refuses RFC
//!   5545's CONTROL (C0 but TAB, and DEL). A line break is allowed only
//!   where the field is multi-line text that the iCalendar writer escapes
//!   (`description`) or Full Calendar's multi-line rule text (`rrule`).
//! - Rules no calendar app writes for people are refused: `SECONDLY` and
//!   `MINUTELY` always, `HOURLY` with a `COUNT` above
//!   [`MAX_HOURLY_COUNT`]. Reading one (a feed, a CalDAV item, a note) still
//!   works, each series bounded by its share of a query's budget.

use crate::error::CalendarError;
use crate::fields::{EventFields, NOTE_TEXT};
use crate::series::rule_text::rule_line;

/// The most occurrences an `HOURLY` rule written through Almanac may have
/// (six weeks, every hour).
pub const MAX_HOURLY_COUNT: u64 = 1000;

/// Checks the fields a client sends, naming the first bad one.
pub fn check_written(fields: &EventFields) -> Result<(), CalendarError> {
    let set = |value: &Option<Option<String>>| value.clone().flatten();
    let single_line = [
        ("title", fields.title.clone()),
        ("url", set(&fields.url)),
        ("location", set(&fields.location)),
        ("category", set(&fields.category)),
        ("uid", set(&fields.uid)),
        ("timezone", set(&fields.timezone)),
        ("class", set(&fields.class)),
    ];
    let note_text = NOTE_TEXT
        .iter()
        .map(|field| (field.wire, set((field.sent)(fields))));
    for (field, value) in single_line.into_iter().chain(note_text) {
        if let Some(value) = value {
            check_controls(field, &value, false)?;
        }
    }
    for relation in fields.related_to.iter().flatten().flatten() {
        check_controls("relatedTo", &relation.uid, false)?;
    }
    if let Some(description) = set(&fields.description) {
        check_controls("description", &description, true)?;
    }
    if let Some(rule) = set(&fields.rrule) {
        check_controls("rrule", &rule, true)?;
        check_frequency(&rule)?;
    }
    Ok(())
}

/// RFC 5545's CONTROL: C0 but TAB, and DEL.
fn is_control(ch: char) -> bool {
    (ch.is_ascii_control() && ch != '\t') || ch == '\u{7f}'
}

fn check_controls(field: &str, value: &str, multi_line: bool) -> Result<(), CalendarError> {
    let allowed = |ch: char| multi_line && (ch == '\n' || ch == '\r');
    match value.chars().find(|&ch| is_control(ch) && !allowed(ch)) {
        None => Ok(()),
        Some(ch) => Err(CalendarError::invalid(
            field,
            format!(
                "contains the control character U+{:04X}{}",
                u32::from(ch),
                if multi_line {
                    ""
                } else {
                    " (line breaks and control characters are not allowed here)"
                }
            ),
        )),
    }
}

/// Refuses a rule that repeats more often than people's events do.
fn check_frequency(text: &str) -> Result<(), CalendarError> {
    let Some(line) = rule_line(text) else {
        // No rule: the ordinary validation names it.
        return Ok(());
    };
    let part = |key: &str| {
        line.split(';').find_map(|part| {
            let (k, v) = part.split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case(key)
                .then(|| v.trim().to_ascii_uppercase())
        })
    };
    let freq = part("FREQ").unwrap_or_default();
    let refused = match freq.as_str() {
        "SECONDLY" | "MINUTELY" => Some(format!(
            "FREQ={freq} is not accepted: events repeat at most hourly"
        )),
        "HOURLY" => part("COUNT")
            .and_then(|count| count.parse::<u64>().ok())
            .filter(|&count| count > MAX_HOURLY_COUNT)
            .map(|count| {
                format!(
                    "FREQ=HOURLY with COUNT={count} is not accepted \
                     (at most COUNT={MAX_HOURLY_COUNT})"
                )
            }),
        _ => None,
    };
    refused.map_or(Ok(()), |reason| {
        Err(CalendarError::invalid("rrule", reason))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(json: serde_json::Value) -> EventFields {
        serde_json::from_value(json).unwrap()
    }

    fn refused_field(json: serde_json::Value) -> Option<String> {
        match check_written(&fields(json)) {
            Err(CalendarError::InvalidInput { field, .. }) => Some(field),
            Err(other) => panic!("{other}"),
            Ok(()) => None,
        }
    }

    #[test]
    fn line_breaks_are_refused_in_single_line_fields() {
        let url = "https://x.example/\r\nATTENDEE;RSVP=TRUE:mailto:victim@example.com\r\nX-INJ:1";
        assert_eq!(
            refused_field(serde_json::json!({"url": url})).as_deref(),
            Some("url")
        );
        for field in ["title", "location", "category", "subCategory", "uid"] {
            let refused = refused_field(serde_json::json!({ field: "a\nb" }));
            assert_eq!(refused.as_deref(), Some(field));
            let refused = refused_field(serde_json::json!({ field: "a\u{1b}b" }));
            assert_eq!(refused.as_deref(), Some(field));
        }
        assert_eq!(refused_field(serde_json::json!({"title": "a\tb"})), None);
    }

    #[test]
    fn a_description_may_have_lines_but_no_other_controls() {
        let ok = serde_json::json!({"description": "one\r\ntwo\n\tthree"});
        assert_eq!(refused_field(ok), None);
        let bad = serde_json::json!({"description": "bell\u{7}"});
        assert_eq!(refused_field(bad).as_deref(), Some("description"));
    }

    #[test]
    fn rules_faster_than_hourly_are_refused() {
        for rule in [
            "FREQ=SECONDLY;COUNT=1000000000",
            "RRULE:freq=minutely",
            "DTSTART:20240101\nRRULE:FREQ=MINUTELY;INTERVAL=30",
            "FREQ=HOURLY;COUNT=1001",
        ] {
            let refused = check_written(&fields(serde_json::json!({ "rrule": rule })));
            let message = refused.expect_err(rule).to_string();
            assert!(message.contains("`rrule`"), "{message}");
        }
        for rule in [
            "FREQ=HOURLY;INTERVAL=2",
            "FREQ=HOURLY;COUNT=24",
            "FREQ=DAILY",
        ] {
            assert_eq!(refused_field(serde_json::json!({ "rrule": rule })), None);
        }
    }
}
