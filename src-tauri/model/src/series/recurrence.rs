//! From dates and wall-clock times to instants, and from series to
//! occurrences.
//!
//! Times are wall-clock times in the event's zone (all-day events: the display
//! zone). A series keeps its wall-clock time across DST changes: a 09:00
//! weekly meeting in `America/New_York` is at 14:00 UTC in winter and 13:00
//! UTC in summer. Durations are wall-clock durations too.
//!
//! `rrule` series are expanded with the `rrule` crate. Expanding from the
//! series' start on every query would cost time proportional to the series'
//! age, so a series without `COUNT` is re-anchored ("rebased") to a period
//! boundary shortly before the query window: the rule, validated once against
//! the original start, carries all the parts the start implied (weekday, day
//! of month, time), and a start shifted by whole periods of the rule's
//! interval yields the same occurrences from there on. The years a query asks
//! about are kept in the engine's bounded [`YearMemo`], so repeated queries
//! (a calendar view, a polling client) skip the `rrule` iterator entirely.
//!
//! Every candidate date stepped through and every occurrence produced is paid
//! for from an [`Allowance`], so no series, however dense or however far its
//! start lies from the window, costs more than the query may spend.

use std::sync::Arc;

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime};
use chrono_tz::Tz;
use rrule::{Frequency, RRule, RRuleSet, Validated};

use super::memo::{SeriesId, Starts, YearMemo};
use super::recurrence_set::{RecurrenceSet, SetTiming};
use super::rule_parse::parse_rrule;
use super::rule_text::{Pattern, rule_line, with_until_utc};
use crate::budget::{Allowance, Exhausted, spend};
use crate::error::CalendarError;
use crate::event::{DayOfWeek, EventType};
use crate::query::{day_start_millis, local_to_millis};
use crate::spec::EventSpec;

/// A closed interval of epoch milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: i64,
    pub end: i64,
}

/// When one event or occurrence happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First millisecond.
    pub start: i64,
    /// Last millisecond (inclusive); equal to `start` for an instant.
    pub end: i64,
    /// What the event reports as `startMillis` / `endMillis`.
    pub start_millis: Option<i64>,
    pub end_millis: Option<i64>,
}

impl Span {
    pub fn overlaps(&self, start: Option<i64>, end: Option<i64>) -> bool {
        start.is_none_or(|s| self.end >= s) && end.is_none_or(|e| self.start <= e)
    }
}

/// The time of day and length of an event, independent of its date.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    all_day: bool,
    start: NaiveTime,
    /// Wall-clock length of a timed event; `None` for an instant.
    duration: Option<Duration>,
    /// All-day events: days after the first one.
    extra_days: i64,
    tz: Tz,
}

impl Slot {
    fn new(spec: &EventSpec, first_day: NaiveDate, display_tz: Tz) -> Slot {
        let extra_days = spec
            .end_date
            .map_or(0, |end| (end - first_day).num_days().max(0));
        if spec.all_day {
            return Slot {
                all_day: true,
                start: NaiveTime::MIN,
                duration: None,
                extra_days,
                tz: display_tz,
            };
        }
        let start = spec.start_time.unwrap_or(NaiveTime::MIN);
        let duration = spec.end_time.map(|end_time| {
            let begin = first_day.and_time(start);
            let mut end = (first_day + Duration::days(extra_days)).and_time(end_time);
            if end < begin {
                // An end before the start on the same day runs past midnight.
                end += Duration::days(1);
            }
            end - begin
        });
        Slot {
            all_day: false,
            start,
            duration,
            extra_days: 0,
            tz: spec.timezone.unwrap_or(display_tz),
        }
    }

    /// The span of the occurrence starting at local `start`.
    pub fn span_at(&self, start: NaiveDateTime) -> Span {
        self.span_lasting(start, self.duration)
    }

    /// The span of an occurrence starting at local `start` that lasts
    /// `duration` (wall-clock) instead of the event's own length.
    pub fn span_lasting(&self, start: NaiveDateTime, duration: Option<Duration>) -> Span {
        if self.all_day {
            let first = start.date();
            let after = first + Duration::days(self.extra_days + 1);
            return Span {
                start: day_start_millis(first, self.tz),
                end: day_start_millis(after, self.tz) - 1,
                start_millis: None,
                end_millis: None,
            };
        }
        let begin = local_to_millis(start, self.tz);
        let end = duration.map(|d| local_to_millis(start + d, self.tz).max(begin));
        Span {
            start: begin,
            end: end.unwrap_or(begin),
            start_millis: Some(begin),
            end_millis: end,
        }
    }

    fn local_date(&self, millis: i64) -> NaiveDate {
        DateTime::from_timestamp_millis(millis)
            .map(|t| t.with_timezone(&self.tz).date_naive())
            .unwrap_or_default()
    }
}

