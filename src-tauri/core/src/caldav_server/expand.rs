//! `calendar-data` with `<C:expand start end>` in a `calendar-query`
//! (RFC 4791 §9.6.5): each resource answered as its occurrences in the
//! range, one `VEVENT` each with the `RECURRENCE-ID` of the occurrence it
//! is, and no `RRULE` or `EXDATE`: what clients that cannot expand a series
//! themselves ask for. A note detached from a series is the occurrence it
//! replaces.

use chrono::{NaiveDate, NaiveTime};

use super::collection::{ServedResource, detached_at, is_note_series, recurrence_id, served_uid};
use super::error::DavRefusal;
use super::report::bound;
use super::xml::{CALDAV, Element};
use crate::calendar::{Calendar, Event, EventQuery};

/// The range of the request's `expand`, if it asks for one (both bounds
/// are required, RFC 4791 §9.6.5).
pub fn range(root: &Element) -> Result<Option<(i64, i64)>, DavRefusal> {
    let mut found = Vec::new();
    root.descendants(CALDAV, "expand", &mut found);
    let Some(expand) = found.first() else {
        return Ok(None);
    };
    match (bound(expand, "start")?, bound(expand, "end")?) {
        (Some(start), Some(end)) if start < end => Ok(Some((start, end))),
        _ => Err(DavRefusal::bad_request(
            "expand needs a start before its end (UTC date-times)",
        )),
    }
}

/// `resource` of calendar `id` as its occurrences in `start..end`.
pub fn expanded(
    calendar: &Calendar,
    id: &str,
    resource: &ServedResource,
    (start, end): (i64, i64),
) -> Result<ServedResource, DavRefusal> {
    let query = EventQuery {
        calendars: Some(vec![id.to_string()]),
        start_millis: Some(start),
        // Half-open, as the engine's range is closed.
        end_millis: Some(end - 1),
        ..EventQuery::default()
    };
    let mut events: Vec<Event> = calendar
        .query_checked(&query)
        .map_err(|e| DavRefusal::from(crate::api::ApiError::from(e)))?
        .into_iter()
        .filter(|e| *served_uid(e) == *resource.uid)
        .collect();
    events.sort_by_key(|e| e.start_millis);
    let series = resource.events.iter().find(|e| is_note_series(e));
    let ids = events
        .iter()
        .map(|e| {
            recurrence_id(e)
                .or_else(|| series.and_then(|s| detached_at(s, e)))
                .or_else(|| occurrence_at(e))
        })
        .collect();
    Ok(ServedResource {
        name: resource.name.clone(),
        etag: resource.etag.clone(),
        uid: resource.uid.clone(),
        events: events.into(),
        expanded: Some(ids),
        // Its occurrences in this range only: nothing to keep.
        kept: Default::default(),
    })
}

/// The `RECURRENCE-ID` of one occurrence of a series: its date at its
/// start time (midnight for an all-day series).
fn occurrence_at(event: &Event) -> Option<String> {
    let date = NaiveDate::parse_from_str(event.instance_date.as_deref()?, "%Y-%m-%d").ok()?;
    let time = event
        .start_time
        .as_deref()
        .filter(|_| !event.all_day)
        .and_then(|t| NaiveTime::parse_from_str(t, "%H:%M").ok())
        .unwrap_or(NaiveTime::MIN);
    Some(date.and_time(time).format("%Y%m%dT%H%M%S").to_string())
}
