//! Event queries: the filter, the parsing of REST range bounds, and the range
//! semantics.
//!
//! # Range semantics
//!
//! The range is closed: `[start, end]`, both bounds inclusive, in epoch
//! milliseconds. Every event occupies a closed interval too:
//! - a timed event `[startMillis, endMillis]` (an event without an end time is
//!   the instant `startMillis`);
//! - an all-day event from 00:00 of `date` to 23:59:59.999 of `endDate` (or of
//!   `date`), both in the display time zone.
//!
//! An event matches when the two intervals intersect (`event.start <= end &&
//! event.end >= start`), so an event that merely touches a bound matches: a
//! meeting ending at 10:00 matches a range starting at 10:00. All-day events
//! end at the last millisecond of their day, so "today" never picks up
//! yesterday's all-day events.
//!
//! A missing bound is open. Series (recurring, rrule) are expanded into their
//! occurrences inside the range; each occurrence is matched like a single
//! event. Because an open range would expand forever, series expansion is
//! limited to [`UNBOUNDED_HORIZON_DAYS`] days around the given bound (or
//! around now when both are missing).
//!
//! Every range is read from the occurrence index (`occurrence_index`):
//! single events are all indexed; series are expanded once per four-week
//! page, the first time a read reaches the page, and kept.
//!
//! # The cost ceiling
//!
//! A query a client sends (the engine's `Calendar::query_checked`: REST, the in-process
//! API, the calendar window, the CalDAV server, MCP, the command line)
//! answers at most [`MAX_EVENTS_PER_ANSWER`] events. Past it, the query is
//! refused with [`CalendarError::QueryTooLarge`] naming the limit: never a
//! silently shortened answer. The steps a query spends expanding series go
//! only into index pages not built yet: at most [`MAX_EXPANSION_STEPS`]
//! (the pages built so far are kept, and the query is refused). A range
//! already indexed costs no steps, only its answer.
//!
//! One series may spend at most [`MAX_STEPS_PER_SERIES`] steps and produce
//! at most [`MAX_OCCURRENCES_PER_SERIES`] occurrences in one page. A series
//! that needs more (a rule no one writes for people, such as
//! `FREQ=SECONDLY;COUNT=1000000000` from 1990, read from a feed or a note)
//! is left out of the page and named in the answer's `warnings` and in its
//! calendar's status; everything else still answers. A page spends at most
//! [`MAX_PAGE_STEPS`] in all, so a calendar of runaways costs a bounded
//! time per page.
//!
//! `Calendar::query`, the unchecked form for the engine's own tests,
//! benchmarks and the window's per-day view, has no answer limit, and
//! builds the pages it needs bounded only by each page's pool (its callers
//! ask for a few weeks).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;

use super::error::CalendarError;
use super::event::Event;
use super::status::SeriesLeftOut;

/// How far an open range side reaches when a series is expanded.
pub const UNBOUNDED_HORIZON_DAYS: i64 = 366;

/// Most events one checked query answers. An answer this size is about
/// 4.5 MB of JSON, built in tens of milliseconds; a month or a week view
/// never comes near it.
pub const MAX_EVENTS_PER_ANSWER: usize = 10_000;

/// Most candidate dates (days of a weekly series, `rrule` instances) one
/// checked query steps through building the index pages it needs. Twenty
/// steps per answerable event: a weekly series on one day needs seven per
/// occurrence.
pub const MAX_EXPANSION_STEPS: usize = 20 * MAX_EVENTS_PER_ANSWER;

/// Most steps one index page build spends in all, and what one query may
/// burn on series left out of its pages (runaway rules): room for tens of
/// thousands of everyday series in a page.
pub const MAX_PAGE_STEPS: usize = 10 * MAX_EXPANSION_STEPS;

/// Occurrences one series contributes to one index page at most (hourly
/// around the clock is 672).
pub const MAX_OCCURRENCES_PER_SERIES: usize = 5_000;

/// Candidate dates one series steps through at most in one index page; past
/// it, the series is left out of the page.
pub const MAX_STEPS_PER_SERIES: usize = 100_000;

/// A filter over the cached events. Every present criterion must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventQuery {
    /// Only these calendar ids.
    pub calendars: Option<Vec<String>>,
    /// Case-insensitive substring of the title or the note's contents.
    pub text: Option<String>,
    /// Only tasks (`true`) or only non-tasks (`false`).
    pub is_task: Option<bool>,
    /// Only completed tasks (`true`) or only events that are not completed
    /// tasks (`false`: open tasks and plain events).
    pub is_completed: Option<bool>,
    /// Inclusive lower bound, epoch milliseconds.
    pub start_millis: Option<i64>,
    /// Inclusive upper bound, epoch milliseconds.
    pub end_millis: Option<i64>,
}

/// A checked query's answer: the events, and the series left out of it
/// (see the cost ceiling above).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryAnswer {
    pub events: Vec<Event>,
    pub left_out: Vec<SeriesLeftOut>,
}

/// A query's answer with its events already serialized.
#[derive(Debug)]
pub struct JsonAnswer {
    /// How many events `events` holds.
    pub count: usize,
    /// The events as one JSON array, as serializing [`QueryAnswer::events`]
    /// writes it.
    pub events: Vec<u8>,
    pub left_out: Vec<SeriesLeftOut>,
}

