//! The window of occurrence starts the set covers, and when it moves.
//!
//! From the grace window ago (a reminder missed while the app was closed can
//! still be shown late, as synced ones are) through `horizonDays` ahead plus
//! [`SLACK`]. The slack lets the end stay put for a day: the set is extended
//! once a day instead of every time the clock ticks. The start follows the
//! clock exactly, one reminder at a time (see [`super::DerivedSet::next_change`]).

use chrono::{DateTime, Duration, Utc};

use super::rules::Rules;

/// How far past `horizonDays` the set reaches, and so how often its end
/// moves.
pub const SLACK: Duration = Duration::days(1);

/// Occurrences starting in `start..=end` are covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Horizon {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl Horizon {
    /// The horizon derived at `now`.
    pub fn at(now: DateTime<Utc>, rules: &Rules) -> Horizon {
        Horizon {
            start: earliest_start(now, rules),
            end: now + Duration::days(i64::from(rules.horizon_days)) + SLACK,
        }
    }

    /// When the end must move on: the moment less than `horizonDays` ahead
    /// would be covered.
    pub fn end_moves_at(&self, rules: &Rules) -> DateTime<Utc> {
        self.end - Duration::days(i64::from(rules.horizon_days))
    }
}

/// The earliest start still covered at `now`: the grace window ago.
pub fn earliest_start(now: DateTime<Utc>, rules: &Rules) -> DateTime<Utc> {
    now - Duration::hours(i64::from(rules.grace_hours))
}
