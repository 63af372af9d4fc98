//! A series as iCalendar sees it: its `RRULE` value and its first
//! occurrence (`DTSTART` must be one, RFC 5545 §3.8.5.3, while a note's
//! `startRecur` / `startDate` only bounds the series).

use chrono::{Datelike, NaiveDate, NaiveTime, TimeZone};
use chrono_tz::Tz;

use almanac_model::event::{Event, EventType};
use almanac_model::series::rule_parse::parse_rrule;
use almanac_model::series::rule_text::{Pattern, rule_line, with_until_utc};

/// The `RRULE` value (no `RRULE:` prefix) of a series, `None` for a single
/// event. `UNTIL` is as the note states it (a date means its whole day).
pub fn series_rule(event: &Event) -> Option<String> {
    match event.kind {
        EventType::Single => None,
        EventType::Rrule => rule_line(event.rrule.as_deref()?).map(str::to_string),
        EventType::Recurring => Pattern {
            days_of_week: event.days_of_week.as_deref().unwrap_or_default(),
            repeat_on: event.repeat_on,
            month: event.month,
            day_of_month: event.day_of_month,
            interval: event.repeat_interval,
            end_recur: event.end_recur.as_deref().and_then(parse_day),
        }
        .rule(),
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
    text.or(Some(event.date.as_str())).and_then(parse_day)
}

fn parse_day(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// The first day on or after `anchor` the rule produces (the anchor itself
/// when the rule cannot be evaluated, so nothing is lost).
pub fn first_occurrence(rule: &str, anchor: NaiveDate) -> NaiveDate {
    let rule = with_until_utc(rule, Some(Tz::UTC));
    let start = rrule::Tz::UTC.from_utc_datetime(&anchor.and_time(NaiveTime::MIN));
    parse_rrule(&rule)
        .ok()
        .and_then(|rule| rule.build(start).ok())
        .and_then(|set| set.all(1).dates.first().map(|d| d.date_naive()))
        .filter(|d| d.year() >= anchor.year())
        .unwrap_or(anchor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use almanac_model::event::DayOfWeek;

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
