//! Serialized answers of `GET /api/v1/events`, reused while the calendar is
//! unchanged.
//!
//! Scripts and widgets poll the same range ("today", "this week") again and
//! again, and between two changes of the calendar the answer is the same
//! bytes; expanding series and serializing a busy day costs milliseconds,
//! copying the bytes microseconds. An entry is keyed by the parsed filter (so
//! parameter order and spelling don't matter) and valid for one generation of
//! the engine's cache, whose counter moves on every change — own writes,
//! external edits, ICS refreshes, rescans — so no entry outlives the data it
//! was computed from. Only closed ranges are kept: an open one is expanded
//! around "now" and changes with the clock.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::body::Bytes;
use tokio::sync::watch;

use crate::api::EventFilter;

/// Entries kept at most; a full cache first drops stale generations, then
/// starts over.
const CAPACITY: usize = 128;
/// Larger answers are not kept (a year of a busy vault is not worth pinning).
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// What an answer depends on besides the calendar's contents.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    calendar_ids: Option<Vec<String>>,
    query: Option<String>,
    is_task: Option<bool>,
    is_completed: Option<bool>,
    start_millis: i64,
    end_millis: i64,
}

impl Key {
    fn of(filter: &EventFilter) -> Option<Self> {
        let range = filter.date_range?;
        Some(Self {
            calendar_ids: filter.calendar_ids.clone(),
            query: filter.query.clone(),
            is_task: filter.is_task,
            is_completed: filter.is_completed,
            start_millis: range.start_millis?,
            end_millis: range.end_millis?,
        })
    }
}

/// The cache of one server.
///
/// [`Calendar::subscribe`]: crate::calendar::Calendar::subscribe
pub struct AnswerCache {
    generation: watch::Receiver<u64>,
    entries: Mutex<HashMap<Key, (u64, Bytes)>>,
}

impl AnswerCache {
    /// A cache following `generation`, the engine's change counter
    /// ([`Calendar::subscribe`]).
    pub fn new(generation: watch::Receiver<u64>) -> Self {
        Self {
            generation,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The calendar's generation now. Read it *before* querying, so an answer
    /// is never filed under a generation newer than its data.
    pub fn generation(&self) -> u64 {
        *self.generation.borrow()
    }

    pub fn get(&self, filter: &EventFilter, generation: u64) -> Option<Bytes> {
        let key = Key::of(filter)?;
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        match entries.get(&key) {
            Some((filed, answer)) if *filed == generation => Some(answer.clone()),
            _ => None,
        }
    }

    pub fn put(&self, filter: &EventFilter, generation: u64, answer: Bytes) {
        let Some(key) = Key::of(filter) else { return };
        if answer.len() > MAX_ANSWER_BYTES {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= CAPACITY {
            entries.retain(|_, (filed, _)| *filed == generation);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(key, (generation, answer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::DateRange;

    fn day(start: i64) -> EventFilter {
        EventFilter {
            date_range: Some(DateRange {
                start_millis: Some(start),
                end_millis: Some(start + 86_399_999),
            }),
            ..EventFilter::default()
        }
    }

    #[test]
    fn keys_need_a_closed_range() {
        assert!(Key::of(&day(0)).is_some());
        assert!(Key::of(&EventFilter::default()).is_none());
        let open = EventFilter {
            date_range: Some(DateRange {
                start_millis: Some(0),
                end_millis: None,
            }),
            ..EventFilter::default()
        };
        assert!(Key::of(&open).is_none());
    }

    #[test]
    fn answers_live_for_one_generation() {
        let (changes, generation) = watch::channel(0);
        let cache = AnswerCache::new(generation);
        let answer = Bytes::from_static(b"{}");
        cache.put(&day(0), cache.generation(), answer.clone());
        assert_eq!(cache.get(&day(0), cache.generation()), Some(answer));
        assert_eq!(cache.get(&day(1), cache.generation()), None);
        changes.send_replace(1);
        assert_eq!(cache.get(&day(0), cache.generation()), None);
    }

    #[test]
    fn stays_bounded() {
        let (_changes, generation) = watch::channel(7);
        let cache = AnswerCache::new(generation);
        for n in 0..(3 * CAPACITY as i64) {
            cache.put(&day(n), 7, Bytes::from_static(b"{}"));
            assert!(cache.entries.lock().unwrap().len() <= CAPACITY);
        }
        cache.put(&day(0), 7, Bytes::from(vec![b' '; MAX_ANSWER_BYTES + 1]));
        assert_eq!(cache.get(&day(0), 7), None);
    }
}