/// One occurrence of a series (or the one time of a single event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub date: NaiveDate,
    pub start: NaiveDateTime,
    pub span: Span,
}

/// How an event is laid out in time, compiled once when the note is read.
#[derive(Debug, Clone)]
pub enum Timing {
    Once(Occurrence),
    Weekly {
        days: [bool; 7],
        from: Option<NaiveDate>,
        until: Option<NaiveDate>,
        slot: Slot,
        skip: Vec<NaiveDate>,
    },
    Rule(Box<RuleTiming>),
    /// An iCalendar series: several rules, extra and excluded dates.
    Set(Box<SetTiming>),
}

#[derive(Debug, Clone)]
pub struct RuleTiming {
    rule: RRule<Validated>,
    /// Local start of the series in `zone`.
    anchor: NaiveDateTime,
    /// The zone the rule runs in: the event's zone, or UTC for all-day series
    /// (whose occurrences are dates, not instants).
    zone: Tz,
    slot: Slot,
    skip: Vec<NaiveDate>,
    /// This series' key in the [`YearMemo`] (a clone is the same series).
    id: SeriesId,
}

/// Windows spanning more calendar years than this are expanded directly.
const MEMO_MAX_SPAN_YEARS: i32 = 3;

impl Timing {
    /// Compiles an event's timing. `spec` must be valid.
    pub fn compile(spec: &EventSpec, display_tz: Tz) -> Result<Timing, CalendarError> {
        let first = spec
            .first_day()
            .ok_or_else(|| CalendarError::invalid("date", "the event has no date"))?;
        let slot = Slot::new(spec, first, display_tz);
        let mut skip = spec.skip_dates.clone();
        skip.sort();
        Ok(match spec.kind {
            EventType::Single => {
                let start = first.and_time(slot.start);
                Timing::Once(Occurrence {
                    date: first,
                    start,
                    span: slot.span_at(start),
                })
            }
            EventType::Recurring if let Some(rule) = recurring_rule(spec) => {
                Timing::rule(first, slot, skip, &rule, "type")?
            }
            EventType::Recurring => {
                let mut days = [false; 7];
                for day in &spec.days_of_week {
                    days[*day as usize] = true;
                }
                Timing::Weekly {
                    days,
                    from: spec.start_recur,
                    until: spec.end_recur,
                    slot,
                    skip,
                }
            }
            EventType::Rrule => {
                let text = spec.rrule.as_deref().unwrap_or_default();
                Timing::rule(first, slot, skip, text, "rrule")?
            }
        })
    }

    /// A series run by the RRULE `text`, anchored at the start of its first
    /// day in the event's zone (UTC for all-day series, whose occurrences are
    /// dates). A rule that does not parse makes `field` invalid.
    fn rule(
        first: NaiveDate,
        slot: Slot,
        skip: Vec<NaiveDate>,
        text: &str,
        field: &str,
    ) -> Result<Timing, CalendarError> {
        let anchor = first.and_time(slot.start);
        let rule = RuleTiming::new(anchor, slot, skip, text)
            .map_err(|reason| CalendarError::invalid(field, reason))?;
        Ok(Timing::Rule(Box::new(rule)))
    }

    /// An iCalendar series whose rules start at local `anchor` (see
    /// [`RecurrenceSet`]); `spec` gives the length of its occurrences.
    pub fn set(
        spec: &EventSpec,
        display_tz: Tz,
        anchor: NaiveDateTime,
        set: RecurrenceSet,
    ) -> Result<Timing, String> {
        let slot = Slot::new(spec, spec.first_day().unwrap_or(anchor.date()), display_tz);
        Ok(Timing::Set(Box::new(SetTiming::new(anchor, slot, set)?)))
    }

    /// Appends the occurrences overlapping `window` to `out`, in start
    /// order, paying for each from `allowance`. When it runs out, `out` holds
    /// what was produced before.
    pub fn occurrences(
        &self,
        window: Window,
        memo: &YearMemo,
        allowance: &mut Allowance,
        out: &mut Vec<Occurrence>,
    ) -> Result<(), Exhausted> {
        match self {
            Timing::Once(occurrence) => {
                if occurrence
                    .span
                    .overlaps(Some(window.start), Some(window.end))
                {
                    spend(&mut allowance.occurrences, Exhausted::Occurrences)?;
                    out.push(*occurrence);
                }
                Ok(())
            }
            Timing::Weekly {
                days,
                from,
                until,
                slot,
                skip,
            } => {
                let (mut day, last) = candidate_days(slot, window);
                if let Some(from) = from {
                    day = day.max(*from);
                }
                let last = until.map_or(last, |u| last.min(u));
                while day <= last {
                    spend(&mut allowance.steps, Exhausted::Steps)?;
                    if days[DayOfWeek::from_chrono(day.weekday()) as usize]
                        && skip.binary_search(&day).is_err()
                    {
                        let start = day.and_time(slot.start);
                        let span = slot.span_at(start);
                        if span.overlaps(Some(window.start), Some(window.end)) {
                            spend(&mut allowance.occurrences, Exhausted::Occurrences)?;
                            out.push(Occurrence {
                                date: day,
                                start,
                                span,
                            });
                        }
                    }
                    let Some(next) = day.succ_opt() else { break };
                    day = next;
                }
                Ok(())
            }
            Timing::Rule(rule) => rule.occurrences(window, memo, allowance, out),
            Timing::Set(set) => set.occurrences(window, memo, allowance, out),
        }
    }

