//! Events → `VCALENDAR` text.
//!
//! Times are written in the event's own zone (`timezone`, else the display
//! zone) with a `TZID` and a matching `VTIMEZONE`; UTC is written with `Z`.
//! A series starts (`DTSTART`) on its first real occurrence and carries its
//! `RRULE`, with `UNTIL` in UTC beside a zoned start, and its `skipDates` as
//! `EXDATE`s. All-day events use `VALUE=DATE` and an exclusive `DTEND`.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;

use super::rule::{anchor, first_occurrence, series_rule};
use super::text::{param, raw_line, text_line};
use super::vtimezone::vtimezone;
use almanac_model::event::{Completion, Event};
use almanac_model::series::rule_text::with_until_utc;

/// One `VEVENT` (or `VTODO`, see [`calendar_with_todos`]) to write.
pub struct Component<'a> {
    /// The `UID` (a CalDAV resource's components share one).
    pub uid: &'a str,
    pub event: &'a Event,
    /// A modified occurrence of a series: its `RECURRENCE-ID` as a local
    /// `YYYYMMDDTHHMMSS` in the event's zone.
    pub recurrence_id: Option<&'a str>,
}

/// Years of zone transitions a `VTIMEZONE` covers past the current year, so
/// series running on are right for the next decade.
const ZONE_YEARS_AHEAD: i32 = 10;

