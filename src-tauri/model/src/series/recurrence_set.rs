//! iCalendar recurrence sets (RFC 5545 §3.8.5): a series made of several
//! `RRULE`s, extra dates (`RDATE`, a `PERIOD` with its own length), excluded
//! dates (`EXDATE`) and excluding rules (`EXRULE`, from RFC 2445, still
//! written by some servers).
//!
//! Everything is a wall-clock time in the series' zone (dates at 00:00 for
//! all-day series). The first start (`DTSTART`) always belongs to the set,
//! unless every rule ended before it, like the common expanders do. A
//! `RECURRENCE-ID;RANGE=THISANDFUTURE` override cuts a series in two: the
//! part after it is its own set, limited by `after` / `before` and moved by
//! `shift`.
//!
//! Each rule is expanded with [`RuleTiming`], rebased near the window and
//! kept in the engine's [`YearMemo`], so a long series costs what the window
//! needs, paid from the query's [`Allowance`].

use chrono::{Duration, NaiveDate, NaiveDateTime};

use super::memo::YearMemo;
use super::recurrence::{Occurrence, RuleTiming, Slot, Window, candidate_days};
use crate::budget::{Allowance, Exhausted, spend};

/// The parts of an iCalendar series, as local times in its zone.
#[derive(Debug, Clone, Default)]
pub struct RecurrenceSet {
    pub rrules: Vec<String>,
    pub exrules: Vec<String>,
    /// Extra starts, with their own length when given as a `PERIOD`.
    pub rdates: Vec<(NaiveDateTime, Option<Duration>)>,
    /// Excluded starts (`EXDATE` date-times, overridden occurrences).
    pub exdates: Vec<NaiveDateTime>,
    /// Excluded days (`EXDATE;VALUE=DATE`): no start on these days.
    pub exdate_days: Vec<NaiveDate>,
    /// Only starts after this one (a `THISANDFUTURE` override's).
    pub after: Option<NaiveDateTime>,
    /// Only starts before this one (where a `THISANDFUTURE` part begins).
    pub before: Option<NaiveDateTime>,
    /// Added to every start (a `THISANDFUTURE` override moved its part).
    pub shift: Duration,
}

#[derive(Debug, Clone)]
pub struct SetTiming {
    rules: Vec<RuleTiming>,
    exrules: Vec<RuleTiming>,
    /// The first start, when it belongs to the set.
    first: Option<NaiveDateTime>,
    set: RecurrenceSet,
    slot: Slot,
}

impl SetTiming {
    pub fn new(
        anchor: NaiveDateTime,
        slot: Slot,
        mut set: RecurrenceSet,
    ) -> Result<SetTiming, String> {
        let compile = |texts: &[String]| -> Result<Vec<RuleTiming>, String> {
            texts
                .iter()
                .map(|text| RuleTiming::new(anchor, slot.clone(), Vec::new(), text))
                .collect()
        };
        let rules = compile(&set.rrules)?;
        let exrules = compile(&set.exrules)?;
        let last_until = rules.iter().filter_map(RuleTiming::until).max();
        let first = (last_until.is_none_or(|until| anchor <= until)).then_some(anchor);
        set.rdates.sort_by_key(|(start, _)| *start);
        set.exdates.sort();
        set.exdate_days.sort();
        Ok(SetTiming {
            rules,
            exrules,
            first,
            set,
            slot,
        })
    }

