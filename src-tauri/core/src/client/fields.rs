//! `--title --start --end --all-day …` read as an event's fields (the body
//! `POST /events` and `PUT /events/{id}` take), wall times in the display
//! zone.
//!
//! `--start`/`--end` take a date (`2026-01-05`), a time (`09:30`) or both
//! (`2026-01-05T09:30`, `"2026-01-05 09:30"`). On `add`, a start without a
//! time makes an all-day event; on `edit`, each part given replaces only
//! that part.

use chrono::{NaiveDate, NaiveTime};
use serde_json::{Map, Value, json};

use super::failure::ClientError;

/// A `--start` or `--end` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Date(NaiveDate),
    Time(NaiveTime),
    DateTime(NaiveDate, NaiveTime),
}

impl When {
    pub fn parse(flag: &str, value: &str) -> Result<When, ClientError> {
        let value = value.trim();
        let date = |text: &str| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok();
        let time = |text: &str| NaiveTime::parse_from_str(text, "%H:%M").ok();
        let found = match value.split_once(['T', ' ']) {
            Some((day, at)) => date(day)
                .zip(time(at.trim()))
                .map(|(d, t)| When::DateTime(d, t)),
            None => date(value)
                .map(When::Date)
                .or_else(|| time(value).map(When::Time)),
        };
        found.ok_or_else(|| {
            ClientError::usage(format!(
                "{flag}: `{value}` is not YYYY-MM-DD, HH:MM or YYYY-MM-DDTHH:MM"
            ))
        })
    }

    fn date(self) -> Option<NaiveDate> {
        match self {
            When::Date(date) | When::DateTime(date, _) => Some(date),
            When::Time(_) => None,
        }
    }

    fn time(self) -> Option<NaiveTime> {
        match self {
            When::Time(time) | When::DateTime(_, time) => Some(time),
            When::Date(_) => None,
        }
    }
}

/// The field options of `events add` and `events edit`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldArgs {
    pub title: Option<String>,
    pub start: Option<When>,
    pub end: Option<When>,
    pub all_day: bool,
    pub description: Option<String>,
    pub location: Option<String>,
}

fn day(date: NaiveDate) -> Value {
    Value::from(date.format("%Y-%m-%d").to_string())
}

fn clock(time: NaiveTime) -> Value {
    Value::from(time.format("%H:%M").to_string())
}

impl FieldArgs {
    pub fn is_empty(&self) -> bool {
        *self == FieldArgs::default()
    }

    /// A new event's fields: a title and a start date are needed.
    pub fn for_create(&self) -> Result<Value, ClientError> {
        let title = self
            .title
            .as_deref()
            .ok_or_else(|| ClientError::usage("add needs --title (or a quick-add line)"))?;
        let start = self
            .start
            .ok_or_else(|| ClientError::usage("add needs --start"))?;
        let date = start.date().ok_or_else(|| {
            ClientError::usage("--start needs a date on add (YYYY-MM-DD or YYYY-MM-DDTHH:MM)")
        })?;
        let all_day = self.all_day || start.time().is_none();
        let mut fields = json!({ "title": title, "date": day(date), "allDay": all_day });
        let object = fields.as_object_mut().expect("an object");
        if all_day {
            if let Some(end) = self.end {
                let end = end
                    .date()
                    .ok_or_else(|| ClientError::usage("--end of an all-day event is a date"))?;
                object.insert("endDate".into(), day(end));
            }
        } else {
            object.insert("startTime".into(), clock(start.time().expect("timed")));
            if let Some(end) = self.end {
                let end_time = end.time().ok_or_else(|| {
                    ClientError::usage("--end of a timed event needs a time (HH:MM)")
                })?;
                object.insert("endTime".into(), clock(end_time));
                if let Some(end_date) = end.date().filter(|&d| d != date) {
                    object.insert("endDate".into(), day(end_date));
                }
            }
        }
        self.insert_texts(object);
        Ok(fields)
    }

    /// The parts to change: only what was given.
    pub fn for_edit(&self) -> Value {
        let mut object = Map::new();
        if let Some(title) = &self.title {
            object.insert("title".into(), Value::from(title.as_str()));
        }
        if let Some(start) = self.start {
            if let Some(date) = start.date() {
                object.insert("date".into(), day(date));
            }
            if let Some(time) = start.time() {
                object.insert("startTime".into(), clock(time));
                object.insert("allDay".into(), Value::Bool(false));
            }
        }
        if let Some(end) = self.end {
            if let Some(date) = end.date() {
                object.insert("endDate".into(), day(date));
            }
            if let Some(time) = end.time() {
                object.insert("endTime".into(), clock(time));
            }
        }
        if self.all_day {
            object.insert("allDay".into(), Value::Bool(true));
            object.insert("startTime".into(), Value::Null);
            object.insert("endTime".into(), Value::Null);
        }
        self.insert_texts(&mut object);
        Value::Object(object)
    }

    fn insert_texts(&self, object: &mut Map<String, Value>) {
        if let Some(description) = &self.description {
            object.insert("description".into(), Value::from(description.as_str()));
        }
        if let Some(location) = &self.location {
            object.insert("location".into(), Value::from(location.as_str()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn when(value: &str) -> When {
        When::parse("--start", value).unwrap()
    }

    #[test]
    fn dates_times_and_both() {
        let date = NaiveDate::from_ymd_opt(2026, 1, 5).unwrap();
        let time = NaiveTime::from_hms_opt(9, 30, 0).unwrap();
        assert_eq!(when("2026-01-05"), When::Date(date));
        assert_eq!(when("09:30"), When::Time(time));
        assert_eq!(when("2026-01-05T09:30"), When::DateTime(date, time));
        assert_eq!(when("2026-01-05 09:30"), When::DateTime(date, time));
        assert!(When::parse("--end", "tomorrow").is_err());
    }

    #[test]
    fn add_makes_timed_or_all_day_events() {
        let timed = FieldArgs {
            title: Some("Standup".into()),
            start: Some(when("2026-01-05T09:30")),
            end: Some(when("10:00")),
            ..FieldArgs::default()
        };
        assert_eq!(
            timed.for_create().unwrap(),
            json!({"title": "Standup", "date": "2026-01-05", "allDay": false,
                   "startTime": "09:30", "endTime": "10:00"})
        );
        let all_day = FieldArgs {
            title: Some("Trip".into()),
            start: Some(when("2026-01-05")),
            end: Some(when("2026-01-07")),
            ..FieldArgs::default()
        };
        assert_eq!(
            all_day.for_create().unwrap(),
            json!({"title": "Trip", "date": "2026-01-05", "allDay": true, "endDate": "2026-01-07"})
        );
        assert!(FieldArgs::default().for_create().is_err());
    }

    #[test]
    fn edit_changes_only_what_is_given() {
        let moved = FieldArgs {
            start: Some(when("11:00")),
            ..FieldArgs::default()
        };
        assert_eq!(
            moved.for_edit(),
            json!({"startTime": "11:00", "allDay": false})
        );
        assert_eq!(FieldArgs::default().for_edit(), json!({}));
    }
}
