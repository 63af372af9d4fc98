//! An entry's [`Event`] as JSON bytes, kept with the entry, so an answer is
//! written by copying bytes instead of building and serializing an `Event`
//! per occurrence (which was most of a query's time once the occurrence
//! index found the matches cheaply).
//!
//! A single event's JSON never changes while its entry lives. A series'
//! occurrences differ from each other only in `date`, `endDate`, `startTime`,
//! `startMillis`, `endMillis` and `instanceDate`; the rest is kept as three
//! pieces of the serialized series event, and the occurrence's own fields are
//! written between them, in the order `Event` declares its fields. What
//! serde writes stays the definition: the pieces are cut from its output, and
//! the tests compare every written occurrence with serde's own.

use std::sync::OnceLock;

use chrono::{Datelike, NaiveDate, NaiveTime, Timelike};

use almanac_model::event::Event;
use almanac_model::series::recurrence::Occurrence;

/// The bytes of one entry's event, built the first time an answer needs
/// them. A clone starts empty: a cloned entry may be filed under another
/// source's settings (a renamed calendar keeping its feed's events).
#[derive(Debug, Default)]
pub(in crate::calendar) struct JsonCell(OnceLock<EventJson>);

impl Clone for JsonCell {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl JsonCell {
    /// The bytes of `event`, built on first use; `series` is whether the
    /// entry is a series (written per occurrence).
    pub(in crate::calendar) fn get_or_init(
        &self,
        series: bool,
        event: impl FnOnce() -> Event,
    ) -> &EventJson {
        self.0.get_or_init(|| EventJson::new(&event(), series))
    }
}

#[derive(Debug)]
pub(in crate::calendar) enum EventJson {
    /// A single event: its whole JSON.
    Whole(Box<[u8]>),
    /// A series: its JSON cut where an occurrence's own fields go.
    Series(Pieces),
}

/// The series event's JSON, serialized without the occurrence fields, in
/// one allocation (an answer reads many entries: one cache miss each, not
/// three).
#[derive(Debug)]
pub(in crate::calendar) struct Pieces {
    bytes: Box<[u8]>,
    /// `bytes[..date]` runs up to and including `"date":"`;
    /// `bytes[date..kind]` from the end of `date` to `startMillis`
    /// (`endTime`, `allDay`, the calendar and the file); `bytes[kind..]`
    /// from `"type"` to the end, without the closing brace.
    date: usize,
    kind: usize,
}

/// What serde writes for a series event without its occurrence fields is
/// always cut the same way; a failure here is a bug in `Event`'s field order.
const CUT: &str = "an event's JSON has `date` before `type`";

impl EventJson {
    fn new(event: &Event, series: bool) -> Self {
        if !series {
            return Self::Whole(to_json(event).into_boxed_slice());
        }
        let bare = Event {
            date: String::new(),
            end_date: None,
            start_time: None,
            start_millis: None,
            end_millis: None,
            instance_date: None,
            ..event.clone()
        };
        let json = to_json(&bare);
        // `id` and `title` are strings, so the first `"date":` is the field;
        // inside a string every `"` is escaped and cannot start a key.
        let date = find(&json, b",\"date\":\"", 0).expect(CUT) + b",\"date\":\"".len();
        // Between `date` and `type` come only strings, booleans and numbers.
        let kind = find(&json, b",\"type\":", date).expect(CUT);
        // Without the empty date's closing quote and the closing brace.
        let mut bytes = json[..date].to_vec();
        bytes.extend_from_slice(&json[date + 1..json.len() - 1]);
        Self::Series(Pieces {
            bytes: bytes.into_boxed_slice(),
            date,
            kind: kind - 1,
        })
    }

    /// Appends the event's JSON: of `occurrence` for a series (as
    /// [`super::cache::Indexed::occurrence_event`] builds it, with
    /// `end_days` the days an all-day occurrence spans past its first and
    /// `timed` whether it has a `startTime`). Returns false, writing
    /// nothing, for a series without an occurrence: the pieces hold no
    /// series fields of their own (range reads never ask for that).
    pub(in crate::calendar) fn write(
        &self,
        out: &mut Vec<u8>,
        occurrence: Option<&Occurrence>,
        end_days: i64,
        timed: bool,
    ) -> bool {
        match (self, occurrence) {
            (Self::Whole(json), _) => out.extend_from_slice(json),
            (Self::Series(pieces), Some(o)) => pieces.write(out, o, end_days, timed),
            (Self::Series(_), None) => return false,
        }
        true
    }
}

impl Pieces {
    fn write(&self, out: &mut Vec<u8>, o: &Occurrence, end_days: i64, timed: bool) {
        out.extend_from_slice(&self.bytes[..self.date]);
        write_date(out, o.date);
        out.push(b'"');
        if end_days > 0 {
            out.extend_from_slice(b",\"endDate\":\"");
            write_date(out, o.date + chrono::Duration::days(end_days));
            out.push(b'"');
        }
        if timed {
            out.extend_from_slice(b",\"startTime\":\"");
            write_time(out, o.start.time());
            out.push(b'"');
        }
        out.extend_from_slice(&self.bytes[self.date..self.kind]);
        let mut digits = itoa::Buffer::new();
        if let Some(millis) = o.span.start_millis {
            out.extend_from_slice(b",\"startMillis\":");
            out.extend_from_slice(digits.format(millis).as_bytes());
        }
        if let Some(millis) = o.span.end_millis {
            out.extend_from_slice(b",\"endMillis\":");
            out.extend_from_slice(digits.format(millis).as_bytes());
        }
        out.extend_from_slice(&self.bytes[self.kind..]);
        out.extend_from_slice(b",\"instanceDate\":\"");
        write_date(out, o.date);
        out.extend_from_slice(b"\"}");
    }
}

pub(in crate::calendar) fn to_json(event: &Event) -> Vec<u8> {
    // An `Event` holds strings, numbers and JSON values only: it always
    // serializes.
    serde_json::to_vec(event).expect("an event serializes")
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|at| at + from)
}

