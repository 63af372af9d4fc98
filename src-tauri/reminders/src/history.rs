//! What happened to reminders that left the schedule: fired on time, fired
//! late in a missed-reminders summary, or dropped as too old. Kept (bounded)
//! for `/events`, `/doctor` and the Reminders window's "recently fired" list.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::reminder::Reminder;

/// How many entries are kept, in memory and on disk.
pub const HISTORY_LEN: usize = 200;

/// Where a scheduled reminder came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Part of the host's authoritative `/sync` set.
    Synced,
    /// Created by a snooze; survives later syncs until it fires.
    Snoozed,
    /// Part of the set Almanac derives from the vault (replaced whole by the
    /// app, never by a host's `/sync`).
    Vault,
}

/// What became of a reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Shown on its own, on time.
    Fired,
    /// Missed (app closed, machine asleep) and shown in one summary.
    Missed,
    /// Missed by more than the grace window: recorded, not shown.
    Dropped,
}

/// One reminder that left the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Increasing; orders entries and keys them on disk.
    pub seq: u64,
    pub reminder: Reminder,
    pub origin: Origin,
    pub outcome: Outcome,
    /// When the daemon decided (epoch milliseconds).
    pub recorded_at_ms: i64,
}

/// The newest [`HISTORY_LEN`] entries, oldest first.
#[derive(Debug, Default)]
pub struct History {
    entries: VecDeque<HistoryEntry>,
    next_seq: u64,
}

impl History {
    pub fn new(mut entries: Vec<HistoryEntry>) -> Self {
        entries.sort_by_key(|entry| entry.seq);
        let next_seq = entries.last().map_or(0, |entry| entry.seq + 1);
        let excess = entries.len().saturating_sub(HISTORY_LEN);
        Self {
            entries: entries.into_iter().skip(excess).collect(),
            next_seq,
        }
    }

    /// Entries for `records`, numbered after the existing ones, plus the
    /// sequence numbers that then fall out of the window.
    pub fn plan(
        &self,
        records: Vec<(Reminder, Origin, Outcome)>,
        now_ms: i64,
    ) -> (Vec<HistoryEntry>, Vec<u64>) {
        let added: Vec<HistoryEntry> = records
            .into_iter()
            .zip(self.next_seq..)
            .map(|((reminder, origin, outcome), seq)| HistoryEntry {
                seq,
                reminder,
                origin,
                outcome,
                recorded_at_ms: now_ms,
            })
            .collect();
        let overflow = (self.entries.len() + added.len()).saturating_sub(HISTORY_LEN);
        let evicted = self
            .entries
            .iter()
            .chain(&added)
            .take(overflow)
            .map(|entry| entry.seq)
            .collect();
        (added, evicted)
    }

    pub fn push(&mut self, added: &[HistoryEntry]) {
        for entry in added {
            self.next_seq = self.next_seq.max(entry.seq + 1);
            self.entries.push_back(entry.clone());
        }
        while self.entries.len() > HISTORY_LEN {
            self.entries.pop_front();
        }
    }

    /// Newest first.
    pub fn recent(&self) -> Vec<HistoryEntry> {
        self.entries.iter().rev().cloned().collect()
    }

    /// The newest entry for `id`.
    pub fn find(&self, id: &str) -> Option<&HistoryEntry> {
        self.entries
            .iter()
            .rev()
            .find(|entry| entry.reminder.id == id)
    }

    pub fn count(&self, outcome: Outcome) -> usize {
        self.entries
            .iter()
            .filter(|entry| entry.outcome == outcome)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reminder(id: &str) -> Reminder {
        Reminder::from_host(id.into(), String::new(), String::new(), 1, String::new())
    }

    #[test]
    fn keeps_the_newest_entries_and_evicts_the_oldest() {
        let mut history = History::default();
        for round in 0..3 {
            let records = (0..90)
                .map(|i| {
                    (
                        reminder(&format!("{round}-{i}")),
                        Origin::Synced,
                        Outcome::Fired,
                    )
                })
                .collect();
            let (added, evicted) = history.plan(records, 0);
            let expected_evictions = (round * 90 + 90usize).saturating_sub(HISTORY_LEN)
                - (round * 90usize).saturating_sub(HISTORY_LEN);
            assert_eq!(evicted.len(), expected_evictions);
            history.push(&added);
        }
        assert_eq!(history.recent().len(), HISTORY_LEN);
        assert_eq!(history.recent()[0].reminder.id, "2-89");
        let reloaded = History::new(history.recent());
        assert_eq!(reloaded.recent(), history.recent());
        assert_eq!(reloaded.next_seq, 270);
    }
}
