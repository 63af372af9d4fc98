//! Tasks as `VTODO`s (RFC 5545 §3.6.2), both ways.
//!
//! An Almanac task is an event with `completed` set; it sits on its date.
//! Served, it is a `VTODO` whose `DUE` is when it is due: an all-day task's
//! last day (a `DATE`), a timed task's end time, else its start time. Its
//! start is written as `DTSTART` only where it differs from `DUE` (a task
//! spanning days or hours) or the task repeats (an `RRULE` counts from
//! `DTSTART`). `STATUS` is `NEEDS-ACTION` or `COMPLETED`; a done task also
//! carries `PERCENT-COMPLETE:100` and, when the vault knows when, the
//! `COMPLETED` time in UTC.
//!
//! Read back, a client's `VTODO` is turned into the `VEVENT` shape the event
//! reader already knows ([`as_event`]): `DTSTART` and `DUE` become the start
//! and the end (an all-day `DUE` is the last day, so the end is the day after
//! it), a `DUE` alone is the task's start. `STATUS:COMPLETED` or
//! `CANCELLED`, a `COMPLETED` time or `PERCENT-COMPLETE:100` make it done
//! (the Tasks plugin's cancelled `[-]` is likewise a finished task). A
//! `VTODO` with neither `DTSTART` nor `DUE` has no date to give: a new one is
//! placed on the day it arrives, an edit keeps the task's date.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;
use icalendar::parser::{Component, Parameter, Property};

use super::text::raw_line;
use almanac_model::event::Completion;
use almanac_model::fields::EventFields;

/// The `STATUS`, `COMPLETED` and `PERCENT-COMPLETE` lines of a task.
pub(super) fn status_lines(out: &mut String, completion: &Completion, display_tz: Tz) {
    match completion {
        Completion::Open => raw_line(out, "STATUS", "NEEDS-ACTION"),
        Completion::Done(at) => {
            raw_line(out, "STATUS", "COMPLETED");
            if let Some(utc) = at.as_deref().and_then(|a| completed_utc(a, display_tz)) {
                raw_line(out, "COMPLETED", &utc.format("%Y%m%dT%H%M%SZ").to_string());
            }
            raw_line(out, "PERCENT-COMPLETE", "100");
        }
    }
}

/// A vault completion (a date, a date-time with or without offset) as a UTC
/// instant; a bare date or local time is read in the display zone.
fn completed_utc(at: &str, display_tz: Tz) -> Option<DateTime<Utc>> {
    let at = at.trim();
    if let Ok(instant) = DateTime::parse_from_rfc3339(at) {
        return Some(instant.with_timezone(&Utc));
    }
    let local = ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(at, f).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(at, "%Y-%m-%d")
                .ok()
                .map(|d| d.and_time(NaiveTime::MIN))
        })?;
    let millis = almanac_model::query::local_to_millis(local, display_tz);
    DateTime::from_timestamp_millis(millis)
}

/// What a client's `VTODO` says beyond the fields of an event.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TodoReading {
    completion: Completion,
    /// Neither `DTSTART` nor `DUE`.
    undated: bool,
}

impl TodoReading {
    /// Sets the task's state in `fields` (read from the converted
    /// component); an undated task leaves its date and times unchanged.
    pub(super) fn apply(self, fields: &mut EventFields) {
        fields.completed = Some(self.completion);
        if self.undated {
            fields.date = None;
            fields.end_date = None;
            fields.start_time = None;
            fields.end_time = None;
            fields.all_day = None;
            fields.timezone = None;
        }
    }
}

/// The name of a component the server does not store (`VJOURNAL`, …), when
/// the text holds no `VEVENT` or `VTODO` but one of those: the client is told
/// the calendar does not take that kind (`supported-calendar-component`).
pub fn unsupported_component(text: &str) -> Option<String> {
    let mut other = None;
    for line in text.lines().map(str::trim_end) {
        if !line
            .get(..6)
            .is_some_and(|h| h.eq_ignore_ascii_case("BEGIN:"))
        {
            continue;
        }
        let kind = line[6..].trim().to_ascii_uppercase();
        match kind.as_str() {
            "VEVENT" | "VTODO" => return None,
            "VJOURNAL" | "VFREEBUSY" | "VAVAILABILITY" => {
                other.get_or_insert(kind);
            }
            _ => {}
        }
    }
    other
}