    /// True for recurring and rrule series.
    pub fn is_series(&self) -> bool {
        !matches!(self, Timing::Once(_))
    }
}

/// Local dates on which an occurrence could overlap `window`: a day before
/// the window (zone offsets) through the window's last day, widened by the
/// event's length.
pub fn candidate_days(slot: &Slot, window: Window) -> (NaiveDate, NaiveDate) {
    let length_days = slot.extra_days + slot.duration.map_or(0, |d| d.num_days()) + 2;
    let first = slot.local_date(window.start) - Duration::days(length_days);
    let last = slot.local_date(window.end) + Duration::days(1);
    (first, last)
}

impl RuleTiming {
    /// The series run by the RRULE `text` from local `anchor` (in the
    /// event's zone; UTC for all-day series, whose occurrences are dates).
    pub fn new(
        anchor: NaiveDateTime,
        slot: Slot,
        skip: Vec<NaiveDate>,
        text: &str,
    ) -> Result<RuleTiming, String> {
        let zone = if slot.all_day { Tz::UTC } else { slot.tz };
        let rule = parse_rule(text, zone, anchor)?;
        Ok(RuleTiming {
            rule,
            anchor,
            zone,
            slot,
            skip,
            id: SeriesId::next(),
        })
    }

    /// The last start the rule allows, as a local time (`UNTIL`).
    pub fn until(&self) -> Option<NaiveDateTime> {
        self.rule
            .get_until()
            .map(|until| until.with_timezone(&self.zone).naive_local())
    }

    fn occurrences(
        &self,
        window: Window,
        memo: &YearMemo,
        allowance: &mut Allowance,
        out: &mut Vec<Occurrence>,
    ) -> Result<(), Exhausted> {
        let (first_day, last_day) = candidate_days(&self.slot, window);
        let Allowance { occurrences, steps } = allowance;
        let consider = |start: NaiveDateTime| -> Result<(), Exhausted> {
            if start.date() < first_day
                || start.date() > last_day
                || self.skip.binary_search(&start.date()).is_ok()
            {
                return Ok(());
            }
            let start = if self.slot.all_day {
                start.date().and_time(NaiveTime::MIN)
            } else {
                start
            };
            let span = self.slot.span_at(start);
            if span.overlaps(Some(window.start), Some(window.end)) {
                spend(occurrences, Exhausted::Occurrences)?;
                out.push(Occurrence {
                    date: start.date(),
                    start,
                    span,
                });
            }
            Ok(())
        };
        self.starts(first_day, last_day, memo, steps, consider)
    }

    /// Calls `each` with the local starts on days `first..=last` in order
    /// (and maybe others of their years): from the memo's years when the
    /// days span few years, else expanded directly.
    pub fn starts(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        memo: &YearMemo,
        steps: &mut usize,
        mut each: impl FnMut(NaiveDateTime) -> Result<(), Exhausted>,
    ) -> Result<(), Exhausted> {
        if last.year() - first.year() > MEMO_MAX_SPAN_YEARS {
            return self.for_each_start(first, last, steps, each);
        }
        for year in first.year()..=last.year() {
            let starts = memo.year(self.id, year, || self.year(year, steps))?;
            starts.iter().copied().try_for_each(&mut each)?;
        }
        Ok(())
    }

    /// The local starts in calendar `year`.
    fn year(&self, year: i32, steps: &mut usize) -> Result<Starts, Exhausted> {
        let (Some(first), Some(last)) = (
            NaiveDate::from_ymd_opt(year, 1, 1),
            NaiveDate::from_ymd_opt(year, 12, 31),
        ) else {
            return Ok(Arc::from(Vec::new()));
        };
        let mut starts = Vec::new();
        self.for_each_start(first, last, steps, |start| {
            starts.push(start);
            Ok(())
        })?;
        Ok(starts.into())
    }

