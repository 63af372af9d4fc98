//! The occurrence index: what every range read of the calendar is answered
//! from (REST, the window's per-day view, the CalDAV server, vault
//! reminders, MCP and the command line all go through
//! [`Cache::query`](crate::calendar::index::cache::Cache::query) or
//! [`Calendar::note_occurrences`](crate::calendar::Calendar::note_occurrences)).
//!
//! - **Single events** ([`singles`]) need no expansion: all of them are kept
//!   sorted by start, whatever their date.
//! - **Series** are expanded page by page ([`page`]): a page holds every
//!   series occurrence overlapping four weeks. A page is built the first time
//!   a read reaches it, so an open-ended series is indexed only around what
//!   has been asked; the pages kept are bounded ([`MAX_SLOTS`],
//!   [`MAX_PAGES`]) and the least recently read go first.
//!
//! A read then costs what it returns: a binary search and the occurrences
//! of its range, not a walk over every series of the vault.
//!
//! The cache tells the index about every change of a note
//! ([`OccurrenceIndex::note_changed`]: a vault edit, a feed refresh, a
//! CalDAV sync, a write), and the index replaces that note's entries in the
//! pages it has built, so an edit costs one note. A rescan or a new display
//! zone starts the index afresh.
//!
//! Built parts are shared (`Arc`) and guarded by a lock of their own: reads
//! hold the engine's state shared, and a read may build a page.

mod page;
mod singles;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

pub use page::{LeftOutRef, Page};
use singles::Singles;

use crate::calendar::index::cache::{Indexed, SourceCache};
use almanac_model::budget::Exhausted;
use almanac_model::query::MAX_PAGE_STEPS;
use almanac_model::series::memo::YearMemo;
use almanac_model::series::recurrence::{Occurrence, Window};

/// Series occurrences kept in all pages together (about 90 bytes each).
pub const MAX_SLOTS: usize = 400_000;

/// Pages kept at most, however empty, and read at most by one range (4,096
/// four-week pages: 314 years; a refusal names them in whole years,
/// `almanac_model::budget::MAX_RANGE_YEARS`).
pub const MAX_PAGES: usize = 4_096;

/// One note of one source: what an index entry points back to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NoteRef {
    /// The source's position in the cache.
    pub source: u32,
    pub path: Arc<str>,
}

/// Per source, the notes holding at least one series: what a page build
/// walks.
pub type SeriesNotes = Vec<BTreeSet<Arc<str>>>;

/// One occurrence found by a read: `occurrence` is `None` for a single
/// event (its entry's own time).
pub struct Found<'a> {
    /// The occurrence's first millisecond.
    pub start: i64,
    pub note: &'a NoteRef,
    /// The entry, shared with the cache (no lookup by path needed).
    pub indexed: &'a Arc<Indexed>,
    pub occurrence: Option<Occurrence>,
}

#[derive(Debug, Default)]
pub struct OccurrenceIndex {
    series_notes: SeriesNotes,
    built: RwLock<Built>,
}

#[derive(Debug, Default, Clone)]
struct Built {
    singles: Option<Arc<Singles>>,
    pages: HashMap<i64, Kept>,
    /// Series occurrences in all pages.
    slots: usize,
}

#[derive(Debug)]
struct Kept {
    page: Arc<Page>,
    /// When a read last used the page (see `clock`).
    used: AtomicU64,
}

impl Clone for Kept {
    fn clone(&self) -> Self {
        Kept {
            page: self.page.clone(),
            used: AtomicU64::new(self.used.load(Ordering::Relaxed)),
        }
    }
}

impl Clone for OccurrenceIndex {
    fn clone(&self) -> Self {
        OccurrenceIndex {
            series_notes: self.series_notes.clone(),
            built: RwLock::new(self.lock_read().clone()),
        }
    }
}

/// Moves on every page read; orders pages for eviction.
static CLOCK: AtomicU64 = AtomicU64::new(0);

impl OccurrenceIndex {
    /// An empty index over `sources` (a fresh cache).
    pub fn new(sources: usize) -> OccurrenceIndex {
        OccurrenceIndex {
            series_notes: vec![BTreeSet::new(); sources],
            built: RwLock::default(),
        }
    }

