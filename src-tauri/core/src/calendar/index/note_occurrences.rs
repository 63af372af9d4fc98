//! The occurrences of the calendar's events starting in a time window,
//! note by note: what a follower of the cache (vault reminders) derives its
//! own state from. Every source counts: a "note" is what the cache keys a
//! source's events by (a vault file, a feed's one body, a CalDAV resource),
//! and a feed refresh or a CalDAV sync records the notes it changed in the
//! journal as a vault edit does.
//!
//! Read from the occurrence index, as every range read is. With
//! [`Notes::ChangedSince`] only the notes the cache's journal recorded since
//! the cursor are answered, so following an edit costs one note's entries,
//! not the vault's.

use std::collections::BTreeMap;

use super::cache::{Cache, Indexed};
use super::journal::{NoteChanges, NoteKey};
use super::occurrence_index::NoteRef;
use crate::calendar::engine::Calendar;
use almanac_model::series::recurrence::Window;

/// One occurrence of an event.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteOccurrence {
    /// The event's id (see [`almanac_model::id`]); a series' occurrences share it.
    pub event_id: String,
    pub title: String,
    /// The occurrence's start, epoch milliseconds (all-day: midnight in the
    /// display time zone).
    pub start_millis: i64,
    pub all_day: bool,
    /// `notify.value`: minutes before the start, when the note asks for a
    /// reminder.
    pub notify_minutes: Option<f64>,
    /// The first of the event's `alarms` (a note's, or an iCalendar event's
    /// `VALARM` before its start): minutes before the start.
    pub alarm_minutes: Option<i64>,
    /// A task that is done.
    pub completed: bool,
}

/// What one note holds in the window. Empty when the note is gone or holds
/// nothing there.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteEvents {
    pub note: NoteKey,
    /// The note is a file of the vault (its path opens in Obsidian), not a
    /// feed's body or a CalDAV resource.
    pub in_vault_file: bool,
    pub occurrences: Vec<NoteOccurrence>,
    /// Series of this note cut short by the per-series expansion ceiling
    /// (see [`almanac_model::query`]), by event id: some of their occurrences are
    /// missing.
    pub cut_short: Vec<String>,
}

/// Which notes to expand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notes {
    /// Those changed since this cursor (0: all, the first time).
    ChangedSince(u64),
    /// All of them.
    All,
}

/// The answer of [`Calendar::note_occurrences`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NoteOccurrences {
    /// The cursor to ask with next time.
    pub cursor: u64,
    /// Every note was expanded: notes not listed hold nothing in the window.
    pub everything: bool,
    /// The notes expanded. With `everything`, only those holding something.
    pub notes: Vec<NoteEvents>,
}

impl Calendar {
    /// The work of [`Calendar::note_occurrences`].
    pub(in crate::calendar) fn occurrences_in_notes(
        &self,
        notes: Notes,
        from_millis: i64,
        until_millis: i64,
    ) -> NoteOccurrences {
        let state = self.inner.read();
        let cache = &state.cache;
        let window = Window {
            start: from_millis,
            end: until_millis,
        };
        let (cursor, changes) = match notes {
            Notes::ChangedSince(cursor) => cache.journal.since(cursor),
            Notes::All => (cache.journal.since(u64::MAX).0, NoteChanges::Everything),
        };
        let everything = changes == NoteChanges::Everything;
        // The notes asked about, each with what it holds (so a note that
        // holds nothing any more is answered, empty).
        let mut held: BTreeMap<NoteRef, NoteEvents> = BTreeMap::new();
        if let NoteChanges::Notes(keys) = changes {
            for note in keys {
                let Some(index) = cache.source_index(&note.source_id) else {
                    continue;
                };
                let in_file = cache.sources[index].config.dir().is_some();
                let key = NoteRef {
                    source: index as u32,
                    path: note.path.as_str().into(),
                };
                held.insert(key, NoteEvents::empty(note, in_file));
            }
        }
        let read = cache.index.read(
            &cache.sources,
            &cache.memo,
            (Some(from_millis), Some(until_millis)),
            Some(window),
            None,
            usize::MAX,
            |found| {
                let start = found.start;
                if !(from_millis..=until_millis).contains(&start) {
                    return Ok(());
                }
                if let Some(events) = note_events(&mut held, cache, everything, found.note) {
                    events
                        .occurrences
                        .push(NoteOccurrence::of(found.indexed, start));
                }
                Ok(())
            },
        );
        // Only a range past the index's reach is refused: nothing to follow.
        let Ok(left_out) = read else {
            return NoteOccurrences::default();
        };
        for left in &left_out {
            let Some((_, _, entry)) = cache.resolve(&left.note, left.entry) else {
                continue;
            };
            if let Some(events) = note_events(&mut held, cache, everything, &left.note)
                && !events.cut_short.iter().any(|id| **id == *entry.id)
            {
                events.cut_short.push(entry.id.to_string());
            }
        }
        let mut notes: Vec<NoteEvents> = held.into_values().collect();
        for events in &mut notes {
            events
                .occurrences
                .sort_by(|a, b| (a.start_millis, &a.event_id).cmp(&(b.start_millis, &b.event_id)));
        }
        NoteOccurrences {
            cursor,
            everything,
            notes,
        }
    }
}

/// What `note` holds so far: asked about, or (with `everything`) any note.
fn note_events<'m>(
    held: &'m mut BTreeMap<NoteRef, NoteEvents>,
    cache: &Cache,
    everything: bool,
    note: &NoteRef,
) -> Option<&'m mut NoteEvents> {
    if everything && !held.contains_key(note) {
        let source = cache.sources.get(note.source as usize)?;
        let key = NoteKey {
            source_id: source.config.id.clone(),
            path: note.path.to_string(),
        };
        let events = NoteEvents::empty(key, source.config.dir().is_some());
        held.insert(note.clone(), events);
    }
    held.get_mut(note)
}

impl NoteEvents {
    fn empty(note: NoteKey, in_vault_file: bool) -> NoteEvents {
        NoteEvents {
            note,
            in_vault_file,
            occurrences: Vec::new(),
            cut_short: Vec::new(),
        }
    }
}

impl NoteOccurrence {
    /// The occurrence of `entry` starting at `start_millis`.
    fn of(entry: &Indexed, start_millis: i64) -> NoteOccurrence {
        NoteOccurrence {
            event_id: entry.id.to_string(),
            title: entry.spec.title.clone(),
            start_millis,
            all_day: entry.spec.all_day,
            notify_minutes: entry
                .spec
                .notify
                .as_ref()
                .and_then(|notify| notify.get("value"))
                .and_then(serde_json::Value::as_f64),
            alarm_minutes: entry
                .spec
                .alarms
                .as_ref()
                .and_then(|alarms| alarms.first())
                .map(|alarm| alarm.minutes_before),
            completed: entry.is_completed(),
        }
    }
}
