//! What one expansion may still produce and spend (see the cost ceiling in
//! [`super::query`]). A checked query shares one [`Allowance`] between all
//! its series ([`AnswerBudget`]), each series limited to a share of its
//! steps, and fails the moment the answer itself runs out; an unchecked one
//! gives each series its own and keeps what was produced.

use super::error::CalendarError;
use super::query::{
    MAX_EVENTS_PER_ANSWER, MAX_EXPANSION_STEPS, MAX_OCCURRENCES_PER_SERIES, MAX_STEPS_PER_SERIES,
};

/// Which limit ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exhausted {
    Occurrences,
    Steps,
}

#[derive(Debug, Clone, Copy)]
pub struct Allowance {
    /// Occurrences (events) that may still be produced.
    pub occurrences: usize,
    /// Candidate dates that may still be stepped through.
    pub steps: usize,
}

impl Allowance {
    /// One checked query's allowance, shared by all its series.
    pub fn per_answer() -> Allowance {
        Allowance {
            occurrences: MAX_EVENTS_PER_ANSWER,
            steps: MAX_EXPANSION_STEPS,
        }
    }

    /// One series' allowance in an unchecked query.
    pub fn per_series() -> Allowance {
        Allowance {
            occurrences: MAX_OCCURRENCES_PER_SERIES,
            steps: MAX_STEPS_PER_SERIES,
        }
    }
}

/// A checked query's budget. Occurrences and steps of the series kept in
/// the answer come from `answer`; a series may spend at most
/// [`MAX_STEPS_PER_SERIES`] steps of it, and one that needs more is left out
/// (a runaway such as `FREQ=SECONDLY;COUNT=1000000000` from 1990 never
/// blocks the rest of its calendar). The steps a left-out series burnt come
/// from a pool of their own, [`MAX_EXPANSION_STEPS`], so a calendar of
/// runaways still costs a bounded time; once that pool is empty, the
/// remaining series are left out too.
#[derive(Debug, Clone, Copy)]
pub struct AnswerBudget {
    answer: Allowance,
    left_out_steps: usize,
}

/// What became of one series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesOutcome {
    Kept,
    /// Left out of the answer, after `steps` steps.
    LeftOut {
        steps: usize,
    },
}

impl Default for AnswerBudget {
    fn default() -> Self {
        AnswerBudget {
            answer: Allowance::per_answer(),
            left_out_steps: MAX_EXPANSION_STEPS,
        }
    }
}

impl AnswerBudget {
    /// Pays for one occurrence of a single event.
    pub fn occurrence(&mut self) -> Result<(), Exhausted> {
        spend(&mut self.answer.occurrences, Exhausted::Occurrences)
    }

    /// Runs one series' `expand` with its share. `Err` when the answer is
    /// too big (too many events, or too many steps for the series kept):
    /// the query is refused. A series left out must have its occurrences
    /// discarded by the caller.
    pub fn series(
        &mut self,
        expand: impl FnOnce(&mut Allowance) -> Result<(), Exhausted>,
    ) -> Result<SeriesOutcome, Exhausted> {
        let share = MAX_STEPS_PER_SERIES
            .min(self.answer.steps)
            .min(self.left_out_steps);
        let mut own = Allowance {
            occurrences: self.answer.occurrences,
            steps: share,
        };
        match expand(&mut own) {
            Ok(()) => {
                self.answer.occurrences = own.occurrences;
                self.answer.steps -= share - own.steps;
                Ok(SeriesOutcome::Kept)
            }
            Err(Exhausted::Occurrences) => Err(Exhausted::Occurrences),
            // The share was what the answer had left, not the series' own
            // limit: the series kept so far used the budget up.
            Err(Exhausted::Steps)
                if share == self.answer.steps
                    && share < MAX_STEPS_PER_SERIES
                    && share < self.left_out_steps =>
            {
                Err(Exhausted::Steps)
            }
            Err(Exhausted::Steps) => {
                self.left_out_steps -= share;
                Ok(SeriesOutcome::LeftOut { steps: share })
            }
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

    /// A series stepping `steps` times, producing nothing.
    fn stepping(steps: usize) -> impl FnOnce(&mut Allowance) -> Result<(), Exhausted> {
        move |own: &mut Allowance| {
            (0..steps).try_for_each(|_| spend(&mut own.steps, Exhausted::Steps))
        }
    }

    #[test]
    fn a_runaway_series_is_left_out_and_the_rest_still_answers() {
        let mut budget = AnswerBudget::default();
        assert_eq!(budget.series(stepping(10)), Ok(SeriesOutcome::Kept));
        assert_eq!(
            budget.series(stepping(usize::MAX)),
            Ok(SeriesOutcome::LeftOut {
                steps: MAX_STEPS_PER_SERIES
            })
        );
        assert_eq!(
            budget.series(stepping(MAX_STEPS_PER_SERIES)),
            Ok(SeriesOutcome::Kept)
        );
        assert_eq!(budget.occurrence(), Ok(()));
    }

    #[test]
    fn an_answer_too_big_is_still_refused() {
        let mut budget = AnswerBudget::default();
        for _ in 0..MAX_EXPANSION_STEPS / MAX_STEPS_PER_SERIES {
            assert_eq!(
                budget.series(stepping(MAX_STEPS_PER_SERIES - 1)),
                Ok(SeriesOutcome::Kept)
            );
        }
        assert_eq!(budget.series(stepping(1000)), Err(Exhausted::Steps));
        let mut budget = AnswerBudget::default();
        let many = |own: &mut Allowance| {
            (0..=MAX_EVENTS_PER_ANSWER)
                .try_for_each(|_| spend(&mut own.occurrences, Exhausted::Occurrences))
        };
        assert_eq!(budget.series(many), Err(Exhausted::Occurrences));
    }

    #[test]
    fn runaways_burn_a_bounded_pool() {
        let mut budget = AnswerBudget::default();
        let mut burnt = 0;
        for _ in 0..10 {
            if let Ok(SeriesOutcome::LeftOut { steps }) = budget.series(stepping(usize::MAX)) {
                burnt += steps;
            }
        }
        assert_eq!(burnt, MAX_EXPANSION_STEPS);
    }

    #[test]
    fn refusals_name_the_limit() {
        let message = CalendarError::from(Exhausted::Occurrences).to_string();
        assert!(message.contains("more than 10000 events"), "{message}");
        let message = CalendarError::from(Exhausted::Steps).to_string();
        assert!(message.contains("200000 steps"), "{message}");
    }
}
