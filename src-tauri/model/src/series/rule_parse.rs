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
pub const MAX_RULE_BYTES: usize = 2048;

/// Parses an `RRULE` value (`FREQ=…;…`), refusing what the crate would
/// choke on. The error says what is wrong, without the crate's wording.
pub fn parse_rrule(text: &str) -> Result<RRule<Unvalidated>, String> {
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
}
