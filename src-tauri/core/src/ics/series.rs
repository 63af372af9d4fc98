//! A client's `VCALENDAR` holding a series with modified or cancelled
//! occurrences: the master `VEVENT` and one `VEVENT` per `RECURRENCE-ID`
//! (RFC 5545 §3.8.4.4), as Thunderbird, Apple Calendar and GNOME Calendar
//! send when one meeting of a series is moved or cancelled.
//!
//! The master is read as a lone event is ([`super::read::fields_of`]); each
//! override becomes the date of the occurrence it replaces (in the
//! master's zone, as a note's `skipDates` are) and, unless it is
//! `STATUS:CANCELLED`, its own fields.

use chrono::NaiveDate;
use chrono_tz::Tz;
use icalendar::{CalendarComponent, CalendarDateTime, Component, DatePerhapsTime, EventStatus};

use super::read::{ClientEvent, fields_of, local, utc_without_tzid};
use super::zone::named_zone;
use almanac_model::fields::EventFields;

/// One occurrence the client changed.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientOverride {
    /// The date of the occurrence it replaces, in the series' zone.
    pub date: NaiveDate,
    /// `STATUS:CANCELLED`: the occurrence is gone (its fields are unread).
    pub cancelled: bool,
    pub fields: EventFields,
}

/// A series (or a lone event) and the occurrences the client changed.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientSeries {
    pub master: ClientEvent,
    pub overrides: Vec<ClientOverride>,
}