/// Turns the `VTODO`s of a parsed calendar into `VEVENT`s the event reader
/// takes (see the module docs), when it holds tasks and no events; returns
/// what the first task says beyond an event's fields.
pub(super) fn as_event(
    components: &mut [Component<'_>],
    display_tz: Tz,
) -> Result<Option<TodoReading>, String> {
    let is = |c: &Component<'_>, name: &str| c.name.as_str().eq_ignore_ascii_case(name);
    if components.iter().any(|c| is(c, "VEVENT")) {
        return Ok(None);
    }
    let mut first = None;
    for todo in components.iter_mut().filter(|c| is(c, "VTODO")) {
        let reading = convert(todo, display_tz)?;
        first.get_or_insert(reading);
    }
    Ok(first)
}

fn convert(todo: &mut Component<'_>, display_tz: Tz) -> Result<TodoReading, String> {
    let value = |name: &str| {
        todo.properties
            .iter()
            .find(|p| p.name.as_str().eq_ignore_ascii_case(name))
            .map(|p| p.val.as_str().trim().to_string())
    };
    let status = value("STATUS").unwrap_or_default().to_ascii_uppercase();
    let completed_at = value("COMPLETED").map(|c| completed_text(&c)).transpose()?;
    let percent_done = value("PERCENT-COMPLETE").is_some_and(|p| p == "100");
    let done = matches!(status.as_str(), "COMPLETED" | "CANCELLED")
        || completed_at.is_some()
        || percent_done;
    let completion = if done {
        Completion::Done(completed_at)
    } else {
        Completion::Open
    };
    let has = |name: &str| value(name).is_some();
    let undated = !has("DTSTART") && !has("DUE");
    let has_start = has("DTSTART");
    // Apple Reminders sends DUE equal to DTSTART: a moment, not a span.
    let timing = |name: &str| {
        todo.properties
            .iter()
            .find(|p| p.name.as_str().eq_ignore_ascii_case(name))
            .map(|p| (p.val.as_str().trim(), &p.params))
    };
    let due_is_start = has_start && timing("DUE") == timing("DTSTART");
    todo.name = "VEVENT".to_string().into();
    let mut properties = std::mem::take(&mut todo.properties);
    properties.retain(|p| {
        let name = p.name.as_str().to_ascii_uppercase();
        // An event reader would take a DTEND or DURATION beside a DUE-only
        // start as the task's length; RFC 5545 allows neither there.
        !(matches!(name.as_str(), "DTEND")
            || (!has_start && name == "DURATION")
            || (due_is_start && name == "DUE"))
    });
    for property in &mut properties {
        if !property.name.as_str().eq_ignore_ascii_case("DUE") {
            continue;
        }
        if has_start {
            property.name = "DTEND".to_string().into();
            // DUE names the last day of an all-day task; DTEND is exclusive.
            if let Ok(day) = NaiveDate::parse_from_str(property.val.as_str().trim(), "%Y%m%d") {
                let after = day.succ_opt().unwrap_or(day);
                property.val = after.format("%Y%m%d").to_string().into();
            }
        } else {
            property.name = "DTSTART".to_string().into();
        }
    }
    if undated {
        // A placeholder the reader needs; `TodoReading::apply` drops it.
        let today = Utc::now().with_timezone(&display_tz).date_naive();
        properties.push(Property {
            name: "DTSTART".to_string().into(),
            val: today.format("%Y%m%d").to_string().into(),
            params: vec![Parameter {
                key: "VALUE".to_string().into(),
                val: Some("DATE".to_string().into()),
            }],
        });
    }
    todo.properties = properties;
    Ok(TodoReading {
        completion,
        undated,
    })
}

/// A `COMPLETED` value (RFC 5545: a UTC date-time) as the vault writes a
/// completion; a floating or dated value is kept as the local time it names.
fn completed_text(value: &str) -> Result<String, String> {
    if let Some(utc) = value.strip_suffix(['Z', 'z'])
        && let Ok(at) = NaiveDateTime::parse_from_str(utc, "%Y%m%dT%H%M%S")
    {
        return Ok(at.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    }
    if let Ok(at) = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S") {
        return Ok(at.format("%Y-%m-%dT%H:%M:%S").to_string());
    }
    if let Ok(day) = NaiveDate::parse_from_str(value, "%Y%m%d") {
        return Ok(day.format("%Y-%m-%d").to_string());
    }
    Err(format!("COMPLETED `{value}` is not a date-time"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ics::read::{ClientEvent, changes};
    use crate::ics::series::read_series;
    use almanac_model::event::Event;

    /// A client's lone task or event, as the server reads a `PUT`.
    fn read(text: &str, tz: chrono_tz::Tz) -> Result<ClientEvent, String> {
        read_series(text, tz).map(|series| series.master)
    }
    use crate::ics::write::{Component as Written, calendar, calendar_with_todos};

    fn served(event: &Event) -> String {
        let component = Written {
            uid: "t1",
            event,
            recurrence_id: None,
        };
        let stamp = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        calendar_with_todos(&[component], chrono_tz::Europe::Berlin, stamp).replace("\r\n ", "")
    }

    fn wrap(vtodo: &str) -> String {
        format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n{vtodo}END:VCALENDAR\r\n")
    }

    #[test]
    fn an_all_day_open_task_is_due_on_its_day_and_reads_back() {
        let task = Event {
            title: "Pay rent".into(),
            date: "2026-11-30".into(),
            all_day: true,
            completed: Some(Completion::Open),
            ..Event::default()
        };
        let text = served(&task);
        assert!(text.contains("BEGIN:VTODO\r\n"), "{text}");
        assert!(text.contains("DUE;VALUE=DATE:20261130\r\n"));
        assert!(text.contains("STATUS:NEEDS-ACTION\r\n"));
        for absent in ["DTSTART", "DTEND", "BEGIN:VEVENT", "COMPLETED:", "PERCENT"] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
        let fields = read(&text, chrono_tz::Europe::Berlin).unwrap().fields;
        assert_eq!(fields.date, Some(Some("2026-11-30".into())));
        // Feeds and remote calendars get the task as an event.
        let stamp = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let component = Written {
            uid: "t1",
            event: &task,
            recurrence_id: None,
        };
        let feed = calendar(&[component], None, chrono_tz::UTC, stamp);
        assert!(
            feed.contains("BEGIN:VEVENT") && !feed.contains("VTODO"),
            "{feed}"
        );
        assert_eq!(fields.all_day, Some(true));
        assert_eq!(fields.end_date, Some(None));
        assert_eq!(fields.completed, Some(Completion::Open));
        assert_eq!(fields.title.as_deref(), Some("Pay rent"));
    }

    #[test]
    fn a_done_timed_task_starts_is_due_at_its_end_and_says_when_it_was_done() {
        let task = Event {
            title: "Call".into(),
            date: "2026-07-01".into(),
            start_time: Some("09:00".into()),
            end_time: Some("09:30".into()),
            completed: Some(Completion::Done(Some("2026-07-01T10:15:00Z".into()))),
            ..Event::default()
        };
        let text = served(&task);
        assert!(
            text.contains("DTSTART;TZID=Europe/Berlin:20260701T090000\r\n"),
            "{text}"
        );
        assert!(text.contains("DUE;TZID=Europe/Berlin:20260701T093000\r\n"));
        assert!(text.contains(
            "STATUS:COMPLETED\r\nCOMPLETED:20260701T101500Z\r\nPERCENT-COMPLETE:100\r\n"
        ));
        let fields = read(&text, chrono_tz::Europe::Berlin).unwrap().fields;
        assert_eq!(fields.start_time, Some(Some("09:00".into())));
        assert_eq!(fields.end_time, Some(Some("09:30".into())));
        assert_eq!(
            fields.completed,
            Some(Completion::Done(Some("2026-07-01T10:15:00Z".into())))
        );
        // A daily-note `- [x]` knows no time: done, without COMPLETED.
        let ticked = Event {
            completed: Some(Completion::Done(None)),
            ..task
        };
        let text = served(&ticked);
        assert!(
            text.contains("STATUS:COMPLETED\r\nPERCENT-COMPLETE:100\r\n"),
            "{text}"
        );
        let fields = read(&text, chrono_tz::Europe::Berlin).unwrap().fields;
        assert_eq!(fields.completed, Some(Completion::Done(None)));
    }

    #[test]
    fn a_client_task_is_placed_by_due_or_start_and_completing_it_is_the_only_change() {
        let tz = chrono_tz::UTC;
        let due_only =
            wrap("BEGIN:VTODO\r\nUID:a\r\nSUMMARY:Report\r\nDUE:20260310T170000Z\r\nEND:VTODO\r\n");
        let fields = read(&due_only, tz).unwrap().fields;
        assert_eq!(fields.date, Some(Some("2026-03-10".into())));
        assert_eq!(fields.start_time, Some(Some("17:00".into())));
        assert_eq!(fields.end_time, Some(None));
        assert_eq!(fields.completed, Some(Completion::Open));
        // An all-day DUE is the last day, inclusive.
        let spanning = wrap(
            "BEGIN:VTODO\r\nUID:b\r\nDTSTART;VALUE=DATE:20260301\r\nDUE;VALUE=DATE:20260303\r\nEND:VTODO\r\n",
        );
        let fields = read(&spanning, tz).unwrap().fields;
        assert_eq!(fields.date, Some(Some("2026-03-01".into())));
        assert_eq!(fields.end_date, Some(Some("2026-03-03".into())));
        assert_eq!(fields.all_day, Some(true));
        // DUE equal to DTSTART (Apple Reminders): a moment, no end.
        let moment = wrap(
            "BEGIN:VTODO\r\nUID:m\r\nDTSTART:20260310T170000Z\r\nDUE:20260310T170000Z\r\nEND:VTODO\r\n",
        );
        let fields = read(&moment, tz).unwrap().fields;
        assert_eq!(fields.start_time, Some(Some("17:00".into())));
        assert_eq!(fields.end_time, Some(None));
        // Completed by a client: only `completed` differs.
        let done = due_only.replace(
            "END:VTODO",
            "STATUS:COMPLETED\r\nCOMPLETED:20260311T080000Z\r\nEND:VTODO",
        );
        let patch = changes(
            &read(&done, tz).unwrap().fields,
            &read(&due_only, tz).unwrap().fields,
        );
        assert_eq!(
            patch,
            EventFields {
                completed: Some(Completion::Done(Some("2026-03-11T08:00:00Z".into()))),
                ..EventFields::default()
            }
        );
        let bad = due_only.replace("END:VTODO", "COMPLETED:yesterday\r\nEND:VTODO");
        assert!(
            read(&bad, tz)
                .unwrap_err()
                .contains("COMPLETED `yesterday`")
        );
    }

    #[test]
    fn an_undated_task_leaves_the_date_alone() {
        let undated = wrap("BEGIN:VTODO\r\nUID:c\r\nSUMMARY:Someday\r\nEND:VTODO\r\n");
        let fields = read(&undated, chrono_tz::UTC).unwrap().fields;
        assert_eq!(fields.date, None);
        assert_eq!(fields.all_day, None);
        assert_eq!(fields.start_time, None);
        assert_eq!(fields.title.as_deref(), Some("Someday"));
        assert_eq!(fields.completed, Some(Completion::Open));
    }

    #[test]
    fn journals_are_named_as_unsupported_events_and_tasks_are_not() {
        let journal = wrap("BEGIN:VJOURNAL\r\nUID:j\r\nEND:VJOURNAL\r\n");
        assert_eq!(unsupported_component(&journal).as_deref(), Some("VJOURNAL"));
        let task = wrap("BEGIN:VTODO\r\nUID:t\r\nEND:VTODO\r\n");
        assert_eq!(unsupported_component(&task), None);
        assert_eq!(unsupported_component("BEGIN:VCALENDAR\r\n"), None);
    }
}
