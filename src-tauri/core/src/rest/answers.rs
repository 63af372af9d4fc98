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
//!
//! The cache holds at most [`CAPACITY`] answers and [`MAX_TOTAL_BYTES`] in
//! all; past either, answers of older generations go first, then the
//! longest-kept ones.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::body::Bytes;
use tokio::sync::watch;

use crate::api::EventFilter;

/// Entries kept at most.
const CAPACITY: usize = 128;
/// Bytes kept at most, all entries together.
const MAX_TOTAL_BYTES: usize = 16 * 1024 * 1024;
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
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    filed: HashMap<Key, Filed>,
    /// Sum of the answers' lengths.
    bytes: usize,
    /// Counts insertions; orders the entries by age.
    inserted: u64,
}

struct Filed {
    generation: u64,
    answer: Bytes,
    inserted: u64,
}

impl AnswerCache {
    /// A cache following `generation`, the engine's change counter
    /// ([`Calendar::subscribe`]).
    pub fn new(generation: watch::Receiver<u64>) -> Self {
        Self {
            generation,
            entries: Mutex::default(),
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
        match entries.filed.get(&key) {
            Some(filed) if filed.generation == generation => Some(filed.answer.clone()),
            _ => None,
        }
    }

    pub fn put(&self, filter: &EventFilter, generation: u64, answer: Bytes) {
        let Some(key) = Key::of(filter) else { return };
        if answer.len() > MAX_ANSWER_BYTES {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.insert(key, generation, answer);
    }
}

impl Entries {
    fn insert(&mut self, key: Key, generation: u64, answer: Bytes) {
        self.inserted += 1;
        self.bytes += answer.len();
        let filed = Filed {
            generation,
            answer,
            inserted: self.inserted,
        };
        if let Some(old) = self.filed.insert(key, filed) {
            self.bytes -= old.answer.len();
        }
        while self.filed.len() > CAPACITY || self.bytes > MAX_TOTAL_BYTES {
            // At most CAPACITY entries: a scan is cheaper than an index.
            let Some(victim) = self
                .filed
                .iter()
                .min_by_key(|(_, f)| (f.generation == generation, f.inserted))
                .map(|(key, _)| key.clone())
            else {
                break;
            };
            if let Some(old) = self.filed.remove(&victim) {
                self.bytes -= old.answer.len();
            }
        }
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
            assert!(cache.entries.lock().unwrap().filed.len() <= CAPACITY);
        }
        cache.put(&day(0), 7, Bytes::from(vec![b' '; MAX_ANSWER_BYTES + 1]));
        assert_eq!(cache.get(&day(0), 7), None);
    }

    #[test]
    fn evicts_by_bytes_stale_generations_first_then_the_oldest() {
        let (_changes, generation) = watch::channel(2);
        let cache = AnswerCache::new(generation);
        let big = || Bytes::from(vec![b' '; MAX_ANSWER_BYTES]);
        cache.put(&day(-1), 1, big());
        let fit = (MAX_TOTAL_BYTES / MAX_ANSWER_BYTES) as i64;
        for n in 0..fit {
            cache.put(&day(n), 2, big());
        }
        let entries = |cache: &AnswerCache| {
            let entries = cache.entries.lock().unwrap();
            assert!(entries.bytes <= MAX_TOTAL_BYTES);
            assert_eq!(
                entries.bytes,
                entries
                    .filed
                    .values()
                    .map(|f| f.answer.len())
                    .sum::<usize>()
            );
            entries.filed.len() as i64
        };
        assert_eq!(entries(&cache), fit);
        assert_eq!(cache.get(&day(-1), 1), None, "the stale answer went first");
        assert!(cache.get(&day(0), 2).is_some());
        cache.put(&day(fit), 2, big());
        assert_eq!(entries(&cache), fit);
        assert_eq!(cache.get(&day(0), 2), None, "then the oldest");
        assert!(cache.get(&day(fit), 2).is_some());
    }
}
