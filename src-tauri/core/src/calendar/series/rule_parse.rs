//! The one door to the `rrule` crate: every rule text from outside (a note's
//! `rrule`, a REST body, a feed's or CalDAV item's `RRULE`, a `VTIMEZONE`
//! observance) is checked here before the crate sees it. The crate (0.14.0,
//! the newest release) slices its input by byte offsets and panics when one
//! falls inside a character (`BYDAY=ζU`), so anything but printable ASCII —
//! all an RFC 5545 rule is made of — is refused first.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rrule::{RRule, Unvalidated};

/// Longer than any real rule (a yearly rule naming every day of the year
/// by number is under 1.5 KB).
pub(crate) const MAX_RULE_BYTES: usize = 2048;

/// Parses an `RRULE` value (`FREQ=…;…`), refusing what the crate would
/// choke on. The error says what is wrong, without the crate's wording.
pub(crate) fn parse_rrule(text: &str) -> Result<RRule<Unvalidated>, String> {
    let text = text.trim();
    if text.len() > MAX_RULE_BYTES {
        return Err(format!("the rule is longer than {MAX_RULE_BYTES} bytes"));
    }
    if let Some(bad) = text.chars().find(|c| !(c.is_ascii_graphic() || *c == ' ')) {
        return Err(format!(
            "the rule holds {bad:?}: only printable ASCII belongs in a rule"
        ));
    }
    // The last line: a panic the checks above did not foresee is a refused
    // rule, not a dead worker. (A fuzz build aborts on any panic, so the
    // fuzzers still find such inputs.)
    catch_unwind(AssertUnwindSafe(|| text.parse::<RRule<Unvalidated>>()))
        .map_err(|_| "the rule cannot be read".to_string())?
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_and_overlong_rules_never_reach_the_crate() {
        assert!(parse_rrule("FREQ=WEEKLY;BYDAY=MO,FR").is_ok());
        // The fuzzers' input: the crate itself panics on it.
        let refused = parse_rrule("FREQ=WEEKLY;BYDAY=ζU").unwrap_err();
        assert!(refused.contains("'ζ'"), "{refused}");
        assert!(parse_rrule("FREQ=DAILY;\u{0}").is_err());
        let long = format!("FREQ=YEARLY;BYYEARDAY={}", "1,".repeat(MAX_RULE_BYTES));
        assert!(parse_rrule(&long).unwrap_err().contains("longer than"));
        assert!(parse_rrule("FREQ=NEVER").is_err());
    }

    /// The fuzzers' feeds (`fuzz/crashes/ics_feed/`): the rule in an event
    /// or in a `VTIMEZONE` observance is refused, the event skipped and
    /// named; reading the feed no longer panics.
    #[test]
    fn the_fuzzers_feeds_are_read_with_the_bad_event_named() {
        use crate::calendar::sources::{SourceConfig, SourceType};
        let source = SourceConfig {
            id: "feed".into(),
            name: "Feed".into(),
            color: "#3366ff".into(),
            kind: SourceType::Ical {
                url: "https://calendar.example/feed.ics".into(),
                allow_private_network: false,
            },
            order: None,
            components: None,
        };
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/crashes/ics_feed");
        let mut read = 0;
        for file in std::fs::read_dir(folder).unwrap() {
            let path = file.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let tz = chrono_tz::Europe::Berlin;
            let skipped = crate::fuzzing::read_feed(&source, &text, tz)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(skipped.len(), 1, "{}: {skipped:?}", path.display());
            read += 1;
        }
        assert!(read >= 2);
    }
}
