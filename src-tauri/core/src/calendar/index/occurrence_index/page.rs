//! One page of the index: every series occurrence overlapping a fixed span
//! of [`PAGE_MILLIS`], sorted by start.

use std::sync::Arc;

use super::{NoteRef, SeriesNotes};
use crate::calendar::index::cache::{Indexed, SourceCache};
use almanac_model::budget::{Allowance, Exhausted};
use almanac_model::query::{MAX_OCCURRENCES_PER_SERIES, MAX_PAGE_STEPS, MAX_STEPS_PER_SERIES};
use almanac_model::series::memo::YearMemo;
use almanac_model::series::recurrence::{Occurrence, Window};

/// The span one page covers: four weeks. A page is built whole the first
/// time a read reaches it, so its size trades the cost of that first read
/// (every series expanded over the page) against how many pages a range
/// touches.
pub const PAGE_MILLIS: i64 = 28 * 86_400_000;

/// The page holding instant `millis`.
pub fn page_of(millis: i64) -> i64 {
    millis.div_euclid(PAGE_MILLIS)
}

/// The span of page `number`.
pub fn window_of(number: i64) -> Window {
    let start = number.saturating_mul(PAGE_MILLIS);
    Window {
        start,
        end: start.saturating_add(PAGE_MILLIS - 1),
    }
}

/// One occurrence of one series entry.
#[derive(Debug, Clone)]
pub struct SeriesSlot {
    pub occurrence: Occurrence,
    pub note: NoteRef,
    /// The entry, shared with the cache.
    pub indexed: Arc<Indexed>,
}

/// A series left out of a page (it needed more than its share of steps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOutRef {
    pub note: NoteRef,
    pub entry: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Page {
    number: i64,
    /// Sorted by the occurrence's start.
    slots: Vec<SeriesSlot>,
    /// The longest occurrence, `end - start`: how far before a range's start
    /// an overlapping occurrence can begin.
    longest: i64,
    pub left_out: Vec<LeftOutRef>,
}

/// What one page build spent: on the series kept, and on those left out.
pub struct Built {
    pub page: Page,
    pub steps: usize,
    pub burnt: usize,
}

impl Page {
    /// Expands every series of `notes` over page `number`, spending at most
    /// [`MAX_PAGE_STEPS`] (past it, the remaining series are left out of the
    /// page and named).
    pub fn build(
        number: i64,
        sources: &[SourceCache],
        notes: &SeriesNotes,
        memo: &YearMemo,
    ) -> Built {
        let mut page = Page {
            number,
            ..Page::default()
        };
        let mut pool = MAX_PAGE_STEPS;
        let mut burnt = 0;
        for (source, paths) in notes.iter().enumerate() {
            for path in paths {
                let Some(entries) = sources.get(source).and_then(|s| s.notes.get(&**path)) else {
                    continue;
                };
                let note = NoteRef {
                    source: source as u32,
                    path: path.clone(),
                };
                burnt += page.add_note(&note, entries, memo, &mut pool);
            }
        }
        page.sort();
        Built {
            page,
            steps: MAX_PAGE_STEPS - pool - burnt,
            burnt,
        }
    }

    /// Occurrences kept.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Replaces what note `note` contributes with the series of `entries`.
    pub fn replace_note(&mut self, note: &NoteRef, entries: &[Arc<Indexed>], memo: &YearMemo) {
        self.slots.retain(|slot| slot.note != *note);
        self.left_out.retain(|left| left.note != *note);
        let mut pool = MAX_PAGE_STEPS;
        self.add_note(note, entries, memo, &mut pool);
        self.sort();
    }

    /// Adds the series of `entries`; returns the steps burnt by those left
    /// out.
    fn add_note(
        &mut self,
        note: &NoteRef,
        entries: &[Arc<Indexed>],
        memo: &YearMemo,
        pool: &mut usize,
    ) -> usize {
        let mut burnt = 0;
        let window = window_of(self.number);
        let mut expanded = Vec::new();
        for (position, entry) in entries.iter().enumerate() {
            if !entry.timing.is_series() {
                continue;
            }
            let entry_ref = u32::try_from(position).unwrap_or(u32::MAX);
            // Looking at a series costs a step, so a page of many quiet
            // series is still paid for.
            let share = MAX_STEPS_PER_SERIES.min(*pool);
            let mut allowance = Allowance {
                occurrences: MAX_OCCURRENCES_PER_SERIES,
                steps: share.saturating_sub(1),
            };
            expanded.clear();
            let outcome = if share == 0 {
                Err(Exhausted::Steps)
            } else {
                entry
                    .timing
                    .occurrences(window, memo, &mut allowance, &mut expanded)
            };
            let spent = share - allowance.steps.min(share);
            *pool -= spent;
            match outcome {
                Ok(()) => self
                    .slots
                    .extend(expanded.drain(..).map(|occurrence| SeriesSlot {
                        occurrence,
                        note: note.clone(),
                        indexed: entry.clone(),
                    })),
                Err(Exhausted::Steps | Exhausted::Occurrences | Exhausted::Range) => {
                    burnt += spent;
                    entry.mark_left_out();
                    self.left_out.push(LeftOutRef {
                        note: note.clone(),
                        entry: entry_ref,
                    });
                }
            }
        }
        burnt
    }

    fn sort(&mut self) {
        // Stable: after an edit the slots are two sorted runs, which this
        // merges in linear time.
        self.slots.sort_by_key(|slot| slot.occurrence.span.start);
        self.longest = self
            .slots
            .iter()
            .map(|slot| slot.occurrence.span.end - slot.occurrence.span.start)
            .max()
            .unwrap_or(0);
    }

    /// The occurrences overlapping `range` that this page answers for: of
    /// an occurrence spanning several pages, only the page holding the
    /// later of its start and the range's start reports it, so a range
    /// over many pages sees each occurrence once.
    pub fn overlapping(&self, range: Window) -> impl Iterator<Item = &SeriesSlot> {
        let from = range.start.saturating_sub(self.longest);
        let first = self
            .slots
            .partition_point(|slot| slot.occurrence.span.start < from);
        let number = self.number;
        self.slots[first..]
            .iter()
            .take_while(move |slot| slot.occurrence.span.start <= range.end)
            .filter(move |slot| {
                let span = slot.occurrence.span;
                span.end >= range.start && page_of(span.start.max(range.start)) == number
            })
    }
}
