//! The request shapes of the in-process API: the `getEvents` filter and the
//! `options` object of event writes. Both are JSON-shaped (camelCase) so the
//! REST server deserializes its bodies straight into them; unknown keys are
//! refused so a typo never silently widens a query or drops an option.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::calendar::EventQuery;

/// `getEvents(filter)`: every present criterion must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventFilter {
    /// Only completed tasks (`true`) or everything but completed tasks (`false`).
    pub is_completed: Option<bool>,
    /// Only tasks (`true`) or only non-tasks (`false`).
    pub is_task: Option<bool>,
    /// Overlap with this range (closed, epoch milliseconds; either side open).
    pub date_range: Option<DateRange>,
    /// Only events of these calendar ids.
    pub calendar_ids: Option<Vec<String>>,
    /// Case-insensitive text in the title or the note.
    pub query: Option<String>,
}

/// A range in epoch milliseconds; a missing side is open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DateRange {
    pub start_millis: Option<i64>,
    pub end_millis: Option<i64>,
}

impl From<&EventFilter> for EventQuery {
    fn from(filter: &EventFilter) -> Self {
        let range = filter.date_range.unwrap_or_default();
        EventQuery {
            calendars: filter.calendar_ids.clone(),
            text: filter.query.clone(),
            is_task: filter.is_task,
            is_completed: filter.is_completed,
            start_millis: range.start_millis,
            end_millis: range.end_millis,
        }
    }
}

/// The `options` of create, update and delete.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventOptions {
    /// Do not announce the change in the UI (no "event created" notice).
    #[serde(default)]
    pub silent: bool,
    /// Delete: suppress this one occurrence of a recurring series instead of
    /// deleting the series. Update: change only this occurrence of a CalDAV
    /// series (a modified occurrence in its resource).
    pub instance_date: Option<NaiveDate>,
    /// Create: a note whose `YYYY-MM-DD Title.md` is taken gets a number
    /// (`… 2.md`) instead of a refusal. For CalDAV clients, which cannot
    /// choose a note's name; never from a request body.
    #[serde(skip)]
    pub number_taken_name: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_and_options_parse_their_documented_shapes() {
        let filter: EventFilter = serde_json::from_str(
            r#"{"isCompleted":false,"dateRange":{"startMillis":1,"endMillis":2},"calendarIds":["a"]}"#,
        )
        .unwrap();
        let query = EventQuery::from(&filter);
        assert_eq!(
            (query.is_completed, query.start_millis, query.end_millis),
            (Some(false), Some(1), Some(2))
        );
        let open: EventFilter = serde_json::from_str(r#"{"dateRange":{"endMillis":5}}"#).unwrap();
        assert_eq!(EventQuery::from(&open).start_millis, None);
        assert!(serde_json::from_str::<EventFilter>(r#"{"isComplete":true}"#).is_err());
        assert!(serde_json::from_str::<EventFilter>(r#"{"dateRange":{"start":1}}"#).is_err());

        let options: EventOptions =
            serde_json::from_str(r#"{"silent":true,"instanceDate":"2024-06-03"}"#).unwrap();
        assert!(options.silent);
        assert_eq!(options.instance_date, NaiveDate::from_ymd_opt(2024, 6, 3));
        assert_eq!(
            serde_json::from_str::<EventOptions>("{}").unwrap(),
            EventOptions::default()
        );
        assert!(serde_json::from_str::<EventOptions>(r#"{"instanceDate":"June 3"}"#).is_err());
    }
}
