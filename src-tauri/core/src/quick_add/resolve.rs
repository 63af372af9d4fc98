//! The phrases found in a line, put together as one event's fields: a
//! single event, or a series when the line repeats.

use chrono::{
    Datelike, Days, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone,
    Timelike, Weekday,
};

use super::dates::DayFound;
use super::repeat::Repeat;
use super::times::TimeFound;
use super::{Context, EXAMPLE, Found, Piece, QuickAddError};
use crate::calendar::{DayOfWeek, EventFields, EventType};

/// How long an event with only a start lasts.
const DEFAULT_LENGTH: TimeDelta = TimeDelta::hours(1);

/// The one phrase of each kind a line may hold.
#[derive(Default)]
struct Parts<'a> {
    day: Option<(&'a str, DayFound)>,
    time: Option<(&'a str, NaiveTime, Option<NaiveTime>)>,
    length: Option<(&'a str, TimeDelta)>,
    from_now: Option<(&'a str, TimeDelta)>,
    repeat: Option<(&'a str, &'a Repeat)>,
    until: Option<(&'a str, NaiveDate)>,
    all_day: Option<&'a str>,
}

/// A second phrase of a kind already found.
fn twice(first: &str, second: &str, what: &str) -> QuickAddError {
    QuickAddError::new(format!("“{first}” and “{second}” are two {what}; keep one"))
}

fn set<'a, T>(
    slot: &mut Option<(&'a str, T)>,
    text: &'a str,
    value: T,
    what: &str,
) -> Result<(), QuickAddError> {
    match slot {
        Some((first, _)) => Err(twice(first, text, what)),
        None => {
            *slot = Some((text, value));
            Ok(())
        }
    }
}

impl<'a> Parts<'a> {
    fn gather(found: &'a [Found]) -> Result<Self, QuickAddError> {
        let mut parts = Parts::default();
        for Found { piece, text } in found {
            let text = text.as_str();
            match piece {
                Piece::Day(day) => match parts.day {
                    // "Friday, Dec 4" names one day twice.
                    Some((_, seen))
                        if seen
                            == DayFound {
                                used: seen.used,
                                ..*day
                            } => {}
                    _ => set(&mut parts.day, text, *day, "days")?,
                },
                Piece::Time(TimeFound::Span { start, end, .. }) => match &mut parts.time {
                    Some((first, _, _)) => return Err(twice(first, text, "times")),
                    slot => *slot = Some((text, *start, *end)),
                },
                Piece::Time(TimeFound::Length { length, .. }) => {
                    set(&mut parts.length, text, *length, "lengths")?
                }
                Piece::FromNow(delta) => set(&mut parts.from_now, text, *delta, "times")?,
                Piece::Repeat(repeat) => set(&mut parts.repeat, text, repeat, "repeats")?,
                Piece::Until(day) => set(&mut parts.until, text, *day, "last days")?,
                Piece::AllDay => parts.all_day = Some(text),
                Piece::Calendar(_) => {}
            }
        }
        Ok(parts)
    }
}

/// The fields of the event `found` describes, titled `title`.
pub(super) fn resolve(
    title: String,
    found: &[Found],
    context: &Context,
    line: &str,
) -> Result<EventFields, QuickAddError> {
    let parts = Parts::gather(found)?;
    let now = context.now.with_timezone(&context.zone).naive_local();
    let when = [
        parts.day.map(|d| d.0),
        parts.time.map(|t| t.0),
        parts.from_now.map(|f| f.0),
        parts.repeat.map(|r| r.0),
        parts.all_day,
    ];
    let Some(first_phrase) = when.into_iter().flatten().next() else {
        return Err(QuickAddError::new(format!(
            "No date or time in “{line}”; try e.g. “{EXAMPLE}”."
        )));
    };
    if title.trim().is_empty() {
        return Err(QuickAddError::new(format!(
            "Add a title before or after “{first_phrase}”."
        )));
    }
    if let Some((moment, _)) = parts.from_now
        && let Some(other) = [parts.day.map(|d| d.0), parts.time.map(|t| t.0)]
            .into_iter()
            .flatten()
            .next()
    {
        return Err(QuickAddError::new(format!(
            "“{moment}” already says when; leave out “{other}”"
        )));
    }
    // "in 2 hours": that moment in the display zone, to the minute.
    let moment = parts.from_now.map(|(_, delta)| {
        let at = (context.now + delta)
            .with_timezone(&context.zone)
            .naive_local();
        at.with_second(0)
            .and_then(|t| t.with_nanosecond(0))
            .unwrap_or(at)
    });
    let start_time = moment.map(|m| m.time()).or(parts.time.map(|t| t.1));
    if let (Some(all_day), Some(time)) = (parts.all_day, parts.time.map(|t| t.0)) {
        return Err(twice(
            all_day,
            time,
            "kinds of event (all day, and at a time)",
        ));
    }
    if let Some((length, _)) = parts.length {
        if start_time.is_none() {
            return Err(QuickAddError::new(format!(
                "“{length}” needs a start time, e.g. “at 3pm {length}”"
            )));
        }
        if let Some((range, _, Some(_))) = parts.time {
            return Err(twice(range, length, "ends"));
        }
    }
    let day = moment.map(|m| m.date()).or(parts.day.map(|d| d.1.first));
    let by_weekday = parts
        .day
        .is_some_and(|d| d.1.today_by_weekday && d.1.last.is_none());
    let first = match (day, start_time) {
        // "friday 9am" on a Friday afternoon is next week's.
        (Some(day), Some(time)) if by_weekday && parts.repeat.is_none() && time <= now.time() => {
            day + Days::new(7)
        }
        (Some(day), _) => day,
        // A time alone is the next such time: today, or tomorrow once past.
        (None, Some(time)) if parts.repeat.is_none() && time <= now.time() => {
            now.date() + Days::new(1)
        }
        (None, _) => now.date(),
    };
    let mut fields = EventFields {
        title: Some(title.trim().to_string()),
        kind: Some(EventType::Single),
        all_day: Some(start_time.is_none()),
        ..EventFields::default()
    };
    let last_day = parts.day.and_then(|d| d.1.last);
    if let Some(last) = last_day
        && last < first
    {
        return Err(QuickAddError::new(format!(
            "“{}” ends before it starts",
            parts.day.map_or("", |d| d.0)
        )));
    }
    // The end, as a wall time, when timed.
    let end = match start_time {
        Some(start) => {
            let start_at = first.and_time(start);
            let end_at = match (parts.time.and_then(|t| t.2), parts.length) {
                // "22:00-01:00" ends the next day.
                (Some(end), _) if end <= start => (first + Days::new(1)).and_time(end),
                (Some(end), _) => first.and_time(end),
                (None, Some((_, length))) => elapsed_after(context, start_at, length),
                (None, None) => start_at + DEFAULT_LENGTH,
            };
            exists(context, start_at)?;
            exists(context, end_at)?;
            // "02:30 for 30 minutes" on the night the clocks go back ends
            // at the second 02:00: wall times cannot say so, and written as
            // they are the event would run 23.5 hours.
            if end_at <= start_at {
                return Err(QuickAddError::new(format!(
                    "“{}” from {} ends at {} after the clocks go back in {}; give the end time instead",
                    parts.length.map_or("", |l| l.0),
                    format_time(start),
                    format_time(end_at.time()),
                    context.zone.name()
                )));
            }
            fields.start_time = Some(Some(format_time(start)));
            fields.end_time = Some(Some(format_time(end_at.time())));
            Some(end_at)
        }
        None => None,
    };
    match parts.repeat {
        None => {
            if let Some((until, _)) = parts.until {
                return Err(QuickAddError::new(format!(
                    "“{until}” ends a repeating event; for a span of days write e.g. “Dec 3 - Dec 5”"
                )));
            }
            fields.date = Some(Some(format_date(first)));
            let end_day = end.map(|e| e.date()).or(last_day);
            fields.end_date = end_day.filter(|d| *d > first).map(|d| Some(format_date(d)));
        }
        Some((text, repeat)) => {
            if end.is_some_and(|e| e.date() > first) {
                return Err(QuickAddError::new(format!(
                    "a repeating event (“{text}”) ends on the day it starts"
                )));
            }
            let until = match (last_day, parts.until) {
                (Some(_), Some((until, _))) => {
                    return Err(twice(parts.day.map_or("", |d| d.0), until, "last days"));
                }
                (last, until) => last.or(until.map(|u| u.1)),
            };
            series(&mut fields, repeat, first, until, text)?;
        }
    }
    Ok(fields)
}

/// The wall time `length` of real time after `start`: "23:00 for 5 hours"
/// on the night the clocks go back ends at 03:00.
fn elapsed_after(context: &Context, start: NaiveDateTime, length: TimeDelta) -> NaiveDateTime {
    match context.zone.from_local_datetime(&start).earliest() {
        Some(at) => (at + length).naive_local(),
        None => start + length,
    }
}

/// A wall time the display zone has: not one the clocks skip.
fn exists(context: &Context, at: NaiveDateTime) -> Result<(), QuickAddError> {
    match context.zone.from_local_datetime(&at) {
        LocalResult::None => Err(QuickAddError::new(format!(
            "{} does not exist in {} on {} (the clocks change).",
            format_time(at.time()),
            context.zone.name(),
            format_date(at.date())
        ))),
        _ => Ok(()),
    }
}

/// `fields` as a series repeating as `repeat` from `from` (its first
/// occurrence on or after that day) until `until`.
fn series(
    fields: &mut EventFields,
    repeat: &Repeat,
    from: NaiveDate,
    until: Option<NaiveDate>,
    text: &str,
) -> Result<(), QuickAddError> {
    let interval = |n: u32| (n > 1).then_some(Some(i64::from(n)));
    let mut first = from;
    match repeat {
        Repeat::Daily { interval: 1 } => {
            fields.kind = Some(EventType::Recurring);
            fields.days_of_week = Some(Some(DayOfWeek::ALL.to_vec()));
        }
        Repeat::Daily { interval: n } => {
            if let Some(until) = until
                && until < first
            {
                return Err(ends_before_first(text, first));
            }
            fields.kind = Some(EventType::Rrule);
            let mut rule = format!("FREQ=DAILY;INTERVAL={n}");
            if let Some(until) = until {
                rule.push_str(&format!(";UNTIL={}", until.format("%Y%m%d")));
            }
            fields.rrule = Some(Some(rule));
            fields.start_date = Some(Some(format_date(first)));
            return Ok(());
        }
        Repeat::Weekly { interval: n, days } => {
            fields.kind = Some(EventType::Recurring);
            let days: Vec<Weekday> = match days.is_empty() {
                true => vec![from.weekday()],
                false => days.clone(),
            };
            while !days.contains(&first.weekday()) {
                first = first.succ_opt().unwrap_or(first);
            }
            let mut letters: Vec<DayOfWeek> =
                days.into_iter().map(DayOfWeek::from_chrono).collect();
            letters.sort();
            letters.dedup();
            fields.days_of_week = Some(Some(letters));
            fields.repeat_interval = interval(*n);
        }
        Repeat::Monthly { interval: n } => {
            fields.kind = Some(EventType::Recurring);
            fields.day_of_month = Some(Some(i64::from(from.day())));
            fields.repeat_interval = interval(*n);
        }
        Repeat::Yearly { interval: n } => {
            fields.kind = Some(EventType::Recurring);
            fields.day_of_month = Some(Some(i64::from(from.day())));
            fields.month = Some(Some(i64::from(from.month())));
            fields.repeat_interval = interval(*n);
        }
    }
    if let Some(until) = until
        && until < first
    {
        return Err(ends_before_first(text, first));
    }
    fields.start_recur = Some(Some(format_date(first)));
    fields.end_recur = until.map(|d| Some(format_date(d)));
    Ok(())
}

fn ends_before_first(text: &str, first: NaiveDate) -> QuickAddError {
    QuickAddError::new(format!(
        "“{text}” would end before its first day, {}",
        format_date(first)
    ))
}

fn format_date(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

fn format_time(time: NaiveTime) -> String {
    time.format("%H:%M").to_string()
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};

    use super::super::{Context, parse};

    /// A length across the clocks going back that ends at or before its
    /// start on the wall clock is refused: the fields would read as an
    /// event of almost a day (found by the `quick_add` fuzz target:
    /// `fuzz/crashes/quick_add/`).
    #[test]
    fn a_length_ending_before_its_start_on_the_wall_clock_is_refused() {
        let context = Context {
            now: "2026-10-23T10:00:00Z".parse::<DateTime<Utc>>().unwrap(),
            zone: chrono_tz::Europe::Berlin,
            calendars: &[],
        };
        for line in [
            "Call 2:30am on 25 Oct for 30 minutes",
            "Call 2:30am on 25 Oct for 60 minutes",
        ] {
            let refused = parse(line, &context).unwrap_err().to_string();
            assert!(refused.contains("clocks go back"), "{line}: {refused}");
        }
        let longer = parse("Call 2:30am on 25 Oct for 2 hours", &context).unwrap();
        assert_eq!(longer.fields.start_time, Some(Some("02:30".into())));
        assert_eq!(longer.fields.end_time, Some(Some("03:30".into())));
    }

    /// "every 3 days" (an `rrule` series) ending before its first day is
    /// refused as "every day" is, not written with an `UNTIL` before its
    /// `startDate` (a series with no occurrence).
    #[test]
    fn an_rrule_series_ending_before_its_first_day_is_refused() {
        let context = Context {
            now: "2026-10-23T10:00:00Z".parse::<DateTime<Utc>>().unwrap(),
            zone: chrono_tz::Europe::Berlin,
            calendars: &[],
        };
        for line in [
            "Backup every day until 2026-01-01",
            "Backup every 3 days until 2026-01-01",
        ] {
            let refused = parse(line, &context).unwrap_err().to_string();
            assert!(refused.contains("would end before"), "{line}: {refused}");
        }
        let later = parse("Backup every 3 days until 2026-12-01", &context).unwrap();
        assert_eq!(
            later.fields.rrule,
            Some(Some("FREQ=DAILY;INTERVAL=3;UNTIL=20261201".into()))
        );
    }
}
