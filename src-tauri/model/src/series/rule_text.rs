//! RRULE text as both the recurrence engine and the iCalendar writer need it:
//! the rule a `recurring` note series stands for, the rule line of an `rrule`
//! note, and `UNTIL` in UTC. Kept in one place so that the calendar view, a
//! feed and a CalDAV client see the same days of a series.

use chrono::{NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;

use crate::event::{DayOfWeek, RepeatOn};

const BYDAY: [&str; 7] = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

/// The fields a `recurring` note series repeats by.
pub struct Pattern<'a> {
    pub days_of_week: &'a [DayOfWeek],
    pub repeat_on: Option<RepeatOn>,
    pub month: Option<i64>,
    pub day_of_month: Option<i64>,
    /// Every n-th week / month / year, counted from `startRecur`.
    pub interval: Option<i64>,
    /// The series' last day.
    pub end_recur: Option<NaiveDate>,
}

impl Pattern<'_> {
    /// The RRULE value (no `RRULE:` prefix), built the way Full Calendar
    /// builds it for its calendar view: weekly on the days given, monthly on
    /// a day or on a numbered weekday (`BYSETPOS`), yearly on a month's day;
    /// `UNTIL` is the last day as a date. `None` when the fields name no day.
    pub fn rule(&self) -> Option<String> {
        let mut rule = if !self.days_of_week.is_empty() {
            let days: Vec<&str> = self
                .days_of_week
                .iter()
                .map(|d| BYDAY[*d as usize])
                .collect();
            format!("FREQ=WEEKLY;BYDAY={}", days.join(","))
        } else if let Some(on) = self.repeat_on {
            let day = BYDAY.get(usize::try_from(on.weekday).ok()?)?;
            format!("FREQ=MONTHLY;BYDAY={day};BYSETPOS={}", on.week)
        } else if let (Some(month), Some(day)) = (self.month, self.day_of_month) {
            format!("FREQ=YEARLY;BYMONTH={month};BYMONTHDAY={day}")
        } else {
            format!("FREQ=MONTHLY;BYMONTHDAY={}", self.day_of_month?)
        };
        if let Some(n) = self.interval.filter(|n| *n > 1) {
            rule.push_str(&format!(";INTERVAL={n}"));
        }
        if let Some(end) = self.end_recur {
            rule.push_str(&format!(";UNTIL={}", end.format("%Y%m%d")));
        }
        Some(rule)
    }
}

/// The rule of Full Calendar's `rrule` text: its `RRULE` line (`FREQ=…;…`,
/// with or without the `RRULE:` prefix), possibly among other lines (a
/// `DTSTART` there is ignored: the series starts at `startDate`).
pub fn rule_line(text: &str) -> Option<&str> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| l.to_ascii_uppercase().contains("FREQ="))?;
    Some(
        line.get(..6)
            .filter(|prefix| prefix.eq_ignore_ascii_case("RRULE:"))
            .map_or(line, |_| &line[6..]),
    )
}

/// `rule` with a date-only or local `UNTIL` turned into UTC, as the `rrule`
/// crate and RFC 5545 (beside a zoned `DTSTART`) want it: a date means the
/// end of that day in `zone`. `zone` `None` (an all-day series) leaves
/// `UNTIL` a date.
pub fn with_until_utc(rule: &str, zone: Option<Tz>) -> String {
    rule.split(';')
        .map(|part| match (part.split_once('='), zone) {
            (Some((key, value)), Some(zone)) if key.eq_ignore_ascii_case("UNTIL") => {
                format!("UNTIL={}", until_utc(value, zone))
            }
            (Some((key, value)), None) if key.eq_ignore_ascii_case("UNTIL") => {
                format!("UNTIL={}", value.get(..8).unwrap_or(value))
            }
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// `UNTIL` as UTC `YYYYMMDDTHHMMSSZ`; a value that is neither a date nor a
/// local date-time is left as it is (for the parser to report).
fn until_utc(value: &str, zone: Tz) -> String {
    let value = value.trim();
    if value.ends_with(['Z', 'z']) {
        return value.to_uppercase();
    }
    let local = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S")
        .ok()
        .or_else(|| {
            NaiveDate::parse_from_str(value, "%Y%m%d")
                .ok()
                .and_then(|d| d.and_hms_opt(23, 59, 59))
        });
    match local.and_then(|l| zone.from_local_datetime(&l).earliest()) {
        Some(t) => t.naive_utc().format("%Y%m%dT%H%M%SZ").to_string(),
        None => value.to_string(),
    }
}
