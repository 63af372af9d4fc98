//! Times an assistant cannot misread. Every event REST and MCP answer with
//! carries, beside its own fields (`date`, `startTime`, `startMillis`, …),
//! its start and end in UTC and in the display zone, the display zone's
//! name, and how it is timed:
//!
//! - `zoned`: the event names its own zone (`timezone`), so it is one
//!   instant wherever the user is;
//! - `floating`: it names none, so its wall-clock times are read in the
//!   display zone, as Almanac reads them everywhere (`startMillis`,
//!   reminders, free/busy): `startUtc` is where it falls in the display zone
//!   today, and it moves with the wall clock if `displayTimezone` changes;
//! - `allDay`: it holds days, not instants: `startLocal` / `endLocal` are its
//!   first and last day (`YYYY-MM-DD`, inclusive) and `startUtc` / `endUtc`
//!   are `null` rather than an invented midnight.
//!
//! A time the event does not have (no end time; the one start of a series
//! not expanded into occurrences) is `null`. Local times are RFC 3339 with
//! the display zone's offset at that instant, so two events either side of
//! a DST change show their own offsets.
//!
//! Computed only here, from the event's [`EventClock`]: written straight
//! into each event's JSON for `GET /events` (whose events are copied as
//! bytes, never built), and as [`TimedEvent`] wherever one event is answered.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Offset, SecondsFormat, Timelike, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use utoipa::ToSchema;

use crate::calendar::{Event, EventClock, EventDetails, Location};
use almanac_model::spec::format_date;

/// How an event is placed in time: `zoned`, it names its own time zone
/// (`timezone`), so it is one instant wherever the user is; `floating`, it
/// names none, so its wall-clock times are read in the display zone (its
/// UTC times are where it falls there, and move with the wall clock if
/// `displayTimezone` changes); `allDay`, it holds days, not instants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Timing {
    Zoned,
    Floating,
    AllDay,
}

/// An event's start and end in UTC and in the display zone, the display
/// zone's name, and how the event is timed. Every member is always present,
/// `null` where the event has no such time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventTimes {
    pub timing: Timing,
    /// The IANA name of the display zone `startLocal` / `endLocal` are in
    /// (the settings' `displayTimezone`).
    #[schema(example = "Europe/Berlin")]
    pub display_zone: &'static str,
    /// The start, RFC 3339 in UTC; `null` for an all-day event and an
    /// unexpanded series.
    #[schema(required = true, example = "2026-03-30T07:00:00Z")]
    pub start_utc: Option<String>,
    /// The end, RFC 3339 in UTC; `null` for an all-day event, an unexpanded
    /// series and an event without an end time.
    #[schema(required = true, example = "2026-03-30T08:00:00Z")]
    pub end_utc: Option<String>,
    /// The start in the display zone, RFC 3339 with its offset then; for an
    /// all-day event its first day (`YYYY-MM-DD`).
    #[schema(required = true, example = "2026-03-30T09:00:00+02:00")]
    pub start_local: Option<String>,
    /// The end in the display zone, RFC 3339 with its offset then; for an
    /// all-day event its last day (`YYYY-MM-DD`, inclusive).
    #[schema(required = true, example = "2026-03-30T10:00:00+02:00")]
    pub end_local: Option<String>,
}

impl EventTimes {
    /// The times of an event placed as `clock` says, the display zone being
    /// `zone`.
    pub fn new(clock: EventClock, zone: Tz) -> Self {
        match clock {
            EventClock::AllDay { first, last } => Self {
                timing: Timing::AllDay,
                display_zone: zone.name(),
                start_utc: None,
                end_utc: None,
                start_local: first.map(format_date),
                end_local: last.map(format_date),
            },
            EventClock::Timed {
                own_zone,
                start_millis,
                end_millis,
            } => {
                let start = start_millis.and_then(DateTime::from_timestamp_millis);
                let end = end_millis.and_then(DateTime::from_timestamp_millis);
                Self {
                    timing: if own_zone {
                        Timing::Zoned
                    } else {
                        Timing::Floating
                    },
                    display_zone: zone.name(),
                    start_utc: start.map(utc_text),
                    end_utc: end.map(utc_text),
                    start_local: start.map(|at| local_text(at, zone)),
                    end_local: end.map(|at| local_text(at, zone)),
                }
            }
        }
    }

