//! The calendar window's search box: the events whose title or note text
//! holds a piece of text, one line per event (a series once), soonest
//! upcoming first and then the past, most recent first.
//!
//! It is the engine's own text filter (`EventQuery::text`, what
//! `GET /api/v1/events?query=` and MCP use) over a year on each side of
//! now, read from the occurrence index; what differs is the shape of the
//! answer. A search for "standup" over two years of a daily series would
//! be hundreds of occurrences; a person looking for it wants the next one.
//!
//! The first letters typed match nearly everything, and two years of every
//! series is hundreds of thousands of occurrences: a search is a checked
//! query (at most `MAX_EVENTS_PER_ANSWER` occurrences), and when two years
//! hold more it looks nearer to today instead ([`REACH_DAYS`]), and says so.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::cache::Ceiling;
use super::read::Hit;
use crate::calendar::engine::Calendar;
use almanac_model::error::CalendarError;
use almanac_model::event::Event;
use almanac_model::query::{EventQuery, UNBOUNDED_HORIZON_DAYS, day_start_millis};

/// Most events one answer lists; `more` says when others matched.
pub const MAX_RESULTS: usize = 50;
/// How far from now a search looks, in days: the first reach whose
/// occurrences fit in a checked query. Each refused try stops at the
/// ceiling, so a search costs at most three bounded reads.
pub const REACH_DAYS: [i64; 3] = [UNBOUNDED_HORIZON_DAYS, 31, 7];

/// Longest text searched for, in characters: more is no search a person
/// types, and the text is matched against every note.
pub const MAX_TEXT_CHARS: usize = 200;

const DAY_MS: i64 = 86_400_000;

/// A search's answer.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    /// The upcoming matches (from the start of today, in the display zone)
    /// soonest first, then the past ones, latest first.
    pub events: Vec<Event>,
    /// Whether more than [`MAX_RESULTS`] events matched.
    pub more: bool,
    /// How many days on each side of today were searched: fewer than a
    /// year when a year held too many matches (see [`REACH_DAYS`]).
    pub reach_days: i64,
}

impl Calendar {
    /// The events matching `text` (case-insensitive, in titles and note
    /// text, locations and descriptions included) within a year of
    /// `now_millis`: for a series, its first occurrence from today on, or
    /// else its last one. Blank text finds nothing.
    pub fn search(&self, text: &str, now_millis: i64) -> Result<Found, CalendarError> {
        let text = text.trim();
        if text.chars().count() > MAX_TEXT_CHARS {
            return Err(CalendarError::invalid(
                "text",
                format!("a search is at most {MAX_TEXT_CHARS} characters"),
            ));
        }
        if text.is_empty() {
            return Ok(Found {
                reach_days: UNBOUNDED_HORIZON_DAYS,
                ..Found::default()
            });
        }
        let zone = self.display_timezone();
        let today = DateTime::<Utc>::from_timestamp_millis(now_millis)
            .unwrap_or_default()
            .with_timezone(&zone)
            .date_naive();
        let today_start = day_start_millis(today, zone);
        let state = self.inner.read();
        for reach_days in REACH_DAYS {
            let query = EventQuery {
                text: Some(text.to_string()),
                start_millis: Some(today_start - reach_days * DAY_MS),
                end_millis: Some(today_start + (reach_days + 1) * DAY_MS - 1),
                ..EventQuery::default()
            };
            let Ok((hits, _)) = state.cache.hits(&query, now_millis, Ceiling::PerAnswer) else {
                continue;
            };
            let (chosen, more) = one_per_event(&hits, today_start);
            return Ok(Found {
                events: chosen.into_iter().map(Hit::event).collect(),
                more,
                reach_days,
            });
        }
        Err(CalendarError::invalid(
            "text",
            "more events match than a search lists, even within a week of today: type more",
        ))
    }
}

/// Of `hits` (in start order), one per cached entry: the first starting at
/// or after `today_start`, else the last before it; upcoming ones first,
/// then past ones latest first, at most [`MAX_RESULTS`]. Whether more were
/// left out.
fn one_per_event<'h, 'c>(hits: &'h [Hit<'c>], today_start: i64) -> (Vec<&'h Hit<'c>>, bool) {
    let mut by_entry: HashMap<_, usize> = HashMap::new();
    for (at, hit) in hits.iter().enumerate() {
        by_entry
            .entry(hit.entry())
            .and_modify(|kept| {
                if hits[*kept].start() < today_start {
                    *kept = at;
                }
            })
            .or_insert(at);
    }
    let mut kept: Vec<usize> = by_entry.into_values().collect();
    kept.sort_unstable();
    let (upcoming, mut past): (Vec<usize>, Vec<usize>) = kept
        .into_iter()
        .partition(|&at| hits[at].start() >= today_start);
    past.reverse();
    let all = upcoming.len() + past.len();
    let chosen = upcoming
        .into_iter()
        .chain(past)
        .take(MAX_RESULTS)
        .map(|at| &hits[at])
        .collect();
    (chosen, all > MAX_RESULTS)
}