/// `YYYY-MM-DD`, as [`almanac_model::spec::format_date`].
fn write_date(out: &mut Vec<u8>, date: NaiveDate) {
    match u32::try_from(date.year()) {
        Ok(year) if year <= 9999 => {
            write_digits(out, year, 4);
            out.push(b'-');
            write_digits(out, date.month(), 2);
            out.push(b'-');
            write_digits(out, date.day(), 2);
        }
        _ => out.extend_from_slice(almanac_model::spec::format_date(date).as_bytes()),
    }
}

/// `HH:mm`, as [`almanac_model::spec::format_time`].
fn write_time(out: &mut Vec<u8>, time: NaiveTime) {
    write_digits(out, time.hour(), 2);
    out.push(b':');
    write_digits(out, time.minute(), 2);
}

/// `value` in exactly `width` decimal digits (callers keep it in range).
fn write_digits(out: &mut Vec<u8>, value: u32, width: u32) {
    for place in (0..width).rev() {
        out.push(b'0' + (value / 10u32.pow(place) % 10) as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(event: &Event, occurrence: Option<&Occurrence>, end_days: i64) -> String {
        let mut out = Vec::new();
        let _ = EventJson::new(event, occurrence.is_some()).write(
            &mut out,
            occurrence,
            end_days,
            event.start_time.is_some(),
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn dates_and_times_are_written_as_the_spec_formats_them() {
        for date in [
            NaiveDate::from_ymd_opt(2025, 3, 9).unwrap(),
            NaiveDate::from_ymd_opt(1, 1, 1).unwrap(),
            NaiveDate::from_ymd_opt(9999, 12, 31).unwrap(),
            NaiveDate::from_ymd_opt(-5, 6, 7).unwrap(),
            NaiveDate::from_ymd_opt(12345, 6, 7).unwrap(),
        ] {
            let mut out = Vec::new();
            write_date(&mut out, date);
            assert_eq!(out, almanac_model::spec::format_date(date).as_bytes());
        }
        let mut out = Vec::new();
        write_time(&mut out, NaiveTime::from_hms_opt(7, 5, 59).unwrap());
        assert_eq!(out, b"07:05");
    }

    #[test]
    fn a_series_without_an_occurrence_is_left_to_the_caller() {
        let series = Event {
            id: "fullnote:s.md".into(),
            kind: almanac_model::event::EventType::Rrule,
            rrule: Some("FREQ=DAILY".into()),
            ..Event::default()
        };
        let mut out = b"[".to_vec();
        assert!(!EventJson::new(&series, true).write(&mut out, None, 0, false));
        assert_eq!(out, b"[", "nothing written");
        assert!(EventJson::new(&series, false).write(&mut out, None, 0, false));
        assert_eq!(out[1..], to_json(&series)[..]);
    }

    #[test]
    fn a_title_quoting_the_field_names_does_not_move_the_cuts() {
        let base = Event {
            id: "fullnote:a,\"date\":\"x.md".into(),
            title: r#","date":"1","type":"single"}\"#.into(),
            date: "2025-01-01".into(),
            start_time: Some("09:00".into()),
            end_time: Some("10:00".into()),
            calendar_id: "c".into(),
            calendar_name: r#"n","type":"#.into(),
            kind: almanac_model::event::EventType::Rrule,
            rrule: Some("FREQ=DAILY".into()),
            description: Some(r#"{"date":"2020-01-01"}"#.into()),
            ..Event::default()
        };
        let date = NaiveDate::from_ymd_opt(2025, 1, 2).unwrap();
        let start = date.and_hms_opt(9, 0, 0).unwrap();
        let occurrence = Occurrence {
            date,
            start,
            span: almanac_model::series::recurrence::Span {
                start: 1,
                end: 2,
                start_millis: Some(1),
                end_millis: Some(2),
            },
        };
        let expected = Event {
            date: "2025-01-02".into(),
            start_millis: Some(1),
            end_millis: Some(2),
            instance_date: Some("2025-01-02".into()),
            ..base.clone()
        };
        assert_eq!(
            written(&base, Some(&occurrence), 0),
            serde_json::to_string(&expected).unwrap()
        );
        let spanning = Event {
            end_date: Some("2025-01-05".into()),
            ..expected
        };
        assert_eq!(
            written(&base, Some(&occurrence), 3),
            serde_json::to_string(&spanning).unwrap()
        );
    }
}
