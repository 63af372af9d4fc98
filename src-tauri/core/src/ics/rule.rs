//! A series as iCalendar sees it: its `RRULE` value and its first
//! occurrence (`DTSTART` must be one, RFC 5545 §3.8.5.3, while a note's
//! `startRecur` / `startDate` only bounds the series).

use chrono::{Datelike, NaiveDate, NaiveTime, TimeZone};
use chrono_tz::Tz;

use crate::calendar::{Event, EventType};

const BYDAY: [&str; 7] = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

/// The `RRULE` value (no `RRULE:` prefix) of a series, `None` for a single
/// event. `UNTIL` is as the note states it (a date means its whole day).
pub fn series_rule(event: &Event) -> Option<String> {
    match event.kind {
        EventType::Single => None,
        EventType::Rrule => {
            let text = event.rrule.as_deref()?;
            let line = text
                .lines()
                .map(str::trim)
                .find(|l| l.to_ascii_uppercase().contains("FREQ="))?;
            let line = line
                .get(..6)
                .filter(|p| p.eq_ignore_ascii_case("RRULE:"))
                .map_or(line, |_| &line[6..]);
            Some(line.to_string())
        }
        EventType::Recurring => {
            let mut rule = if let Some(days) = event.days_of_week.as_ref().filter(|d| !d.is_empty())
            {
                let days: Vec<&str> = days.iter().map(|d| BYDAY[*d as usize]).collect();
                format!("FREQ=WEEKLY;BYDAY={}", days.join(","))
            } else if let Some(on) = event.repeat_on {
                let day = BYDAY.get(usize::try_from(on.weekday).ok()?)?;
                format!("FREQ=MONTHLY;BYDAY={day};BYSETPOS={}", on.week)
            } else if let (Some(month), Some(day)) = (event.month, event.day_of_month) {
                format!("FREQ=YEARLY;BYMONTH={month};BYMONTHDAY={day}")
            } else {
                format!("FREQ=MONTHLY;BYMONTHDAY={}", event.day_of_month?)
            };
            if let Some(n) = event.repeat_interval.filter(|n| *n > 1) {
                rule.push_str(&format!(";INTERVAL={n}"));
            }
            if let Some(end) = event.end_recur.as_deref() {
                rule.push_str(&format!(";UNTIL={}", end.replace('-', "")));
            }
            Some(rule)
        }
    }
}

/// The day a series starts counting from (`startRecur` / `startDate`,
/// else `date`).
pub fn anchor(event: &Event) -> Option<NaiveDate> {
    let text = match event.kind {
        EventType::Single => None,
        EventType::Recurring => event.start_recur.as_deref(),
        EventType::Rrule => event.start_date.as_deref(),
    };
    text.or(Some(event.date.as_str()))
        .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
}

/// `rule` with a date-only or local `UNTIL` turned into UTC, as RFC 5545
/// requires beside a zoned `DTSTART`: a date means the end of that day in
/// `zone`. `zone` `None` (all-day series) leaves `UNTIL` a date.
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

fn until_utc(value: &str, zone: Tz) -> String {
    let value = value.trim();
    if value.ends_with(['Z', 'z']) {
        return value.to_uppercase();
    }
    let local = chrono::NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S")
        .ok()
        .or_else(|| {
            NaiveDate::parse_from_str(value, "%Y%m%d")
                .ok()
                .and_then(|d| d.and_hms_opt(23, 59, 59))
        });
    match local.and_then(|l| zone.from_local_datetime(&l).earliest()) {
        Some(t) => t
            .with_timezone(&chrono::Utc)
            .format("%Y%m%dT%H%M%SZ")
            .to_string(),
        None => value.to_string(),
    }
}

/// The first day on or after `anchor` the rule produces (the anchor itself
/// when the rule cannot be evaluated, so nothing is lost).
pub fn first_occurrence(rule: &str, anchor: NaiveDate) -> NaiveDate {
    let rule = with_until_utc(rule, Some(Tz::UTC));
    let text = format!(
        "DTSTART:{}\nRRULE:{rule}",
        anchor.and_time(NaiveTime::MIN).format("%Y%m%dT%H%M%SZ")
    );
    text.parse::<rrule::RRuleSet>()
        .ok()
        .and_then(|set| set.all(1).dates.first().map(|d| d.date_naive()))
        .filter(|d| d.year() >= anchor.year())
        .unwrap_or(anchor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::DayOfWeek;

    #[test]
    fn a_weekly_note_series_starts_on_its_first_weekday() {
        let event = Event {
            kind: EventType::Recurring,
            date: "2024-01-01".into(),
            start_recur: Some("2024-01-03".into()),
            end_recur: Some("2024-02-01".into()),
            days_of_week: Some(vec![DayOfWeek::Monday, DayOfWeek::Friday]),
            ..Event::default()
        };
        let rule = series_rule(&event).unwrap();
        assert_eq!(rule, "FREQ=WEEKLY;BYDAY=MO,FR;UNTIL=20240201");
        let first = first_occurrence(&rule, anchor(&event).unwrap());
        assert_eq!(first, NaiveDate::from_ymd_opt(2024, 1, 5).unwrap());
        assert_eq!(
            with_until_utc(&rule, Some(chrono_tz::Europe::Berlin)),
            "FREQ=WEEKLY;BYDAY=MO,FR;UNTIL=20240201T225959Z"
        );
    }

    #[test]
    fn an_rrule_note_keeps_its_rule_line() {
        let event = Event {
            kind: EventType::Rrule,
            date: "2024-01-01".into(),
            start_date: Some("2024-01-01".into()),
            rrule: Some("DTSTART:20240101\nRRULE:FREQ=MONTHLY;BYMONTHDAY=15".into()),
            ..Event::default()
        };
        let rule = series_rule(&event).unwrap();
        assert_eq!(rule, "FREQ=MONTHLY;BYMONTHDAY=15");
        assert_eq!(
            first_occurrence(&rule, anchor(&event).unwrap()),
            NaiveDate::from_ymd_opt(2024, 1, 15).unwrap()
        );
    }
}
