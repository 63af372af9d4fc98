//! The values of a VEVENT's date and time properties (RFC 5545 §3.3):
//! DATE, DATE-TIME (UTC, floating or in a `TZID`), DURATION and PERIOD, as
//! [`super::events`] reads them.

use chrono::{Duration, NaiveDate, NaiveDateTime};
use chrono_tz::Tz;
use icalendar::parser::{Component, Property};

use super::zone::{Zone, Zones};
use almanac_model::event::{Alarm, AlarmAction};
use almanac_model::query::local_to_millis;
use almanac_model::spec::MAX_ALARM_MINUTES;

/// A DATE or DATE-TIME value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum IcsTime {
    Date(NaiveDate),
    Floating(NaiveDateTime),
    Utc(NaiveDateTime),
    Zoned(NaiveDateTime, Tz),
}

impl IcsTime {
    /// The wall-clock time in `zone` (a date: its midnight; floating: as is).
    pub(crate) fn local(self, zone: Tz) -> NaiveDateTime {
        let convert = |utc: NaiveDateTime| utc.and_utc().with_timezone(&zone).naive_local();
        match self {
            IcsTime::Date(d) => d.and_time(chrono::NaiveTime::MIN),
            IcsTime::Floating(t) => t,
            IcsTime::Utc(t) => convert(t),
            IcsTime::Zoned(t, tz) if tz == zone => t,
            IcsTime::Zoned(t, tz) => {
                chrono::DateTime::from_timestamp_millis(local_to_millis(t, tz))
                    .map_or(t, |instant| convert(instant.naive_utc()))
            }
        }
    }
}

pub(crate) fn param<'p>(property: &'p Property<'_>, key: &str) -> Option<&'p str> {
    property
        .params
        .iter()
        .find(|p| p.key.as_str().eq_ignore_ascii_case(key))
        .and_then(|p| p.val.as_ref())
        .map(|v| v.as_str().trim_matches('"'))
}

/// Lengths beyond this (a century) are no event's, and would overflow the
/// date arithmetic.
pub(crate) const MAX_LENGTH_DAYS: i64 = 100 * 366;

/// A `DURATION` or a PERIOD's length (`P1DT2H`, `-PT15M`).
pub(crate) fn duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let d = Duration::from_std(iso8601::duration(text).ok()?.into()).ok()?;
    (d.num_days() <= MAX_LENGTH_DAYS).then_some(if negative { -d } else { d })
}

/// The alarms of a VEVENT that remind before it starts, in order: each
/// `VALARM` that shows or sounds (`ACTION` `DISPLAY`, `AUDIO` or none) with
/// a `TRIGGER` a duration before (or at) the start, at most a week before
/// (the longest lead an event's `alarms` take). An absolute trigger, one
/// relative to the end, one after the start and an e-mail alarm are left
/// out: none is a lead before the start that a notification can keep.
pub(crate) fn alarms(vevent: &Component<'_>) -> Vec<Alarm> {
    let shown = |alarm: &Component<'_>| {
        let action = alarm.find_prop("ACTION").map(|a| a.val.as_str().trim());
        match action {
            None => Some(AlarmAction::Display),
            Some(a) if a.eq_ignore_ascii_case("DISPLAY") => Some(AlarmAction::Display),
            Some(a) if a.eq_ignore_ascii_case("AUDIO") => Some(AlarmAction::Audio),
            Some(_) => None,
        }
    };
    let lead = |alarm: &Component<'_>| {
        let trigger = alarm.find_prop("TRIGGER")?;
        let from_end = param(trigger, "RELATED").is_some_and(|r| r.eq_ignore_ascii_case("END"));
        let absolute = param(trigger, "VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE-TIME"));
        if from_end || absolute {
            return None;
        }
        let minutes = (-duration(trigger.val.as_str())?).num_minutes();
        (0..=MAX_ALARM_MINUTES)
            .contains(&minutes)
            .then_some(minutes)
    };
    vevent
        .components
        .iter()
        .filter(|c| c.name.as_str().eq_ignore_ascii_case("VALARM"))
        .filter_map(|alarm| {
            Some(Alarm {
                action: shown(alarm)?,
                minutes_before: lead(alarm)?,
            })
        })
        .collect()
}

/// The values of a DATE / DATE-TIME / PERIOD property, each with the length
/// a PERIOD gives it.
pub(crate) fn values(
    property: &Property<'_>,
    zones: &Zones,
) -> Result<Vec<(IcsTime, Option<PeriodEnd>)>, String> {
    let tz = param(property, "TZID")
        .map(|id| zones.resolve(id))
        .transpose()?
        .flatten();
    let date_only = param(property, "VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE"));
    property
        .val
        .as_str()
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|value| {
            let (start, end) = match value.split_once('/') {
                Some((start, end)) => (start, Some(end)),
                None => (value, None),
            };
            let start = time_value(start, tz, date_only)?;
            let end = match end {
                None => None,
                Some(end) if end.starts_with(['P', '+', '-']) => Some(PeriodEnd::Length(
                    duration(end).ok_or_else(|| format!("bad period `{value}`"))?,
                )),
                Some(end) => Some(PeriodEnd::At(time_value(end, tz, false)?)),
            };
            Ok((start, end))
        })
        .collect()
}

/// How a PERIOD ends.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PeriodEnd {
    At(IcsTime),
    Length(Duration),
}

pub(crate) fn first_value(property: &Property<'_>, zones: &Zones) -> Result<IcsTime, String> {
    values(property, zones)?
        .into_iter()
        .next()
        .map(|(t, _)| t)
        .ok_or_else(|| "no value".to_string())
}

pub(crate) fn time_value(text: &str, tz: Option<Zone>, date_only: bool) -> Result<IcsTime, String> {
    let bad = || format!("`{text}` is not an iCalendar date or date-time");
    if date_only || text.len() == 8 {
        return NaiveDate::parse_from_str(text, "%Y%m%d")
            .map(IcsTime::Date)
            .map_err(|_| bad());
    }
    let (local, utc) = match text.strip_suffix(['Z', 'z']) {
        Some(local) => (local, true),
        None => (text, false),
    };
    let time = NaiveDateTime::parse_from_str(local, "%Y%m%dT%H%M%S").map_err(|_| bad())?;
    Ok(match (utc, tz) {
        (true, _) => IcsTime::Utc(time),
        (false, Some(Zone::Iana(tz))) => IcsTime::Zoned(time, tz),
        // One offset for all time: the time is an instant, and a series
        // of it repeats in UTC exactly as in its own zone.
        (false, Some(Zone::Fixed(east))) => IcsTime::Utc(time - Duration::seconds(i64::from(east))),
        (false, None) => IcsTime::Floating(time),
    })
}