    /// Takes `entries` as what note `path` of source `source` now holds
    /// (`&[]`: the note is gone), in every part built so far.
    pub fn note_changed(
        &mut self,
        source: usize,
        path: &str,
        entries: &[Arc<Indexed>],
        memo: &YearMemo,
    ) {
        let Some(notes) = self.series_notes.get_mut(source) else {
            return;
        };
        let has_series = entries.iter().any(|e| e.timing.is_series());
        let had_series = notes.contains(path);
        if has_series && !had_series {
            notes.insert(path.into());
        } else if !has_series && had_series {
            notes.remove(path);
        }
        let built = self.built.get_mut().unwrap_or_else(|p| p.into_inner());
        if built.singles.is_none() && built.pages.is_empty() {
            // Nothing built yet (the first scan): nothing to update.
            return;
        }
        // Page slots share the path of `series_notes`, so a read can tell a
        // series' note by its address (see [`OccurrenceIndex::series_notes`]).
        let note = NoteRef {
            source: source as u32,
            path: notes.get(path).cloned().unwrap_or_else(|| path.into()),
        };
        if let Some(singles) = &mut built.singles {
            Arc::make_mut(singles).replace_note(&note, entries);
        }
        if !has_series && !had_series {
            return;
        }
        let mut slots = 0;
        for kept in built.pages.values_mut() {
            let page = Arc::make_mut(&mut kept.page);
            page.replace_note(&note, entries, memo);
            slots += page.len();
        }
        built.slots = slots;
    }

    /// Per source, the notes holding a series. Every page slot's path is
    /// the very `Arc` kept here, so its address identifies the note.
    pub fn series_notes(&self) -> &SeriesNotes {
        &self.series_notes
    }

    /// Forgets everything built and what source `source` holds; the notes
    /// then come back one by one through [`OccurrenceIndex::note_changed`]
    /// or all at once through [`OccurrenceIndex::source_replaced`].
    pub fn source_cleared(&mut self, source: usize) {
        if let Some(notes) = self.series_notes.get_mut(source) {
            notes.clear();
        }
        *self.built.get_mut().unwrap_or_else(|p| p.into_inner()) = Built::default();
    }

    /// Takes source `source`'s notes as a whole (they were copied in).
    pub fn source_replaced(&mut self, source: usize, cached: &SourceCache) {
        self.source_cleared(source);
        if let Some(notes) = self.series_notes.get_mut(source) {
            notes.extend(
                cached
                    .notes
                    .iter()
                    .filter(|(_, entries)| entries.iter().any(|e| e.timing.is_series()))
                    .map(|(path, _)| Arc::from(path.as_str())),
            );
        }
    }