    /// The times of `event`, the display zone being `zone`.
    pub fn of(event: &Event, zone: Tz) -> Self {
        Self::new(clock_of(event), zone)
    }

    /// Writes the times of an event placed as `clock` says as members
    /// (`,"timing":…`) into its JSON object (the [`crate::calendar::EventMembers`]
    /// of `GET /events`): what serializing [`EventTimes`] writes, without
    /// serde's per-string escaping pass, since every value is ASCII that
    /// JSON needs no escape for (an IANA name, digits and `-+:.TZ`); the
    /// tests compare the two.
    pub fn write_members(out: &mut Vec<u8>, clock: EventClock, zone: Tz) {
        let times = Self::new(clock, zone);
        out.extend_from_slice(b",\"timing\":\"");
        out.extend_from_slice(match times.timing {
            Timing::Zoned => b"zoned",
            Timing::Floating => b"floating",
            Timing::AllDay => b"allDay",
        });
        out.extend_from_slice(b"\",\"displayZone\":\"");
        out.extend_from_slice(times.display_zone.as_bytes());
        out.push(b'"');
        for (name, value) in [
            ("startUtc", &times.start_utc),
            ("endUtc", &times.end_utc),
            ("startLocal", &times.start_local),
            ("endLocal", &times.end_local),
        ] {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            match value {
                Some(text) => {
                    out.push(b'"');
                    out.extend_from_slice(text.as_bytes());
                    out.push(b'"');
                }
                None => out.extend_from_slice(b"null"),
            }
        }
    }
}

/// Where `event` sits in time, read from its own fields as the engine
/// reports them (`date`/`endDate` of an all-day event; `startMillis`,
/// `endMillis` and `timezone` of a timed one).
fn clock_of(event: &Event) -> EventClock {
    if !event.all_day {
        return EventClock::Timed {
            own_zone: event.timezone.is_some(),
            start_millis: event.start_millis,
            end_millis: event.end_millis,
        };
    }
    let day = |text: &str| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok();
    let first = day(&event.date);
    // An end before the first day spans nothing past it, as the engine reads it.
    let last = match event.end_date.as_deref().and_then(day) {
        Some(end) => first.map(|first| end.max(first)),
        None => first,
    };
    EventClock::AllDay { first, last }
}

