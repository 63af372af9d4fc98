//! The query string of `GET /api/v1/events`, validated into the in-process
//! API's [`EventFilter`].
//!
//! axum's `Query` would answer a bad value with a `text/plain` 400; this
//! parses every parameter as a string first and then checks each one itself,
//! so the error names the parameter. Unknown parameters are ignored.

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use chrono_tz::Tz;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::{DateRange, EventFilter};
use crate::calendar::{RangeSide, parse_range_bound};
use crate::loopback_server::error::RestError;

/// The raw parameters, as the spec names them.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EventsParams {
    /// A calendar id, or a comma-separated list of them.
    #[param(example = "local,work")]
    calendar: Option<String>,
    /// Case-insensitive text searched in titles and note contents.
    query: Option<String>,
    /// `true`: only tasks; `false`: only non-tasks.
    #[param(pattern = "^(true|false)$")]
    is_task: Option<String>,
    /// `true`: only completed tasks; `false`: everything else.
    #[param(pattern = "^(true|false)$")]
    is_completed: Option<String>,
    /// Inclusive lower bound: ISO 8601 date or date-time, or epoch
    /// milliseconds. A date-time without offset is in the display time zone.
    #[param(example = "2026-01-05")]
    start: Option<String>,
    /// Inclusive upper bound, same forms as `start`; a plain date includes
    /// the whole day.
    #[param(example = "2026-01-11")]
    end: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for EventsParams {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Query(params) = Query::<EventsParams>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| RestError::bad_request("query string", rejection.body_text()))?;
        Ok(params)
    }
}

impl EventsParams {
    /// The filter these parameters ask for; range bounds without an offset
    /// are read in `tz`.
    pub fn into_filter(self, tz: Tz) -> Result<EventFilter, RestError> {
        let bound = |value: Option<String>, side| {
            value
                .map(|value| parse_range_bound(&value, side, tz))
                .transpose()
                .map_err(RestError::from)
        };
        let calendar_ids = self.calendar.map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .map(String::from)
                .collect()
        });
        let is_task = flag("isTask", self.is_task)?;
        let is_completed = flag("isCompleted", self.is_completed)?;
        let start_millis = bound(self.start, RangeSide::Start)?;
        let end_millis = bound(self.end, RangeSide::End)?;
        Ok(EventFilter {
            calendar_ids,
            query: self.query.filter(|text| !text.is_empty()),
            is_task,
            is_completed,
            date_range: (start_millis.is_some() || end_millis.is_some()).then_some(DateRange {
                start_millis,
                end_millis,
            }),
        })
    }
}

/// A `'true'`/`'false'` parameter.
fn flag(name: &str, value: Option<String>) -> Result<Option<bool>, RestError> {
    match value.as_deref() {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(other) => Err(RestError::bad_request(
            name,
            format!("`{other}` is neither 'true' nor 'false'"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> EventsParams {
        let query = serde_urlencoded_pairs(pairs);
        serde_json::from_value(query).unwrap()
    }

    fn serde_urlencoded_pairs(pairs: &[(&str, &str)]) -> serde_json::Value {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
            .collect::<serde_json::Map<_, _>>()
            .into()
    }

    fn field_of(pairs: &[(&str, &str)]) -> String {
        match params(pairs).into_filter(Tz::UTC) {
            Err(RestError::BadRequest { field, .. }) => field,
            other => panic!("expected a bad request for {pairs:?}, got {other:?}"),
        }
    }

    #[test]
    fn builds_the_api_filter() {
        let filter = params(&[
            ("calendar", "a, b,,c"),
            ("query", "standup"),
            ("isTask", "true"),
            ("isCompleted", "false"),
            ("start", "2026-01-05"),
            ("end", "1767657599999"),
        ])
        .into_filter(Tz::UTC)
        .unwrap();
        assert_eq!(filter.calendar_ids.unwrap(), ["a", "b", "c"]);
        assert_eq!(filter.query.as_deref(), Some("standup"));
        assert_eq!(
            (filter.is_task, filter.is_completed),
            (Some(true), Some(false))
        );
        let range = filter.date_range.unwrap();
        assert_eq!(range.start_millis, Some(1_767_571_200_000));
        assert_eq!(range.end_millis, Some(1_767_657_599_999));
        assert_eq!(
            params(&[]).into_filter(Tz::UTC).unwrap(),
            EventFilter::default()
        );
    }

    #[test]
    fn bad_values_name_their_parameter() {
        assert_eq!(field_of(&[("isTask", "yes")]), "isTask");
        assert_eq!(field_of(&[("isCompleted", "")]), "isCompleted");
        assert_eq!(field_of(&[("start", "tomorrow")]), "start");
        assert_eq!(field_of(&[("end", "99999999999999999999999")]), "end");
    }
}