    /// Calls `each` with the local start of every occurrence on days
    /// `first..=last`, in order, paying one step for every instance the rule
    /// yields on the way (from the rebased start, so about one period before
    /// `first`; from the real start for a `COUNT` rule).
    fn for_each_start(
        &self,
        first: NaiveDate,
        last: NaiveDate,
        steps: &mut usize,
        mut each: impl FnMut(NaiveDateTime) -> Result<(), Exhausted>,
    ) -> Result<(), Exhausted> {
        let anchor = self.rebased_anchor(first);
        let Some(dtstart) = localize(anchor, self.zone) else {
            return Ok(());
        };
        let set = RRuleSet::new(dtstart).rrule(self.rule.clone());
        for instant in &set {
            spend(steps, Exhausted::Steps)?;
            let start = instant.naive_local();
            if start.date() > last {
                break;
            }
            if start.date() >= first {
                each(start)?;
            }
        }
        Ok(())
    }

    /// A start shifted by whole periods to shortly before `day` (see the
    /// module docs), or the real start when that is not possible.
    fn rebased_anchor(&self, day: NaiveDate) -> NaiveDateTime {
        let anchor = self.anchor;
        if self.rule.get_count().is_some() || day <= anchor.date() {
            return anchor;
        }
        let interval = i64::from(self.rule.get_interval().max(1));
        let whole_periods = |elapsed: i64, period: i64| (elapsed / (period * interval) - 1).max(0);
        match self.rule.get_freq() {
            Frequency::Daily | Frequency::Weekly => {
                let period = if self.rule.get_freq() == Frequency::Daily {
                    1
                } else {
                    7
                };
                let k = whole_periods((day - anchor.date()).num_days(), period);
                anchor + Duration::days(k * period * interval)
            }
            Frequency::Monthly => {
                let month_index = |d: NaiveDate| i64::from(d.year()) * 12 + i64::from(d.month0());
                let k = whole_periods(month_index(day) - month_index(anchor.date()), 1);
                let target = month_index(anchor.date()) + k * interval;
                first_of_month(target).map_or(anchor, |d| d.and_time(NaiveTime::MIN))
            }
            Frequency::Yearly => {
                let k = whole_periods(i64::from(day.year() - anchor.date().year()), 1);
                let year = i64::from(anchor.date().year()) + k * interval;
                i32::try_from(year)
                    .ok()
                    .and_then(|y| NaiveDate::from_ymd_opt(y, 1, 1))
                    .map_or(anchor, |d| d.and_time(NaiveTime::MIN))
            }
            _ => anchor,
        }
    }
}

/// The RRULE a `recurring` series other than a plain weekly one stands for
/// (see [`Pattern::rule`]). `None` for a plain weekly series, which
/// [`Timing::Weekly`] expands.
fn recurring_rule(spec: &EventSpec) -> Option<String> {
    let interval = spec.repeat_interval.filter(|n| *n > 1);
    if !spec.days_of_week.is_empty() && interval.is_none() {
        return None;
    }
    Pattern {
        days_of_week: &spec.days_of_week,
        repeat_on: spec.repeat_on,
        month: spec.month,
        day_of_month: spec.day_of_month,
        interval,
        end_recur: spec.end_recur,
    }
    .rule()
}

fn first_of_month(month_index: i64) -> Option<NaiveDate> {
    let year = i32::try_from(month_index.div_euclid(12)).ok()?;
    NaiveDate::from_ymd_opt(year, u32::try_from(month_index.rem_euclid(12)).ok()? + 1, 1)
}

/// A local time in `zone` as the `rrule` crate's zoned time (gaps resolve
/// forward, overlaps to the earlier instant, as everywhere else).
fn localize(local: NaiveDateTime, zone: Tz) -> Option<DateTime<rrule::Tz>> {
    let millis = local_to_millis(local, zone);
    let utc = DateTime::from_timestamp_millis(millis)?;
    Some(utc.with_timezone(&rrule::Tz::Tz(zone)))
}

/// Checks an `rrule` field without an event around it.
pub fn check_rrule(text: &str) -> Result<(), CalendarError> {
    let anchor = NaiveDate::from_ymd_opt(2000, 1, 1)
        .unwrap_or_default()
        .and_time(NaiveTime::MIN);
    parse_rule(text, Tz::UTC, anchor)
        .map(drop)
        .map_err(|reason| CalendarError::invalid("rrule", reason))
}

/// Parses Full Calendar's `rrule` text (its rule line, see [`rule_line`]),
/// a date or local `UNTIL` read in the rule's zone (the `rrule` crate wants
/// UTC).
fn parse_rule(text: &str, zone: Tz, anchor: NaiveDateTime) -> Result<RRule<Validated>, String> {
    let line = rule_line(text).ok_or_else(|| format!("`{text}` has no FREQ="))?;
    let normalized = with_until_utc(line, Some(zone));
    let rule = parse_rrule(&normalized).map_err(|e| format!("`{line}`: {e}"))?;
    let dtstart = localize(anchor, zone).ok_or("the start is out of range")?;
    rule.validate(dtstart).map_err(|e| format!("`{line}`: {e}"))
}