/// RFC 3339 in UTC (`…Z`), as chrono's `to_rfc3339_opts(AutoSi, true)`.
fn utc_text(at: DateTime<Utc>) -> String {
    rfc3339(at.naive_utc(), None).unwrap_or_else(|| at.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// RFC 3339 in `zone`, with the offset it has at that instant (never `Z`,
/// even where it is `+00:00`), as chrono's `to_rfc3339`.
pub fn local_text(at: DateTime<Utc>, zone: Tz) -> String {
    let local = at.with_timezone(&zone);
    let offset = local.offset().fix().local_minus_utc();
    rfc3339(local.naive_local(), Some(offset)).unwrap_or_else(|| local.to_rfc3339())
}

/// `local` and `offset` (seconds east of UTC; `None`: `Z`) written as
/// chrono writes RFC 3339, digit by digit: a week's answer writes thousands,
/// and chrono's formatter was most of their cost. `None` for what it does
/// not cover (a year outside 0-9999, an offset of odd seconds, as a zone's
/// local mean time before standard time had): chrono writes those.
fn rfc3339(local: NaiveDateTime, offset: Option<i32>) -> Option<String> {
    let year = u32::try_from(local.year())
        .ok()
        .filter(|year| *year <= 9999)?;
    if offset.is_some_and(|seconds| seconds % 60 != 0) {
        return None;
    }
    let mut text = Vec::with_capacity(35);
    let nanos = local.nanosecond();
    for (value, width, after) in [
        (year, 4, b'-'),
        (local.month(), 2, b'-'),
        (local.day(), 2, b'T'),
        (local.hour(), 2, b':'),
        (local.minute(), 2, b':'),
    ] {
        digits(&mut text, value, width);
        text.push(after);
    }
    digits(&mut text, local.second(), 2);
    // `AutoSi`: as many fraction digits as the value needs, in threes.
    if nanos > 0 {
        text.push(b'.');
        match nanos {
            n if n % 1_000_000 == 0 => digits(&mut text, n / 1_000_000, 3),
            n if n % 1_000 == 0 => digits(&mut text, n / 1_000, 6),
            n => digits(&mut text, n, 9),
        }
    }
    match offset {
        None => text.push(b'Z'),
        Some(seconds) => {
            text.push(if seconds < 0 { b'-' } else { b'+' });
            let minutes = seconds.unsigned_abs() / 60;
            digits(&mut text, minutes / 60, 2);
            text.push(b':');
            digits(&mut text, minutes % 60, 2);
        }
    }
    // Digits and ASCII punctuation only.
    String::from_utf8(text).ok()
}

/// `value` in exactly `width` decimal digits (callers keep it in range).
fn digits(out: &mut Vec<u8>, value: u32, width: u32) {
    for place in (0..width).rev() {
        out.push(b'0' + (value / 10u32.pow(place) % 10) as u8);
    }
}

/// An event with its times in UTC and in the display zone (`EventTimes`),
/// as REST answers one.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TimedEvent {
    #[serde(flatten)]
    pub event: Event,
    #[serde(flatten)]
    pub times: EventTimes,
}

impl TimedEvent {
    pub fn new(event: Event, zone: Tz) -> Self {
        let times = EventTimes::of(&event, zone);
        Self { event, times }
    }
}

/// Where an event is written down, the event with its times in UTC and in
/// the display zone (`GET /api/v1/events/{id}`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimedDetails {
    pub calendar_id: String,
    pub event: TimedEvent,
    /// The note and line; `null` for ICS events, which live in no note.
    pub location: Option<Location>,
}

