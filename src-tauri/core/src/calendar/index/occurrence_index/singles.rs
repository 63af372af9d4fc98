//! The single (non-recurring) events of the whole cache, sorted by start:
//! they need no expansion, so every one is indexed, whatever its date.

use std::sync::Arc;

use super::NoteRef;
use crate::calendar::index::cache::{Indexed, SourceCache};
use almanac_model::series::recurrence::{Span, Timing};

/// Events longer than this are kept apart and checked one by one, so a few
/// long ones (a month-long trip) do not widen every lookup.
const SHORT_MILLIS: i64 = 7 * 86_400_000;

#[derive(Debug, Clone)]
pub struct SingleSlot {
    pub span: Span,
    pub note: NoteRef,
    /// The entry, shared with the cache.
    pub indexed: Arc<Indexed>,
}

#[derive(Debug, Clone, Default)]
pub struct Singles {
    /// At most [`SHORT_MILLIS`] long, sorted by start.
    short: Vec<SingleSlot>,
    long: Vec<SingleSlot>,
}

impl Singles {
    pub fn build(sources: &[SourceCache]) -> Singles {
        let mut singles = Singles::default();
        for (source, cached) in sources.iter().enumerate() {
            for (path, entries) in &cached.notes {
                let note = NoteRef {
                    source: source as u32,
                    path: path.as_str().into(),
                };
                singles.add_note(&note, entries);
            }
        }
        singles.short.sort_by_key(|slot| slot.span.start);
        singles
    }

    /// Replaces what `note` contributes with the single events of `entries`.
    pub fn replace_note(&mut self, note: &NoteRef, entries: &[Arc<Indexed>]) {
        self.short.retain(|slot| slot.note != *note);
        self.long.retain(|slot| slot.note != *note);
        self.add_note(note, entries);
        // Two sorted runs: a linear merge.
        self.short.sort_by_key(|slot| slot.span.start);
    }

    fn add_note(&mut self, note: &NoteRef, entries: &[Arc<Indexed>]) {
        for entry in entries {
            let Timing::Once(occurrence) = &entry.timing else {
                continue;
            };
            let slot = SingleSlot {
                span: occurrence.span,
                note: note.clone(),
                indexed: entry.clone(),
            };
            if slot.span.end - slot.span.start <= SHORT_MILLIS {
                self.short.push(slot);
            } else {
                self.long.push(slot);
            }
        }
    }

    /// The events overlapping the closed range `start..=end` (a missing
    /// bound is open).
    pub fn overlapping(
        &self,
        start: Option<i64>,
        end: Option<i64>,
    ) -> impl Iterator<Item = &SingleSlot> {
        let first = start.map_or(0, |start| {
            let from = start.saturating_sub(SHORT_MILLIS);
            self.short.partition_point(|slot| slot.span.start < from)
        });
        self.short[first..]
            .iter()
            .take_while(move |slot| end.is_none_or(|end| slot.span.start <= end))
            .chain(self.long.iter())
            .filter(move |slot| slot.span.overlaps(start, end))
    }
}
