//! The engine-wide memo of expanded `rrule` years, bounded in size.
//!
//! Setting up the `rrule` iterator costs more than the occurrences it yields
//! for a short window, and queries keep asking about the same few years (a
//! calendar view, a polling client), so the local starts of one calendar
//! year of one series are kept. A memo per series would grow with the vault
//! (and with the frequency of its rules); this one is shared by every series
//! and holds at most [`MAX_STARTS`] starts (12 bytes each) in all. Past that,
//! the least recently used years go first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use chrono::NaiveDateTime;

/// Starts kept in all (about 6 MB).
pub const MAX_STARTS: usize = 500_000;

/// A year holding more starts than this is not kept, so one dense series
/// cannot flush every other series' years.
const MAX_YEAR_STARTS: usize = MAX_STARTS / 16;

/// Identifies one compiled series in the memo. A recompiled series (its note
/// changed) gets a new id; the old one's years age out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeriesId(u64);

impl SeriesId {
    pub fn next() -> SeriesId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        SeriesId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The local starts of one series in one calendar year.
pub type Starts = Arc<[NaiveDateTime]>;

#[derive(Default)]
pub struct YearMemo {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    years: HashMap<(SeriesId, i32), Entry>,
    /// Sum of the entries' lengths.
    starts: usize,
    /// Moves on every lookup; an entry remembers when it was last used.
    clock: u64,
}

struct Entry {
    starts: Starts,
    used: u64,
}

impl YearMemo {
    /// The starts of `series` in `year`, computed by `expand` when not kept.
    /// The lock is not held while `expand` runs: two queries may expand the
    /// same year at once, and neither waits for the other.
    pub fn year<E>(
        &self,
        series: SeriesId,
        year: i32,
        expand: impl FnOnce() -> Result<Starts, E>,
    ) -> Result<Starts, E> {
        if let Some(starts) = self.lock().get(series, year) {
            return Ok(starts);
        }
        let starts = expand()?;
        if starts.len() <= MAX_YEAR_STARTS {
            self.lock().put(series, year, starts.clone());
        }
        Ok(starts)
    }

    /// Starts kept now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().starts
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A summary: the years themselves are too many to print.
impl std::fmt::Debug for YearMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("YearMemo")
            .field("years", &inner.years.len())
            .field("starts", &inner.starts)
            .finish()
    }
}

impl Inner {
    fn get(&mut self, series: SeriesId, year: i32) -> Option<Starts> {
        self.clock += 1;
        let entry = self.years.get_mut(&(series, year))?;
        entry.used = self.clock;
        Some(entry.starts.clone())
    }

    fn put(&mut self, series: SeriesId, year: i32, starts: Starts) {
        self.clock += 1;
        self.starts += starts.len();
        let entry = Entry {
            starts,
            used: self.clock,
        };
        if let Some(old) = self.years.insert((series, year), entry) {
            self.starts -= old.starts.len();
        }
        if self.starts > MAX_STARTS {
            self.evict();
        }
    }

    /// Drops the least recently used years down to three quarters of the
    /// bound, so eviction (a sort) runs once per many insertions.
    fn evict(&mut self) {
        let mut by_age: Vec<_> = self
            .years
            .iter()
            .map(|(key, entry)| (entry.used, *key))
            .collect();
        by_age.sort_unstable_by_key(|(used, _)| *used);
        for (_, key) in by_age {
            if self.starts <= MAX_STARTS / 4 * 3 {
                break;
            }
            if let Some(old) = self.years.remove(&key) {
                self.starts -= old.starts.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(n: usize) -> Starts {
        vec![NaiveDateTime::default(); n].into()
    }

    fn keep(memo: &YearMemo, series: SeriesId, year: i32, n: usize) {
        memo.year(series, year, || Ok::<_, ()>(starts(n))).unwrap();
    }

    #[test]
    fn a_kept_year_is_not_expanded_again() {
        let memo = YearMemo::default();
        let series = SeriesId::next();
        keep(&memo, series, 2026, 365);
        let again = memo.year(series, 2026, || Err("expanded again"));
        assert_eq!(again.unwrap().len(), 365);
        assert!(memo.year(series, 2027, || Err("expanded")).is_err());
    }

    #[test]
    fn stays_under_its_bound_evicting_the_least_recently_used() {
        let memo = YearMemo::default();
        let hot = SeriesId::next();
        keep(&memo, hot, 2026, 366);
        let first_cold = SeriesId::next();
        keep(&memo, first_cold, 2026, 366);
        // Far more daily-series years than fit.
        for _ in 0..(4 * MAX_STARTS / 366) {
            keep(&memo, SeriesId::next(), 2026, 366);
            assert!(memo.len() <= MAX_STARTS);
            // The hot year stays in use, so it is never the oldest.
            memo.year(hot, 2026, || Err("evicted")).unwrap();
        }
        assert!(memo.len() > MAX_STARTS / 2, "{}", memo.len());
        assert!(memo.year(first_cold, 2026, || Err("evicted")).is_err());
    }

    #[test]
    fn a_dense_year_is_not_kept() {
        let memo = YearMemo::default();
        let series = SeriesId::next();
        keep(&memo, series, 2026, MAX_YEAR_STARTS + 1);
        assert_eq!(memo.len(), 0);
    }
}