/// Where an answer's event sits in time, as the engine placed it: what a
/// reader needs to state its start and end in UTC and in the display zone
/// (`crate::api::event_times`) without reading the event's JSON back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventClock {
    /// An all-day event: its first and last day (inclusive), which are
    /// days, not instants.
    AllDay {
        first: Option<NaiveDate>,
        last: Option<NaiveDate>,
    },
    /// A timed event: its `startMillis` and `endMillis` (absent for an
    /// unexpanded series, the end also without an end time), and whether it
    /// names a zone of its own (`timezone`) instead of following the display
    /// zone.
    Timed {
        own_zone: bool,
        start_millis: Option<i64>,
        end_millis: Option<i64>,
    },
}

/// Writes members (`,"name":value…`) into one event object of an answer,
/// from its [`EventClock`] and the display zone its times were placed in.
pub type EventMembers<'a> = &'a (dyn Fn(&mut Vec<u8>, EventClock, Tz) + Sync);

/// Which end of a range a bound is; decides what a plain date means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeSide {
    /// A plain date means 00:00:00.000 of that day.
    Start,
    /// A plain date means 23:59:59.999 of that day (the whole day included).
    End,
}

/// Parses a REST `start`/`end` value into epoch milliseconds.
///
/// Accepted: epoch milliseconds (`1717200000000`, optionally negative); an
/// RFC 3339 / ISO 8601 date-time with offset (`2024-06-01T09:00:00Z`,
/// `…+02:00`); a date-time without offset (`2024-06-01T09:00[:00[.sss]]`,
/// local to `tz`); a plain date (`2024-06-01`, see [`RangeSide`]). Local times
/// that do not exist (DST gap) resolve to the instant after the gap; ambiguous
/// ones (DST overlap) to the earlier instant.
pub fn parse_range_bound(value: &str, side: RangeSide, tz: Tz) -> Result<i64, CalendarError> {
    let field = match side {
        RangeSide::Start => "start",
        RangeSide::End => "end",
    };
    let value = value.trim();
    let invalid = |reason: &str| CalendarError::invalid(field, format!("`{value}` {reason}"));
    if value.is_empty() {
        return Err(invalid("is empty"));
    }
    let digits = value.strip_prefix('-').unwrap_or(value);
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        let millis: i64 = value
            .parse()
            .map_err(|_| invalid("is out of range for epoch milliseconds"))?;
        return DateTime::from_timestamp_millis(millis)
            .map(|_| millis)
            .ok_or_else(|| invalid("is out of range for epoch milliseconds"));
    }
    if let Ok(instant) = DateTime::parse_from_rfc3339(value) {
        return Ok(instant.timestamp_millis());
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(local) = NaiveDateTime::parse_from_str(value, format) {
            return Ok(local_to_millis(local, tz));
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(value, "%Y-%m-%d") {
        return Ok(match side {
            RangeSide::Start => day_start_millis(date, tz),
            RangeSide::End => day_start_millis(date.succ_opt().unwrap_or(date), tz) - 1,
        });
    }
    Err(invalid(
        "is neither an ISO 8601 date / date-time nor epoch milliseconds",
    ))
}

/// Checks that a query's bounds are in order.
pub fn validate_range(query: &EventQuery) -> Result<(), CalendarError> {
    if let (Some(start), Some(end)) = (query.start_millis, query.end_millis)
        && start > end
    {
        return Err(CalendarError::invalid(
            "end",
            format!("range end {end} is before its start {start}"),
        ));
    }
    Ok(())
}

/// The instant a local wall-clock time denotes in `tz` (see
/// [`parse_range_bound`] for gaps and overlaps).
pub fn local_to_millis(local: NaiveDateTime, tz: Tz) -> i64 {
    resolve_local(local, tz).timestamp_millis()
}

/// 00:00 of `date` in `tz` (or the first instant of that day when midnight
/// falls into a DST gap).
pub fn day_start_millis(date: NaiveDate, tz: Tz) -> i64 {
    local_to_millis(date.and_time(NaiveTime::MIN), tz)
}

fn resolve_local(local: NaiveDateTime, tz: Tz) -> DateTime<Tz> {
    match tz.from_local_datetime(&local) {
        chrono::LocalResult::Single(t) => t,
        chrono::LocalResult::Ambiguous(earlier, _) => earlier,
        chrono::LocalResult::None => {
            // In a gap: step forward minute by minute to the first valid time
            // (gaps are at most a few hours; 24 h bounds the loop).
            (1..=24 * 60)
                .find_map(|m| {
                    tz.from_local_datetime(&(local + chrono::Duration::minutes(m)))
                        .earliest()
                })
                .unwrap_or_else(|| tz.from_utc_datetime(&local))
        }
    }
}
/// The busy time of `events` within `from..to` (epoch ms): each event's
/// span clipped to the window, overlapping and touching spans merged, in
/// order. Which events count (tasks, all-day ones) is the caller's rule;
/// events without times are skipped. CalDAV's free-busy report and MCP's
/// `free_busy` both answer with it.
pub fn busy_periods<'a>(
    events: impl IntoIterator<Item = &'a Event>,
    from: i64,
    to: i64,
) -> Vec<(i64, i64)> {
    let mut busy: Vec<(i64, i64)> = events
        .into_iter()
        .filter_map(|event| Some((event.start_millis?, event.end_millis?)))
        .map(|(start, end)| (start.max(from), end.min(to)))
        .filter(|(start, end)| start < end)
        .collect();
    busy.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (start, end) in busy {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}