    /// Visits every occurrence overlapping the range: single events
    /// overlapping `start..=end` (open where `None`), then series
    /// occurrences overlapping `series_range` (the same range with open
    /// sides closed at the horizon; `None` when no series is wanted), page
    /// by page, each once. Returns the series left out of the pages read.
    ///
    /// Missing pages are built on the way and kept; when the read wants
    /// the series of `only`, and those are few, a missing page is built for
    /// them alone and not kept (a search costs its matches, not the vault). Building costs steps: past
    /// `step_limit` in all on the series kept, or past [`MAX_PAGE_STEPS`]
    /// burnt by series left out (runaway rules), no further page is built
    /// and the read is refused (the pages built are kept). A range over more than
    /// [`MAX_PAGES`] pages is refused at once; `visit` refusing stops the
    /// read.
    #[allow(clippy::too_many_arguments)]
    pub fn read(
        &self,
        sources: &[SourceCache],
        memo: &YearMemo,
        (start, end): (Option<i64>, Option<i64>),
        series_range: Option<Window>,
        only: Option<&SeriesNotes>,
        step_limit: usize,
        mut visit: impl FnMut(Found<'_>) -> Result<(), Exhausted>,
    ) -> Result<Vec<LeftOutRef>, Exhausted> {
        let singles = self.singles(sources);
        for slot in singles.overlapping(start, end) {
            visit(Found {
                start: slot.span.start,
                note: &slot.note,
                indexed: &slot.indexed,
                occurrence: None,
            })?;
        }
        let Some(series_range) = series_range else {
            return Ok(Vec::new());
        };
        let first = page::page_of(series_range.start);
        let last = page::page_of(series_range.end);
        if last.saturating_sub(first) >= MAX_PAGES as i64 {
            return Err(Exhausted::Range);
        }
        let mut steps = 0;
        let mut burnt = 0;
        let over = |steps: usize, burnt: usize| steps > step_limit || burnt > MAX_PAGE_STEPS;
        let mut left_out = Vec::new();
        for number in first..=last {
            let page = match self.kept(number) {
                Some(page) => page,
                None if over(steps, burnt) => return Err(Exhausted::Steps),
                None => {
                    let few = only.filter(|only| few_of(only, &self.series_notes));
                    let built =
                        Page::build(number, sources, few.unwrap_or(&self.series_notes), memo);
                    steps += built.steps;
                    burnt += built.burnt;
                    let page = Arc::new(built.page);
                    if few.is_none() {
                        self.keep(number, page.clone());
                    }
                    page
                }
            };
            for slot in page.overlapping(series_range) {
                visit(Found {
                    start: slot.occurrence.span.start,
                    note: &slot.note,
                    indexed: &slot.indexed,
                    occurrence: Some(slot.occurrence),
                })?;
            }
            left_out.extend(page.left_out.iter().cloned());
        }
        if over(steps, burnt) {
            return Err(Exhausted::Steps);
        }
        Ok(left_out)
    }

    /// Page `number`, if built, marked as just read.
    fn kept(&self, number: i64) -> Option<Arc<Page>> {
        let built = self.lock_read();
        let kept = built.pages.get(&number)?;
        kept.used
            .store(CLOCK.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        Some(kept.page.clone())
    }

    fn singles(&self, sources: &[SourceCache]) -> Arc<Singles> {
        if let Some(singles) = &self.lock_read().singles {
            return singles.clone();
        }
        let singles = Arc::new(Singles::build(sources));
        let mut built = self.lock_write();
        built.singles.get_or_insert(singles).clone()
    }

    fn keep(&self, number: i64, page: Arc<Page>) {
        let mut built = self.lock_write();
        let kept = Kept {
            used: AtomicU64::new(CLOCK.fetch_add(1, Ordering::Relaxed)),
            page: page.clone(),
        };
        let added = page.len();
        if let Some(old) = built.pages.insert(number, kept) {
            built.slots -= old.page.len();
        }
        built.slots += added;
        if built.slots > MAX_SLOTS || built.pages.len() > MAX_PAGES {
            built.evict();
        }
    }

    /// Series occurrences and pages kept now.
    #[cfg(test)]
    pub fn size(&self) -> (usize, usize) {
        let built = self.lock_read();
        (built.slots, built.pages.len())
    }

    fn lock_read(&self) -> std::sync::RwLockReadGuard<'_, Built> {
        self.built.read().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_write(&self) -> std::sync::RwLockWriteGuard<'_, Built> {
        self.built.write().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether `only` holds under a quarter of `all`'s notes.
fn few_of(only: &SeriesNotes, all: &SeriesNotes) -> bool {
    let count = |notes: &SeriesNotes| notes.iter().map(BTreeSet::len).sum::<usize>();
    count(only) * 4 < count(all)
}

impl Built {
    /// Drops the least recently read pages down to three quarters of both
    /// bounds, so eviction (a sort) runs once per many builds.
    fn evict(&mut self) {
        let mut by_age: Vec<(u64, i64)> = self
            .pages
            .iter()
            .map(|(number, kept)| (kept.used.load(Ordering::Relaxed), *number))
            .collect();
        by_age.sort_unstable();
        for (_, number) in by_age {
            if self.slots <= MAX_SLOTS / 4 * 3 && self.pages.len() <= MAX_PAGES / 4 * 3 {
                break;
            }
            if let Some(old) = self.pages.remove(&number) {
                self.slots -= old.page.len();
            }
        }
    }
}