    /// Appends the occurrences overlapping `window` to `out`, in start order,
    /// paying for each candidate and occurrence from `allowance`.
    pub fn occurrences(
        &self,
        window: Window,
        memo: &YearMemo,
        allowance: &mut Allowance,
        out: &mut Vec<Occurrence>,
    ) -> Result<(), Exhausted> {
        let (first_day, last_day) = candidate_days(&self.slot, window);
        // The days the unshifted starts may fall on (a day more on each side
        // for a shift of part of a day, and for the longest `PERIOD`).
        let longest = self
            .set
            .rdates
            .iter()
            .filter_map(|(_, length)| *length)
            .max()
            .map_or(0, |d| d.num_days());
        let from = first_day - Duration::days(self.set.shift.num_days() + longest + 1);
        let to = last_day - Duration::days(self.set.shift.num_days() - 1);
        let in_days = |start: &NaiveDateTime| (from..=to).contains(&start.date());
        let mut starts = Vec::new();
        for rule in &self.rules {
            rule.starts(from, to, memo, &mut allowance.steps, |start| {
                starts.extend(Some(start).filter(in_days));
                Ok(())
            })?;
        }
        starts.extend(self.first.filter(in_days));
        for (start, _) in self.set.rdates.iter().filter(|(s, _)| in_days(s)) {
            spend(&mut allowance.steps, Exhausted::Steps)?;
            starts.push(*start);
        }
        starts.sort();
        starts.dedup();
        let mut excluded = Vec::new();
        for rule in &self.exrules {
            rule.starts(from, to, memo, &mut allowance.steps, |start| {
                excluded.push(start);
                Ok(())
            })?;
        }
        excluded.sort();
        for start in starts {
            if self.set.exdates.binary_search(&start).is_ok()
                || self.set.exdate_days.binary_search(&start.date()).is_ok()
                || excluded.binary_search(&start).is_ok()
                || self.set.after.is_some_and(|after| start <= after)
                || self.set.before.is_some_and(|before| start >= before)
            {
                continue;
            }
            let length = self
                .set
                .rdates
                .binary_search_by_key(&start, |(s, _)| *s)
                .ok()
                .and_then(|i| self.set.rdates[i].1);
            let moved = start + self.set.shift;
            let span = match length {
                Some(length) => self.slot.span_lasting(moved, Some(length)),
                None => self.slot.span_at(moved),
            };
            if span.overlaps(Some(window.start), Some(window.end)) {
                spend(&mut allowance.occurrences, Exhausted::Occurrences)?;
                out.push(Occurrence {
                    date: moved.date(),
                    start: moved,
                    span,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use chrono::NaiveTime;
    use chrono_tz::Tz;

    use super::*;
    use crate::event::EventType;
    use crate::query::day_start_millis;
    use crate::series::recurrence::Timing;
    use crate::spec::EventSpec;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    /// A daily 08:00–08:15 series in Berlin from 2000-01-01.
    fn daily(set: RecurrenceSet) -> Timing {
        let spec = EventSpec {
            title: "Daily".into(),
            kind: EventType::Rrule,
            date: Some(day("2000-01-01")),
            start_date: Some(day("2000-01-01")),
            start_time: NaiveTime::from_hms_opt(8, 0, 0),
            end_time: NaiveTime::from_hms_opt(8, 15, 0),
            timezone: Some(Tz::Europe__Berlin),
            ..EventSpec::default()
        };
        let anchor = day("2000-01-01").and_time(spec.start_time.unwrap());
        Timing::set(&spec, Tz::UTC, anchor, set).unwrap()
    }

    fn month(timing: &Timing, first: &str, last: &str) -> (Vec<Occurrence>, Allowance) {
        let window = Window {
            start: day_start_millis(day(first), Tz::Europe__Berlin),
            end: day_start_millis(day(last), Tz::Europe__Berlin) - 1,
        };
        let mut allowance = Allowance::per_answer();
        let mut out = Vec::new();
        timing
            .occurrences(window, &YearMemo::default(), &mut allowance, &mut out)
            .unwrap();
        (out, allowance)
    }

    #[test]
    fn a_month_of_a_thirty_year_series_costs_a_month() {
        let timing = daily(RecurrenceSet {
            rrules: vec!["FREQ=DAILY;UNTIL=20301231T235959Z".into()],
            ..RecurrenceSet::default()
        });
        let (out, left) = month(&timing, "2029-03-01", "2029-04-01");
        assert_eq!(out.len(), 31);
        assert_eq!(
            out[0].start,
            day("2029-03-01").and_hms_opt(8, 0, 0).unwrap()
        );
        let spent = Allowance::per_answer().steps - left.steps;
        // The memo expands the window's year, never the 29 years before.
        assert!(spent <= 400, "{spent} steps");
    }

    #[test]
    fn exclusions_apply_to_exact_starts_and_whole_days() {
        let at = |d: &str, h: u32| day(d).and_hms_opt(h, 0, 0).unwrap();
        let timing = daily(RecurrenceSet {
            rrules: vec!["FREQ=DAILY;COUNT=5".into()],
            exrules: vec!["FREQ=DAILY;INTERVAL=4".into()],
            rdates: vec![(at("2000-01-02", 20), Some(Duration::hours(2)))],
            exdates: vec![at("2000-01-02", 8), at("2000-01-03", 9)],
            exdate_days: vec![day("2000-01-04")],
            ..RecurrenceSet::default()
        });
        let (out, _) = month(&timing, "2000-01-01", "2000-02-01");
        let starts: Vec<NaiveDateTime> = out.iter().map(|o| o.start).collect();
        // The 1st and 5th fall to the EXRULE, the 2nd at 08:00 to its
        // EXDATE, the 4th to its day; an EXDATE at 09:00 misses the 3rd.
        assert_eq!(starts, [at("2000-01-02", 20), at("2000-01-03", 8)]);
        let rdate = out[0].span;
        assert_eq!(rdate.end - rdate.start, 2 * 3_600_000);
    }
}