impl TimedDetails {
    pub fn new(details: EventDetails, zone: Tz) -> Self {
        Self {
            calendar_id: details.calendar_id,
            event: TimedEvent::new(details.event, zone),
            location: details.location,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const NEW_YORK: Tz = chrono_tz::America::New_York;

    fn millis(rfc3339: &str) -> i64 {
        DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .timestamp_millis()
    }

    fn timed(own_zone: bool, start: &str, end: Option<&str>) -> EventClock {
        EventClock::Timed {
            own_zone,
            start_millis: Some(millis(start)),
            end_millis: end.map(millis),
        }
    }

    #[test]
    fn each_side_of_a_dst_change_has_its_own_offset() {
        // New York springs forward on 2026-03-08 at 02:00.
        let before = EventTimes::new(timed(false, "2026-03-07T14:00:00Z", None), NEW_YORK);
        assert_eq!(
            before.start_local.as_deref(),
            Some("2026-03-07T09:00:00-05:00")
        );
        assert_eq!(before.start_utc.as_deref(), Some("2026-03-07T14:00:00Z"));
        assert_eq!(before.end_utc, None, "no end time, no end");
        assert_eq!(before.timing, Timing::Floating);
        let after = EventTimes::new(
            timed(true, "2026-03-09T13:00:00Z", Some("2026-03-09T13:30:00.5Z")),
            NEW_YORK,
        );
        assert_eq!(
            after.start_local.as_deref(),
            Some("2026-03-09T09:00:00-04:00")
        );
        assert_eq!(
            after.end_local.as_deref(),
            Some("2026-03-09T09:30:00.500-04:00")
        );
        assert_eq!(after.timing, Timing::Zoned);
        assert_eq!(after.display_zone, "America/New_York");
        // A zone at UTC+0 still shows its offset, not `Z`.
        let london = EventTimes::new(
            timed(false, "2026-01-05T09:00:00Z", None),
            chrono_tz::Europe::London,
        );
        assert_eq!(
            london.start_local.as_deref(),
            Some("2026-01-05T09:00:00+00:00")
        );
    }

    #[test]
    fn an_all_day_event_has_days_and_no_instant() {
        let event: Event = serde_json::from_value(json!({
            "id": "fullnote:a.md", "title": "Trip", "date": "2026-03-07",
            "endDate": "2026-03-09", "allDay": true, "calendarId": "local", "type": "single",
        }))
        .unwrap();
        let times = EventTimes::of(&event, NEW_YORK);
        assert_eq!(times.timing, Timing::AllDay);
        assert_eq!((times.start_utc, times.end_utc), (None, None));
        assert_eq!(times.start_local.as_deref(), Some("2026-03-07"));
        assert_eq!(times.end_local.as_deref(), Some("2026-03-09"));
        let one_day = Event {
            end_date: Some("2026-03-01".into()),
            ..event
        };
        assert_eq!(
            EventTimes::of(&one_day, NEW_YORK).end_local.as_deref(),
            Some("2026-03-07"),
            "an end before the start is the first day"
        );
    }

    #[test]
    fn times_are_written_as_chrono_and_serde_write_them() {
        let zones = [
            chrono_tz::UTC,
            NEW_YORK,
            chrono_tz::Europe::Berlin,
            chrono_tz::Asia::Kolkata,
            chrono_tz::Australia::Lord_Howe,
            chrono_tz::Pacific::Kiritimati,
            chrono_tz::America::St_Johns,
        ];
        let instants = [
            "2026-03-08T06:59:59.999Z",
            "2026-03-08T07:00:00Z",
            "2026-11-01T05:30:00.5Z",
            "2026-10-25T00:59:00.123Z",
            "1970-01-01T00:00:00Z",
            // Local mean time before standard time: offsets of odd seconds.
            "1850-06-01T12:00:00Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999Z",
        ];
        for zone in zones {
            for instant in instants {
                let at = DateTime::parse_from_rfc3339(instant).unwrap().to_utc();
                assert_eq!(local_text(at, zone), at.with_timezone(&zone).to_rfc3339());
                assert_eq!(
                    utc_text(at),
                    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
                );
                for clock in [
                    timed(zone == NEW_YORK, instant, Some(instant)),
                    timed(false, instant, None),
                    EventClock::AllDay {
                        first: Some(at.date_naive()),
                        last: None,
                    },
                ] {
                    let mut written = b"{\"id\":1".to_vec();
                    EventTimes::write_members(&mut written, clock, zone);
                    written.push(b'}');
                    let mut serialized = json!({"id": 1});
                    let times = serde_json::to_value(EventTimes::new(clock, zone)).unwrap();
                    serialized
                        .as_object_mut()
                        .unwrap()
                        .extend(times.as_object().unwrap().clone());
                    assert_eq!(
                        serde_json::from_slice::<Value>(&written).unwrap(),
                        serialized,
                        "{}",
                        String::from_utf8_lossy(&written)
                    );
                }
            }
        }
    }

    #[test]
    fn written_members_are_what_a_timed_event_serializes() {
        let event = Event {
            id: "fullnote:b.md".into(),
            title: "Call".into(),
            date: "2026-03-09".into(),
            start_time: Some("09:00".into()),
            start_millis: Some(millis("2026-03-09T13:00:00Z")),
            end_millis: Some(millis("2026-03-09T14:00:00Z")),
            timezone: Some("America/New_York".into()),
            ..Event::default()
        };
        let mut out = serde_json::to_vec(&event).unwrap();
        out.pop();
        EventTimes::write_members(&mut out, clock_of(&event), NEW_YORK);
        out.push(b'}');
        let written: Value = serde_json::from_slice(&out).unwrap();
        let timed = serde_json::to_value(TimedEvent::new(event, NEW_YORK)).unwrap();
        assert_eq!(written, timed);
        assert_eq!(timed["startUtc"], "2026-03-09T13:00:00Z");
        assert_eq!(timed["endLocal"], "2026-03-09T10:00:00-04:00");
        assert_eq!(timed["timing"], "zoned");
        assert_eq!(timed["title"], "Call", "the event's own fields stay");
    }
}
