//! What one expansion may still produce and spend (see the cost ceiling in
//! [`crate::query`]). Each series expanded into an index page has an
//! [`Allowance`] of its own, taken from the page's pool; a checked query
//! spends one occurrence of its answer per event it returns.

use crate::error::CalendarError;
use crate::query::{
    MAX_EVENTS_PER_ANSWER, MAX_EXPANSION_STEPS, MAX_OCCURRENCES_PER_SERIES, MAX_STEPS_PER_SERIES,
};

/// The occurrence index's most pages one range may read, in whole years,
/// as a refusal names it (the index keeps at most 4,096 four-week pages:
/// 314 years).
pub const MAX_RANGE_YEARS: i64 = 300;

/// Which limit ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exhausted {
    Occurrences,
    Steps,
    /// The range spans more index pages than one read may (see
    /// `occurrence_index::MAX_PAGES`).
    Range,
}

#[derive(Debug, Clone, Copy)]
pub struct Allowance {
    /// Occurrences (events) that may still be produced.
    pub occurrences: usize,
    /// Candidate dates that may still be stepped through.
    pub steps: usize,
}

impl Allowance {
    /// A whole answer's allowance (the recurrence tests' yardstick).
    #[cfg(test)]
    pub fn per_answer() -> Allowance {
        Allowance {
            occurrences: MAX_EVENTS_PER_ANSWER,
            steps: MAX_EXPANSION_STEPS,
        }
    }

    /// One series' allowance.
    pub fn per_series() -> Allowance {
        Allowance {
            occurrences: MAX_OCCURRENCES_PER_SERIES,
            steps: MAX_STEPS_PER_SERIES,
        }
    }
}

/// Takes one from `left`, or reports `which` ran out.
pub fn spend(left: &mut usize, which: Exhausted) -> Result<(), Exhausted> {
    *left = left.checked_sub(1).ok_or(which)?;
    Ok(())
}

impl From<Exhausted> for CalendarError {
    /// The refusal of a checked query, naming the limit and what to do.
    fn from(exhausted: Exhausted) -> CalendarError {
        CalendarError::QueryTooLarge(match exhausted {
            Exhausted::Occurrences => format!(
                "the range holds more than {MAX_EVENTS_PER_ANSWER} events \
                 (limit {MAX_EVENTS_PER_ANSWER} per answer); narrow `start`/`end` \
                 or filter by `calendar`"
            ),
            Exhausted::Steps => format!(
                "expanding the recurring events of the range takes more than \
                 {MAX_EXPANSION_STEPS} steps (limit {MAX_EXPANSION_STEPS} per query); \
                 narrow `start`/`end` or filter by `calendar`"
            ),
            Exhausted::Range => format!(
                "the range spans more than {MAX_RANGE_YEARS} years of recurring events \
                 (limit {MAX_RANGE_YEARS} years per query); narrow `start`/`end`"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spending_stops_at_zero() {
        let mut left = 2;
        assert_eq!(spend(&mut left, Exhausted::Steps), Ok(()));
        assert_eq!(spend(&mut left, Exhausted::Steps), Ok(()));
        assert_eq!(spend(&mut left, Exhausted::Steps), Err(Exhausted::Steps));
        assert_eq!(left, 0);
    }

    #[test]
    fn refusals_name_the_limit() {
        let message = CalendarError::from(Exhausted::Occurrences).to_string();
        assert!(message.contains("more than 10000 events"), "{message}");
        let message = CalendarError::from(Exhausted::Steps).to_string();
        assert!(message.contains("200000 steps"), "{message}");
        let message = CalendarError::from(Exhausted::Range).to_string();
        assert!(message.contains("more than 300 years"), "{message}");
    }
}
