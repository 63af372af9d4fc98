//! Which notes changed: a bounded journal of the cache's note changes, so a
//! follower (vault reminders) can re-read only the notes an edit touched
//! instead of the whole cache.
//!
//! Every change of what a note contributes gets a sequence number. A follower
//! keeps the cursor it was last given and asks for what changed since. When
//! it cannot be told exactly — a rescan or a new cache replaced everything,
//! or the journal forgot entries it had not read yet — the answer is
//! [`NoteChanges::Everything`], never a partial list.

use std::collections::{BTreeSet, VecDeque};

/// Entries kept; a follower further behind gets [`NoteChanges::Everything`].
const CAPACITY: usize = 4096;

/// A note of a source: the source's id and the vault-relative path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NoteKey {
    pub source_id: String,
    pub path: String,
}

/// What changed since a cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteChanges {
    /// Re-read every note.
    Everything,
    /// Only these notes changed (each once).
    Notes(BTreeSet<NoteKey>),
}

#[derive(Debug, Clone)]
pub struct Journal {
    /// The sequence number of the next change.
    next: u64,
    /// The sequence number of the last "everything changed".
    reset_at: u64,
    /// Changes before this number were forgotten.
    dropped_before: u64,
    entries: VecDeque<(u64, NoteKey)>,
}

impl Default for Journal {
    /// A journal whose first answer is "everything".
    fn default() -> Self {
        Self {
            next: 1,
            reset_at: 0,
            dropped_before: 0,
            entries: VecDeque::new(),
        }
    }
}

impl Journal {
    /// Records that note `path` of source `source_id` changed.
    pub fn touch(&mut self, source_id: &str, path: &str) {
        if self.entries.len() == CAPACITY
            && let Some((seq, _)) = self.entries.pop_front()
        {
            self.dropped_before = seq + 1;
        }
        self.entries.push_back((
            self.next,
            NoteKey {
                source_id: source_id.to_string(),
                path: path.to_string(),
            },
        ));
        self.next += 1;
    }

    /// Records that everything changed (a rescan, a new cache).
    pub fn reset(&mut self) {
        self.reset_at = self.next;
        self.next += 1;
        self.entries.clear();
    }

    /// This journal's sequence continued, with everything changed: for the
    /// cache that replaces the one this journal belongs to.
    pub fn continued(&self) -> Journal {
        let mut journal = Journal {
            next: self.next,
            reset_at: self.reset_at,
            dropped_before: self.dropped_before,
            entries: VecDeque::new(),
        };
        journal.reset();
        journal
    }

    /// What changed since `cursor` (0: never asked), and the cursor to ask
    /// with next time.
    pub fn since(&self, cursor: u64) -> (u64, NoteChanges) {
        let changes = if cursor <= self.reset_at || cursor < self.dropped_before {
            NoteChanges::Everything
        } else {
            NoteChanges::Notes(
                self.entries
                    .iter()
                    .filter(|(seq, _)| *seq >= cursor)
                    .map(|(_, key)| key.clone())
                    .collect(),
            )
        };
        (self.next, changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notes(paths: &[&str]) -> NoteChanges {
        NoteChanges::Notes(
            paths
                .iter()
                .map(|p| NoteKey {
                    source_id: "s".into(),
                    path: p.to_string(),
                })
                .collect(),
        )
    }

    #[test]
    fn a_follower_gets_everything_first_then_only_what_changed() {
        let mut journal = Journal::default();
        journal.touch("s", "a.md");
        let (cursor, first) = journal.since(0);
        assert_eq!(first, NoteChanges::Everything);
        assert_eq!(journal.since(cursor).1, notes(&[]));
        journal.touch("s", "b.md");
        journal.touch("s", "b.md");
        journal.touch("s", "c.md");
        let (next, changes) = journal.since(cursor);
        assert_eq!(changes, notes(&["b.md", "c.md"]));
        assert_eq!(journal.since(next).1, notes(&[]));
    }

    #[test]
    fn a_reset_or_a_forgotten_entry_means_everything() {
        let mut journal = Journal::default();
        let (cursor, _) = journal.since(0);
        journal.reset();
        journal.touch("s", "a.md");
        assert_eq!(journal.since(cursor).1, NoteChanges::Everything);
        let (cursor, _) = journal.since(cursor);
        let replaced = journal.continued();
        assert_eq!(replaced.since(cursor).1, NoteChanges::Everything);
        let (cursor, _) = replaced.since(cursor);
        let mut journal = replaced;
        for n in 0..=CAPACITY {
            journal.touch("s", &format!("{n}.md"));
        }
        assert_eq!(journal.since(cursor).1, NoteChanges::Everything);
    }
}