/// Reads the master `VEVENT` and its overrides. The error says what is
/// wrong, in words a client can show.
pub fn read_series(text: &str, display_tz: Tz) -> Result<ClientSeries, String> {
    let limits = &super::bounds::Limits::RESOURCE;
    let unfolded = super::bounds::unfold_bounded(text, limits).map_err(|e| e.to_string())?;
    let unfolded = utc_without_tzid(&unfolded);
    let mut parsed = super::bounds::parse_bounded(&unfolded, limits).map_err(|e| e.to_string())?;
    super::read::keep_every_related_to(&mut parsed.components);
    // A task is read as the event it is placed as (see `ics::todo`).
    let task = super::todo::as_event(&mut parsed.components, display_tz)?;
    let calendar: icalendar::Calendar = parsed.into();
    let events: Vec<&icalendar::Event> = calendar
        .components
        .iter()
        .filter_map(|c| match c {
            CalendarComponent::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let (masters, overrides): (Vec<_>, Vec<_>) = events
        .into_iter()
        .partition(|e| e.get_recurrence_id().is_none());
    let master = match masters.as_slice() {
        [] if overrides.is_empty() => {
            return Err("the calendar object holds no VEVENT or VTODO".into());
        }
        [] => {
            return Err(
                "modified occurrences (RECURRENCE-ID) need their series' VEVENT in the same \
                 calendar object"
                    .into(),
            );
        }
        [one] => *one,
        _ => {
            return Err(
                "several VEVENTs without RECURRENCE-ID: a calendar object holds one event".into(),
            );
        }
    };
    let uid = master
        .get_uid()
        .map(str::to_string)
        .filter(|u| !u.trim().is_empty())
        .ok_or("the VEVENT has no UID")?;
    let mut fields = fields_of(master, display_tz)?;
    if let Some(task) = task {
        task.apply(&mut fields);
    }
    if !overrides.is_empty() && fields.rrule.as_ref().is_none_or(Option::is_none) {
        return Err("modified occurrences (RECURRENCE-ID) belong to a series with an RRULE".into());
    }
    let zone = series_zone(master, display_tz);
    let mut read = Vec::with_capacity(overrides.len());
    for event in overrides {
        if event.get_uid() != Some(uid.as_str()) {
            return Err("every VEVENT of a calendar object has the same UID".into());
        }
        let Some(rid) = event.get_recurrence_id() else {
            continue;
        };
        let date = local(&rid, zone).date();
        if read.iter().any(|o: &ClientOverride| o.date == date) {
            return Err(format!("two VEVENTs modify the occurrence of {date}"));
        }
        let cancelled = event.get_status() == Some(EventStatus::Cancelled);
        let fields = if cancelled {
            EventFields::default()
        } else {
            fields_of(event, display_tz).map_err(|e| format!("the occurrence of {date}: {e}"))?
        };
        read.push(ClientOverride {
            date,
            cancelled,
            fields,
        });
    }
    Ok(ClientSeries {
        master: ClientEvent { uid, fields },
        overrides: read,
    })
}

/// The zone the master's `DTSTART` is in: what its occurrences' dates are
/// counted in (UTC and floating times land in the display zone, as the
/// master's own fields do).
fn series_zone(master: &icalendar::Event, display_tz: Tz) -> Tz {
    match master.get_start() {
        Some(DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone { tzid, .. })) => {
            named_zone(&tzid).unwrap_or(display_tz)
        }
        _ => display_tz,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERIES: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n\
        BEGIN:VEVENT\r\nUID:s1\r\nDTSTART;TZID=Europe/Berlin:20240304T090000\r\n\
        DTEND;TZID=Europe/Berlin:20240304T093000\r\nRRULE:FREQ=WEEKLY\r\nSUMMARY:Standup\r\n\
        END:VEVENT\r\n";

    fn with(overrides: &str) -> String {
        format!("{SERIES}{overrides}END:VCALENDAR\r\n")
    }

    #[test]
    fn a_moved_and_a_cancelled_occurrence_are_read_by_the_date_they_replace() {
        let text = with(
            "BEGIN:VEVENT\r\nUID:s1\r\nRECURRENCE-ID:20240311T080000Z\r\n\
             DTSTART;TZID=Europe/Berlin:20240312T140000\r\n\
             DTEND;TZID=Europe/Berlin:20240312T150000\r\nSUMMARY:Standup moved\r\nEND:VEVENT\r\n\
             BEGIN:VEVENT\r\nUID:s1\r\nRECURRENCE-ID;TZID=Europe/Berlin:20240318T090000\r\n\
             DTSTART;TZID=Europe/Berlin:20240318T090000\r\nSTATUS:CANCELLED\r\nEND:VEVENT\r\n",
        );
        let series = read_series(&text, chrono_tz::UTC).unwrap();
        assert_eq!(series.master.uid, "s1");
        assert_eq!(series.master.fields.title.as_deref(), Some("Standup"));
        let day = |d: &str| NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
        let [moved, cancelled] = series.overrides.as_slice() else {
            panic!("two overrides expected: {:?}", series.overrides);
        };
        assert_eq!((moved.date, moved.cancelled), (day("2024-03-11"), false));
        assert_eq!(moved.fields.title.as_deref(), Some("Standup moved"));
        assert_eq!(moved.fields.date, Some(Some("2024-03-12".into())));
        assert_eq!(moved.fields.start_time, Some(Some("14:00".into())));
        assert_eq!(
            (cancelled.date, cancelled.cancelled),
            (day("2024-03-18"), true)
        );
    }

    #[test]
    fn overrides_without_their_series_or_with_another_uid_are_refused() {
        let orphan = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:s1\r\n\
            RECURRENCE-ID:20240311T080000Z\r\nDTSTART:20240311T080000Z\r\nEND:VEVENT\r\n\
            END:VCALENDAR\r\n";
        assert!(read_series(orphan, chrono_tz::UTC).is_err());
        let other = with(
            "BEGIN:VEVENT\r\nUID:other\r\nRECURRENCE-ID:20240311T080000Z\r\n\
             DTSTART:20240311T080000Z\r\nEND:VEVENT\r\n",
        );
        assert!(read_series(&other, chrono_tz::UTC).is_err());
        let twice = with(
            "BEGIN:VEVENT\r\nUID:s1\r\nRECURRENCE-ID:20240311T080000Z\r\n\
             DTSTART:20240311T100000Z\r\nEND:VEVENT\r\n\
             BEGIN:VEVENT\r\nUID:s1\r\nRECURRENCE-ID:20240311T080000Z\r\n\
             DTSTART:20240311T110000Z\r\nEND:VEVENT\r\n",
        );
        assert!(read_series(&twice, chrono_tz::UTC).is_err());
    }
}
