//! The occurrences of the calendar's events starting in a time window,
//! note by note: what a follower of the cache (vault reminders) derives its
//! own state from. Every source counts: a "note" is what the cache keys a
//! source's events by (a vault file, a feed's one body, a CalDAV resource),
//! and a feed refresh or a CalDAV sync records the notes it changed in the
//! journal as a vault edit does.
//!
//! With [`Notes::ChangedSince`] only the notes the cache's journal recorded
//! since the cursor are expanded, so following an edit costs one note, not
//! the vault.

use super::budget::Allowance;
use super::cache::{Cache, Indexed};
use super::engine::Calendar;
use super::journal::{NoteChanges, NoteKey};
use super::recurrence::{Timing, Window};

/// One occurrence of an event.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteOccurrence {
    /// The event's id (see [`super::id`]); a series' occurrences share it.
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
    /// (see [`super::query`]), by event id: some of their occurrences are
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
    pub(super) fn occurrences_in_notes(
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
        let mut answer = NoteOccurrences {
            cursor,
            everything: changes == NoteChanges::Everything,
            ..NoteOccurrences::default()
        };
        match changes {
            NoteChanges::Everything => {
                for source in &cache.sources {
                    for (path, entries) in &source.notes {
                        let note = NoteKey {
                            source_id: source.config.id.clone(),
                            path: path.clone(),
                        };
                        let in_file = source.config.dir().is_some();
                        let events = expand(cache, note, in_file, entries, window);
                        if !events.occurrences.is_empty() || !events.cut_short.is_empty() {
                            answer.notes.push(events);
                        }
                    }
                }
            }
            NoteChanges::Notes(keys) => {
                for note in keys {
                    let Some(index) = cache.source_index(&note.source_id) else {
                        continue;
                    };
                    let in_file = cache.sources[index].config.dir().is_some();
                    let entries = cache
                        .note_entries(index, &note.path)
                        .map_or(&[][..], |(_, entries)| entries);
                    answer
                        .notes
                        .push(expand(cache, note, in_file, entries, window));
                }
            }
        }
        answer
    }
}

/// The occurrences of one note's `entries` starting in `window`.
fn expand(
    cache: &Cache,
    note: NoteKey,
    in_vault_file: bool,
    entries: &[Indexed],
    window: Window,
) -> NoteEvents {
    let mut occurrences = Vec::new();
    let mut cut_short = Vec::new();
    let mut expanded = Vec::new();
    for entry in entries {
        expanded.clear();
        match &entry.timing {
            Timing::Once(occurrence) => expanded.push(*occurrence),
            series => {
                let mut allowance = Allowance::per_series();
                if series
                    .occurrences(window, cache.memo(), &mut allowance, &mut expanded)
                    .is_err()
                {
                    cut_short.push(entry.id.to_string());
                }
            }
        }
        let starts = expanded
            .iter()
            .map(|o| o.span.start)
            .filter(|start| (window.start..=window.end).contains(start));
        for start_millis in starts {
            occurrences.push(NoteOccurrence {
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
            });
        }
    }
    NoteEvents {
        note,
        in_vault_file,
        occurrences,
        cut_short,
    }
}