/// A whole `VCALENDAR` of `components`, all `VEVENT`s (tasks included: a
/// subscribed feed or a remote calendar may take nothing else); `name`
/// becomes `X-WR-CALNAME` (feeds). `stamp` is the `DTSTAMP` of every
/// component.
pub fn calendar(
    components: &[Component<'_>],
    name: Option<&str>,
    display_tz: Tz,
    stamp: DateTime<Utc>,
) -> String {
    render(components, name, display_tz, stamp, false)
}

/// [`calendar`], with tasks as `VTODO`s ([`super::todo`]): what the CalDAV
/// server's collections serve.
pub fn calendar_with_todos(
    components: &[Component<'_>],
    display_tz: Tz,
    stamp: DateTime<Utc>,
) -> String {
    render(components, None, display_tz, stamp, true)
}

fn render(
    components: &[Component<'_>],
    name: Option<&str>,
    display_tz: Tz,
    stamp: DateTime<Utc>,
    todos: bool,
) -> String {
    let mut body = String::new();
    // Zone → (first year, last year) used.
    let mut zones: BTreeMap<&'static str, (Tz, i32, i32)> = BTreeMap::new();
    for component in components {
        let task = component.event.completed.as_ref().filter(|_| todos);
        vevent(&mut body, component, task, display_tz, stamp, &mut zones);
    }
    let mut out = String::with_capacity(body.len() + 512);
    out.push_str("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
    raw_line(&mut out, "PRODID", "-//Almanac//Almanac calendar//EN");
    out.push_str("CALSCALE:GREGORIAN\r\n");
    if let Some(name) = name {
        text_line(&mut out, "X-WR-CALNAME", name);
    }
    let this_year = Utc::now().year();
    for (tz, first, last) in zones.values() {
        let last = (*last).max(this_year) + ZONE_YEARS_AHEAD;
        out.push_str(&vtimezone(*tz, first - 1, last));
    }
    out.push_str(&body);
    out.push_str("END:VCALENDAR\r\n");
    out
}

/// How an event's times are written.
enum Zone {
    AllDay,
    Utc,
    Named(Tz),
}

impl Zone {
    fn of(event: &Event, display_tz: Tz) -> Zone {
        if event.all_day || event.start_time.is_none() {
            return Zone::AllDay;
        }
        let tz = event
            .timezone
            .as_deref()
            .and_then(|name| name.parse::<Tz>().ok())
            .unwrap_or(display_tz);
        if tz == Tz::UTC {
            Zone::Utc
        } else {
            Zone::Named(tz)
        }
    }

    /// `NAME[;params]` and value of a date-time property.
    fn property(&self, name: &str, at: NaiveDateTime) -> (String, String) {
        match self {
            Zone::AllDay => (
                format!("{name};VALUE=DATE"),
                at.format("%Y%m%d").to_string(),
            ),
            Zone::Utc => (name.to_string(), at.format("%Y%m%dT%H%M%SZ").to_string()),
            Zone::Named(tz) => (
                format!("{name}{}", param("TZID", tz.name())),
                at.format("%Y%m%dT%H%M%S").to_string(),
            ),
        }
    }
}

fn date(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

fn time(text: Option<&str>) -> Option<NaiveTime> {
    NaiveTime::parse_from_str(text?, "%H:%M").ok()
}

/// One component: a `VEVENT`, or a `VTODO` when `task` is given.
fn vevent(
    out: &mut String,
    component: &Component<'_>,
    task: Option<&Completion>,
    display_tz: Tz,
    stamp: DateTime<Utc>,
    zones: &mut BTreeMap<&'static str, (Tz, i32, i32)>,
) {
    let event = component.event;
    let zone = Zone::of(event, display_tz);
    let rule = if component.recurrence_id.is_none() {
        series_rule(event)
    } else {
        None
    };
    let Some(mut first) = date(&event.date) else {
        return;
    };
    if let Some(rule) = &rule {
        first = anchor(event).map_or(first, |a| first_occurrence(rule, a));
    }
    // Multi-day length, counted from `date`.
    let days = event
        .end_date
        .as_deref()
        .and_then(date)
        .and_then(|end| date(&event.date).map(|start| (end - start).num_days().max(0)))
        .unwrap_or(0);
    if let Zone::Named(tz) = zone {
        let entry = zones
            .entry(tz.name())
            .or_insert((tz, first.year(), first.year()));
        entry.1 = entry.1.min(first.year());
        entry.2 = entry
            .2
            .max(first.year() + i32::try_from(days / 365).unwrap_or(0));
    }
    let kind = if task.is_some() { "VTODO" } else { "VEVENT" };
    out.push_str(&format!("BEGIN:{kind}\r\n"));
    text_line(out, "UID", component.uid);
    raw_line(out, "DTSTAMP", &stamp.format("%Y%m%dT%H%M%SZ").to_string());
    let start_time = time(event.start_time.as_deref()).unwrap_or(NaiveTime::MIN);
    let start = first.and_time(start_time);
    let end = match zone {
        Zone::AllDay => Some(start + Duration::days(days + 1)),
        _ => time(event.end_time.as_deref()).map(|end_time| {
            let mut end = (first + Duration::days(days)).and_time(end_time);
            if end < start {
                end += Duration::days(1);
            }
            end
        }),
    };
    match task {
        None => {
            let (name, value) = zone.property("DTSTART", start);
            raw_line(out, &name, &value);
            if let Some(end) = end {
                let (name, value) = zone.property("DTEND", end);
                raw_line(out, &name, &value);
            }
        }
        Some(completion) => {
            // See `ics::todo`: DUE is the last day, the end, else the start.
            let due = match zone {
                Zone::AllDay => start + Duration::days(days),
                _ => end.unwrap_or(start),
            };
            if due != start || rule.is_some() {
                let (name, value) = zone.property("DTSTART", start);
                raw_line(out, &name, &value);
            }
            let (name, value) = zone.property("DUE", due);
            raw_line(out, &name, &value);
            super::todo::status_lines(out, completion, display_tz);
        }
    }
    if let Some(recurrence) = component.recurrence_id {
        let at = NaiveDateTime::parse_from_str(recurrence, "%Y%m%dT%H%M%S").unwrap_or(start);
        let (name, value) = zone.property("RECURRENCE-ID", at);
        raw_line(out, &name, &value);
    }
    if let Some(rule) = &rule {
        let until_zone = match zone {
            Zone::AllDay => None,
            Zone::Utc => Some(Tz::UTC),
            Zone::Named(tz) => Some(tz),
        };
        raw_line(out, "RRULE", &with_until_utc(rule, until_zone));
        for skipped in event.skip_dates.iter().filter_map(|d| date(d)) {
            let (name, value) = zone.property("EXDATE", skipped.and_time(start_time));
            raw_line(out, &name, &value);
        }
    }
    text_line(out, "SUMMARY", &event.title);
    for (name, value) in [
        ("DESCRIPTION", &event.description),
        ("LOCATION", &event.location),
        ("CATEGORIES", &event.category),
    ] {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            text_line(out, name, value);
        }
    }
    if let Some(class) = &event.class {
        raw_line(out, "CLASS", class);
    }
    for relation in event.related_to.iter().flatten() {
        let name = match &relation.rel_type {
            Some(kind) => format!("RELATED-TO{}", param("RELTYPE", kind)),
            None => "RELATED-TO".to_string(),
        };
        text_line(out, &name, &relation.uid);
    }
    if let Some(url) = event.url.as_deref().filter(|u| !u.is_empty()) {
        raw_line(out, "URL", url);
    }
    for alarm in event.alarms.iter().flatten() {
        out.push_str("BEGIN:VALARM\r\n");
        raw_line(out, "ACTION", "DISPLAY");
        raw_line(out, "TRIGGER", &format!("-PT{}M", alarm.minutes_before));
        text_line(out, "DESCRIPTION", &event.title);
        out.push_str("END:VALARM\r\n");
    }
    out.push_str(&format!("END:{kind}\r\n"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use almanac_model::event::{DayOfWeek, EventType};

    fn stamp() -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000, 0).unwrap()
    }

    fn unfolded(text: &str) -> String {
        text.replace("\r\n ", "")
    }

    #[test]
    fn a_timed_event_in_a_zone_has_its_vtimezone() {
        let event = Event {
            title: "Standup; daily".into(),
            date: "2024-03-05".into(),
            start_time: Some("09:30".into()),
            end_time: Some("10:00".into()),
            timezone: Some("Europe/Berlin".into()),
            ..Event::default()
        };
        let text = calendar(
            &[Component {
                uid: "u1",
                event: &event,
                recurrence_id: None,
            }],
            None,
            chrono_tz::UTC,
            stamp(),
        );
        let text = unfolded(&text);
        assert!(
            text.contains("DTSTART;TZID=Europe/Berlin:20240305T093000\r\n"),
            "{text}"
        );
        assert!(text.contains("DTEND;TZID=Europe/Berlin:20240305T100000\r\n"));
        assert!(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin"));
        assert!(text.contains("SUMMARY:Standup\\; daily\r\n"));
        assert!(text.contains("DTSTAMP:20231114T221320Z\r\n"));
    }

    #[test]
    fn class_and_relations_are_written_as_kept() {
        let event = Event {
            title: "Private".into(),
            date: "2024-03-05".into(),
            all_day: true,
            class: Some("PRIVATE".into()),
            related_to: Some(vec![
                almanac_model::event::Relation {
                    uid: "parent;1".into(),
                    rel_type: None,
                },
                almanac_model::event::Relation {
                    uid: "kid-2".into(),
                    rel_type: Some("CHILD".into()),
                },
            ]),
            ..Event::default()
        };
        let text = calendar(
            &[Component {
                uid: "p",
                event: &event,
                recurrence_id: None,
            }],
            None,
            chrono_tz::UTC,
            stamp(),
        );
        let text = unfolded(&text);
        assert!(text.contains("CLASS:PRIVATE\r\n"), "{text}");
        assert!(text.contains("RELATED-TO:parent\\;1\r\n"), "{text}");
        assert!(
            text.contains("RELATED-TO;RELTYPE=CHILD:kid-2\r\n"),
            "{text}"
        );
        let read = crate::ics::series::read_series(&text, chrono_tz::UTC)
            .unwrap()
            .master
            .fields;
        assert_eq!(read.class, Some(event.class.clone()));
        assert_eq!(read.related_to, Some(event.related_to.clone()));
    }

    #[test]
    fn a_weekly_series_becomes_an_rrule_with_exdates() {
        let event = Event {
            title: "Gym".into(),
            kind: EventType::Recurring,
            date: "2024-01-01".into(),
            start_recur: Some("2024-01-01".into()),
            end_recur: Some("2024-03-01".into()),
            days_of_week: Some(vec![DayOfWeek::Wednesday]),
            skip_dates: vec!["2024-01-10".into()],
            all_day: true,
            ..Event::default()
        };
        let text = calendar(
            &[Component {
                uid: "gym",
                event: &event,
                recurrence_id: None,
            }],
            Some("Mine"),
            chrono_tz::UTC,
            stamp(),
        );
        assert!(text.contains("DTSTART;VALUE=DATE:20240103\r\n"), "{text}");
        assert!(text.contains("DTEND;VALUE=DATE:20240104\r\n"));
        assert!(text.contains("RRULE:FREQ=WEEKLY;BYDAY=WE;UNTIL=20240301\r\n"));
        assert!(text.contains("EXDATE;VALUE=DATE:20240110\r\n"));
        assert!(text.contains("X-WR-CALNAME:Mine\r\n"));
        assert!(!text.contains("VTIMEZONE"));
    }
}
