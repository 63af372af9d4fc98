//! The derived set, kept note by note (a vault file, a feed, a CalDAV
//! resource) so an edit re-derives one note.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};

use super::horizon::{Horizon, earliest_start};
use super::rules::Rules;
use super::{VaultReminder, VaultReminders};
use crate::calendar::{Calendar, NoteEvents, NoteKey, NoteOccurrences, Notes};

/// What one note contributes.
#[derive(Debug, Default)]
struct NoteReminders {
    reminders: Vec<Arc<VaultReminder>>,
    /// A series of the note was cut short by the expansion ceiling.
    cut_short: bool,
}

/// A reminder ordered as the set is published: by trigger, then id (then
/// calendar, for two sources reading the same folder).
#[derive(Debug, Clone)]
struct ByTrigger(Arc<VaultReminder>);

impl ByTrigger {
    fn key(&self) -> (DateTime<Utc>, &str, &str) {
        (self.0.trigger, &self.0.id, &self.0.calendar_id)
    }
}

impl PartialEq for ByTrigger {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for ByTrigger {}

impl PartialOrd for ByTrigger {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ByTrigger {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// The vault reminders derived from a calendar, and what following it needs.
#[derive(Debug)]
pub struct DerivedSet {
    rules: Rules,
    horizon: Horizon,
    /// The calendar's note journal cursor this set is up to date with.
    cursor: u64,
    notes: HashMap<NoteKey, NoteReminders>,
    /// Every reminder of `notes`, kept in published order, so publishing
    /// after an edit does not sort the whole set again.
    ordered: BTreeSet<ByTrigger>,
}

impl DerivedSet {
    /// Derives the whole set from `calendar` at `now`.
    pub fn derive(calendar: &Calendar, rules: Rules, now: DateTime<Utc>) -> DerivedSet {
        let horizon = Horizon::at(now, &rules);
        let mut set = DerivedSet {
            rules,
            horizon,
            cursor: 0,
            notes: HashMap::new(),
            ordered: BTreeSet::new(),
        };
        set.follow_edits(calendar);
        set
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Re-derives the notes changed in `calendar` since the last call (all of
    /// them when the calendar cannot say which). Returns whether any were.
    pub fn follow_edits(&mut self, calendar: &Calendar) -> bool {
        let answer = calendar.note_occurrences(
            Notes::ChangedSince(self.cursor),
            self.horizon.start.timestamp_millis(),
            self.horizon.end.timestamp_millis(),
        );
        self.cursor = answer.cursor;
        if answer.everything {
            self.notes.clear();
            self.ordered.clear();
        }
        let changed = answer.everything || !answer.notes.is_empty();
        for events in answer.notes {
            let (note, derived) = self.note_reminders(events);
            if let Some(old) = self.notes.remove(&note) {
                for reminder in old.reminders {
                    self.ordered.remove(&ByTrigger(reminder));
                }
            }
            if !derived.reminders.is_empty() || derived.cut_short {
                self.ordered
                    .extend(derived.reminders.iter().cloned().map(ByTrigger));
                self.notes.insert(note, derived);
            }
        }
        changed
    }

    /// Moves the horizon to `now`: reminders whose occurrence left the grace
    /// window go, and once the end must move on, the occurrences entering
    /// the horizon are added. Returns whether the set changed.
    pub fn advance(&mut self, calendar: &Calendar, now: DateTime<Utc>) -> bool {
        let mut changed = false;
        let start = earliest_start(now, &self.rules);
        if start > self.horizon.start {
            self.horizon.start = start;
            let ordered = &mut self.ordered;
            self.notes.retain(|_, note| {
                // Strictly after, so the next change (see `next_change`) is
                // always ahead of the clock.
                note.reminders.retain(|r| {
                    let stays = r.start > start;
                    if !stays {
                        ordered.remove(&ByTrigger(r.clone()));
                        changed = true;
                    }
                    stays
                });
                !note.reminders.is_empty() || note.cut_short
            });
        }
        if now >= self.horizon.end_moves_at(&self.rules) {
            let end = Horizon::at(now, &self.rules).end;
            let entering: NoteOccurrences = calendar.note_occurrences(
                Notes::All,
                self.horizon.end.timestamp_millis() + 1,
                end.timestamp_millis(),
            );
            self.horizon.end = end;
            for events in entering.notes {
                let (note, derived) = self.note_reminders(events);
                self.ordered
                    .extend(derived.reminders.iter().cloned().map(ByTrigger));
                let kept = self.notes.entry(note).or_default();
                kept.reminders.extend(derived.reminders);
                kept.cut_short |= derived.cut_short;
            }
            changed = true;
        }
        changed
    }

    /// The next moment the set can change by time alone: a reminder's
    /// occurrence leaving the grace window, or the end moving on.
    pub fn next_change(&self) -> DateTime<Utc> {
        let grace = Duration::hours(i64::from(self.rules.grace_hours));
        let leaving = self
            .notes
            .values()
            .flat_map(|note| &note.reminders)
            .map(|r| r.start + grace)
            .min();
        let moving = self.horizon.end_moves_at(&self.rules);
        leaving.map_or(moving, |leaving| leaving.min(moving))
    }

    /// The set as published: every reminder, sorted by trigger then id.
    pub fn snapshot(&self) -> VaultReminders {
        VaultReminders {
            reminders: self.ordered.iter().map(|r| r.0.clone()).collect(),
            horizon_start: self.horizon.start,
            horizon_end: self.horizon.end,
            truncated: self.notes.values().any(|note| note.cut_short),
        }
    }

    fn note_reminders(&self, events: NoteEvents) -> (NoteKey, NoteReminders) {
        for id in &events.cut_short {
            tracing::warn!(
                event = %id,
                "vault reminders: a series has more occurrences in the horizon than the \
                 expansion ceiling allows; its later reminders are missing"
            );
        }
        let reminders = events
            .occurrences
            .iter()
            .filter_map(|occurrence| {
                self.rules
                    .reminder(&events.note, events.in_vault_file, occurrence)
            })
            .map(Arc::new)
            .collect();
        let derived = NoteReminders {
            reminders,
            cut_short: !events.cut_short.is_empty(),
        };
        (events.note, derived)
    }
}
