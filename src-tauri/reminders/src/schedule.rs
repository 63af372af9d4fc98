//! The in-memory schedule: an ordered index of pending reminders (the
//! scheduler only ever looks at its head), the host's synced set, the vault
//! set and the snoozed set by id, and the keys of reminders that already
//! fired. A host reminder that a vault reminder stands for is kept in the
//! host's set but not queued (see [`crate::dedup`]).
//!
//! It mirrors the store exactly: every mutation is a [`Changes`] value that
//! is first committed to the store and then applied here with
//! [`Schedule::apply`]. Planning functions are pure so they are unit-tested
//! without a runtime.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::dedup::{self, VaultCover};
use crate::history::Origin;
use crate::reminder::{Reminder, Source};
use crate::store::{Changes, FiredKey, Stored};

/// Fired keys are remembered this long after their trigger. A key only
/// matters while its trigger could be synced again, i.e. after the wall
/// clock was set back; a month covers any sane clock correction.
pub const FIRED_RETENTION_SECS: i64 = 30 * 24 * 60 * 60;

/// A pending reminder in trigger order.
#[derive(Debug, Clone)]
pub struct Slot {
    pub origin: Origin,
    pub reminder: Arc<Reminder>,
}

impl Slot {
    fn sort_key(&self) -> (i64, Origin, &str) {
        (
            self.reminder.trigger_at_epoch,
            self.origin,
            &self.reminder.id,
        )
    }
}

impl PartialEq for Slot {
    fn eq(&self, other: &Self) -> bool {
        self.sort_key() == other.sort_key()
    }
}

impl Eq for Slot {}

impl PartialOrd for Slot {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Slot {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

/// A reminder in a set keyed by its id, without a second copy of the id.
#[derive(Debug, Clone)]
struct ById(Arc<Reminder>);

impl Borrow<str> for ById {
    fn borrow(&self) -> &str {
        &self.0.id
    }
}

impl Hash for ById {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.id.as_str().hash(state);
    }
}

impl PartialEq for ById {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for ById {}

/// What a `/sync` did, for its answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SyncSummary {
    /// Elements in the request.
    pub received: usize,
    /// Of those, now scheduled (`late` ones included).
    pub scheduled: usize,
    /// Of those, skipped because that `(id, trigger_at_epoch)` already fired.
    pub skipped_already_fired: usize,
    /// Reminders pending in total (synced, vault, snoozed,
    /// due-but-not-yet-shown).
    pub active_reminders: usize,
    /// Of the scheduled elements, those not queued because a reminder from
    /// the other source stands for the same occurrence (one notification,
    /// not two: see [`crate::dedup`]).
    pub deduplicated: usize,
    /// Scheduled elements whose trigger had already passed (by at most the
    /// late limit): they fire at once.
    pub late: Vec<SyncedItem>,
    /// Elements whose trigger lies further back than the late limit: not
    /// scheduled, not shown.
    pub expired: Vec<SyncedItem>,
}

/// One element of a `/sync`, as its answer names it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SyncedItem {
    pub id: String,
    pub trigger_at_epoch: i64,
}

impl SyncedItem {
    fn of(reminder: &Reminder) -> Self {
        Self {
            id: reminder.id.clone(),
            trigger_at_epoch: reminder.trigger_at_epoch,
        }
    }
}

/// The stored sets a schedule is built from.
struct Sets {
    synced: Vec<Arc<Reminder>>,
    vault: Vec<Arc<Reminder>>,
    snoozed: Vec<Arc<Reminder>>,
}

/// The keys a host or vault instance leaves when it fires or is consumed
/// by a snooze: its own, and its note's (see [`crate::dedup`]).
fn fired_keys(reminder: &Reminder) -> impl Iterator<Item = FiredKey> + use<> {
    let trigger_at_epoch = reminder.trigger_at_epoch;
    let note = dedup::fired_note_key(reminder).map(|id| FiredKey {
        id,
        trigger_at_epoch,
    });
    std::iter::once(FiredKey::of(reminder)).chain(note)
}

/// The result of planning a sync: the schedule to swap in once `changes`
/// are durable, or `None` when nothing changes (the host re-sent its set).
pub struct SyncPlan {
    pub next: Option<Schedule>,
    pub changes: Changes,
    pub summary: SyncSummary,
}

#[derive(Debug, Default, Clone)]
pub struct Schedule {
    queue: BTreeSet<Slot>,
    synced: HashSet<ById>,
    vault: HashSet<ById>,
    snoozed: HashSet<ById>,
    /// id → triggers of that id that already fired.
    fired: HashMap<String, Vec<i64>>,
}

impl Schedule {
    pub fn from_stored(stored: Stored) -> Self {
        Self::from_parts(
            Sets {
                synced: stored.synced.into_iter().map(Arc::new).collect(),
                vault: stored.vault.into_iter().map(Arc::new).collect(),
                snoozed: stored.snoozed.into_iter().map(Arc::new).collect(),
            },
            stored.fired,
        )
    }

    /// Builds the whole schedule at once: sorting and bulk-loading the
    /// index is several times faster than inserting 100k slots one by one.
    ///
    /// This is also the one place that decides which stored reminders are
    /// queued: every host or vault reminder, except one the other source
    /// stands for (see [`crate::dedup`]) or one whose instance already
    /// fired.
    fn from_parts(sets: Sets, fired: impl IntoIterator<Item = FiredKey>) -> Self {
        let mut schedule = Schedule {
            queue: BTreeSet::new(),
            synced: sets.synced.into_iter().map(ById).collect(),
            vault: sets.vault.into_iter().map(ById).collect(),
            snoozed: sets.snoozed.into_iter().map(ById).collect(),
            fired: HashMap::new(),
        };
        for key in fired {
            schedule.add_fired(key);
        }
        let cover = VaultCover::of(schedule.vault.iter().map(|entry| entry.0.as_ref()));
        // Which sources have note keys at all: without any, no reminder's
        // link needs reading.
        let noted = |source| {
            schedule
                .fired
                .keys()
                .any(|id| dedup::is_note_key_of(source, id))
        };
        let (host_noted, vault_noted) = (noted(Source::Host), noted(Source::Vault));
        let slot = |origin| {
            move |entry: &ById| Slot {
                origin,
                reminder: entry.0.clone(),
            }
        };
        let mut slots: Vec<Slot> = schedule
            .synced
            .iter()
            .filter(|entry| {
                !cover.covers(&entry.0) && !schedule.shown_elsewhere(&entry.0, vault_noted)
            })
            .map(slot(Origin::Synced))
            .chain(
                schedule
                    .vault
                    .iter()
                    .filter(|entry| !schedule.shown_elsewhere(&entry.0, host_noted))
                    .map(slot(Origin::Vault)),
            )
            .chain(schedule.snoozed.iter().map(slot(Origin::Snoozed)))
            .collect();
        drop(cover);
        slots.sort_unstable();
        schedule.queue = slots.into_iter().collect();
        schedule
    }

    /// Whether this instance, or the other source's reminder for the same
    /// note and trigger, was already shown (or consumed by a snooze).
    /// `other_noted`: whether the other source left note keys at all.
    fn shown_elsewhere(&self, reminder: &Reminder, other_noted: bool) -> bool {
        let other = match reminder.source {
            Source::Host => Source::Vault,
            Source::Vault => Source::Host,
        };
        self.has_fired(&reminder.id, reminder.trigger_at_epoch)
            || other_noted
                && dedup::note_of(reminder).is_some_and(|note| {
                    self.has_fired(
                        &dedup::note_fired_id(other, &note),
                        reminder.trigger_at_epoch,
                    )
                })
    }

    /// Whether `reminder` of `origin` is in the queue (not left out as a
    /// duplicate).
    fn is_queued(&self, origin: Origin, reminder: &Arc<Reminder>) -> bool {
        self.queue.contains(&Slot {
            origin,
            reminder: reminder.clone(),
        })
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The earliest pending reminder.
    pub fn next(&self) -> Option<&Slot> {
        self.queue.first()
    }

    /// Pending reminders in trigger order.
    pub fn iter(&self) -> impl Iterator<Item = &Slot> {
        self.queue.iter()
    }

    pub fn snoozed_count(&self) -> usize {
        self.snoozed.len()
    }

    /// How many reminder instances are remembered as fired (the per-note
    /// keys kept beside them for [`crate::dedup`] are not instances).
    pub fn fired_count(&self) -> usize {
        self.fired
            .iter()
            .filter(|(id, _)| !dedup::is_note_key(id))
            .map(|(_, triggers)| triggers.len())
            .sum()
    }

    /// The pending reminder with this id: a snoozed one first, then the
    /// vault's (which wins over a host's with the same id).
    pub fn find(&self, id: &str) -> Option<Slot> {
        let found = |origin, set: &HashSet<ById>| {
            set.get(id).map(|entry| Slot {
                origin,
                reminder: entry.0.clone(),
            })
        };
        found(Origin::Snoozed, &self.snoozed)
            .or_else(|| found(Origin::Vault, &self.vault))
            .or_else(|| found(Origin::Synced, &self.synced))
    }

    pub fn has_fired(&self, id: &str, trigger_at_epoch: i64) -> bool {
        self.fired
            .get(id)
            .is_some_and(|triggers| triggers.contains(&trigger_at_epoch))
    }

    /// Pending reminders whose trigger instant is at or before `now_ms`.
    pub fn due(&self, now_ms: i64) -> Vec<Slot> {
        self.queue
            .iter()
            .take_while(|slot| slot.reminder.trigger_ms() <= now_ms)
            .cloned()
            .collect()
    }

    /// Replaces the host's synced set with `incoming` (already validated);
    /// the vault set is untouched.
    pub fn plan_sync(
        &self,
        incoming: Vec<Reminder>,
        now_epoch: i64,
        late_limit_secs: i64,
    ) -> SyncPlan {
        self.plan_replace(Origin::Synced, incoming, now_epoch, late_limit_secs)
    }

    /// Replaces the vault set with `incoming` (already validated); the
    /// host's set is untouched. Otherwise exactly as [`Self::plan_sync`].
    pub fn plan_vault(
        &self,
        incoming: Vec<Reminder>,
        now_epoch: i64,
        late_limit_secs: i64,
    ) -> SyncPlan {
        self.plan_replace(Origin::Vault, incoming, now_epoch, late_limit_secs)
    }

    /// Replaces the set of `origin` (synced or vault) with `incoming`.
    ///
    /// Instances that already fired are left out. An instance whose trigger
    /// is at or before `now_epoch` is still scheduled (so it fires at once)
    /// if it is at most `late_limit_secs` old, and reported as `late`; an
    /// older one is left out and reported as `expired`. The host drops only
    /// items at or before the current second, so the item it computed one
    /// second ahead can arrive a moment past its trigger. Synced reminders that are
    /// due but not yet shown are kept: the host omits past items, so a sync
    /// racing the scheduler by a millisecond must not swallow them.
    /// Snoozed reminders are untouched. Fired keys older than
    /// [`FIRED_RETENTION_SECS`] are forgotten in the same commit.
    fn plan_replace(
        &self,
        origin: Origin,
        incoming: Vec<Reminder>,
        now_epoch: i64,
        late_limit_secs: i64,
    ) -> SyncPlan {
        let received = incoming.len();
        let expired_before = now_epoch.saturating_sub(late_limit_secs);
        let is_expired = |r: &Reminder| r.trigger_at_epoch < expired_before;
        let mut changes = Changes::default();
        let mut kept: Vec<Arc<Reminder>> = Vec::with_capacity(received);
        {
            let accepted: HashSet<&str> = incoming
                .iter()
                .filter(|r| !self.has_fired(&r.id, r.trigger_at_epoch) && !is_expired(r))
                .map(|r| r.id.as_str())
                .collect();
            for ById(old) in self.set_of(origin) {
                if accepted.contains(old.id.as_str()) {
                    continue;
                }
                if old.trigger_at_epoch <= now_epoch {
                    kept.push(old.clone());
                } else {
                    changes.remove.push((origin, old.id.clone()));
                }
            }
        }
        let mut skipped_already_fired = 0;
        let (mut late, mut expired) = (Vec::new(), Vec::new());
        for reminder in incoming {
            if self.has_fired(&reminder.id, reminder.trigger_at_epoch) {
                skipped_already_fired += 1;
                continue;
            }
            if is_expired(&reminder) {
                expired.push(SyncedItem::of(&reminder));
                continue;
            }
            if reminder.trigger_at_epoch <= now_epoch {
                late.push(SyncedItem::of(&reminder));
            }
            match self.set_of(origin).get(reminder.id.as_str()) {
                // Unchanged: keep sharing the stored value, write nothing.
                Some(ById(old)) if **old == reminder => kept.push(old.clone()),
                _ => {
                    let reminder = Arc::new(reminder);
                    changes.put.push((origin, reminder.clone()));
                    kept.push(reminder);
                }
            }
        }
        let scheduled = received - skipped_already_fired - expired.len();

        let horizon = now_epoch.saturating_sub(FIRED_RETENTION_SECS);
        let mut kept_fired = Vec::new();
        for (id, triggers) in &self.fired {
            for &trigger_at_epoch in triggers {
                let key = FiredKey {
                    id: id.clone(),
                    trigger_at_epoch,
                };
                if trigger_at_epoch < horizon {
                    changes.forget_fired.push(key);
                } else {
                    kept_fired.push(key);
                }
            }
        }

        let stored_set = |set: &HashSet<ById>| set.iter().map(|entry| entry.0.clone()).collect();
        let next = (!changes.is_empty()).then(|| {
            let (synced, vault) = match origin {
                Origin::Vault => (stored_set(&self.synced), kept.clone()),
                _ => (kept.clone(), stored_set(&self.vault)),
            };
            let sets = Sets {
                synced,
                vault,
                snoozed: stored_set(&self.snoozed),
            };
            Schedule::from_parts(sets, kept_fired)
        });
        let result = next.as_ref().unwrap_or(self);
        let active_reminders = result.len();
        let deduplicated = kept
            .iter()
            .filter(|reminder| !result.is_queued(origin, reminder))
            .count();
        SyncPlan {
            next,
            changes,
            summary: SyncSummary {
                received,
                scheduled,
                skipped_already_fired,
                active_reminders,
                deduplicated,
                late,
                expired,
            },
        }
    }

    /// Schedules `snoozed` (replacing an earlier snooze of the same id). A
    /// pending synced instance with that id is consumed: it is removed and
    /// its key marked fired, so the host re-sending it does not show it a
    /// second time.
    pub fn plan_snooze(&self, snoozed: Reminder) -> Changes {
        let mut changes = Changes::default();
        let origin = match snoozed.source {
            Source::Host => Origin::Synced,
            Source::Vault => Origin::Vault,
        };
        if let Some(ById(pending)) = self.set_of(origin).get(snoozed.id.as_str()) {
            changes.remove.push((origin, pending.id.clone()));
            changes.add_fired.extend(fired_keys(pending));
        }
        changes.put.push((Origin::Snoozed, Arc::new(snoozed)));
        changes
    }

    /// Removes `slots` from the schedule and marks them fired (a host or
    /// vault reminder also under its note, see [`crate::dedup`]).
    pub fn plan_fired(&self, slots: &[Slot]) -> Changes {
        let mut changes = Changes::default();
        for slot in slots {
            changes.remove.push((slot.origin, slot.reminder.id.clone()));
            match slot.origin {
                Origin::Snoozed => changes.add_fired.push(FiredKey::of(&slot.reminder)),
                Origin::Synced | Origin::Vault => {
                    changes.add_fired.extend(fired_keys(&slot.reminder));
                }
            }
        }
        changes
    }

    /// Mirrors a committed change (history entries are not kept here).
    pub fn apply(&mut self, changes: &Changes) {
        for (origin, id) in &changes.remove {
            self.remove(*origin, id);
        }
        for (origin, reminder) in &changes.put {
            self.put(*origin, reminder.clone());
        }
        for key in &changes.forget_fired {
            if let Some(triggers) = self.fired.get_mut(&key.id) {
                triggers.retain(|&t| t != key.trigger_at_epoch);
                if triggers.is_empty() {
                    self.fired.remove(&key.id);
                }
            }
        }
        for key in &changes.add_fired {
            self.add_fired(key.clone());
        }
    }

    fn set(&mut self, origin: Origin) -> &mut HashSet<ById> {
        match origin {
            Origin::Synced => &mut self.synced,
            Origin::Vault => &mut self.vault,
            Origin::Snoozed => &mut self.snoozed,
        }
    }

    fn set_of(&self, origin: Origin) -> &HashSet<ById> {
        match origin {
            Origin::Synced => &self.synced,
            Origin::Vault => &self.vault,
            Origin::Snoozed => &self.snoozed,
        }
    }

    fn put(&mut self, origin: Origin, reminder: Arc<Reminder>) {
        if let Some(ById(old)) = self.set(origin).replace(ById(reminder.clone())) {
            self.queue.remove(&Slot {
                origin,
                reminder: old,
            });
        }
        self.queue.insert(Slot { origin, reminder });
    }

    fn remove(&mut self, origin: Origin, id: &str) {
        if let Some(ById(old)) = self.set(origin).take(id) {
            self.queue.remove(&Slot {
                origin,
                reminder: old,
            });
        }
    }

    fn add_fired(&mut self, key: FiredKey) {
        let triggers = self.fired.entry(key.id).or_default();
        if !triggers.contains(&key.trigger_at_epoch) {
            triggers.push(key.trigger_at_epoch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reminder(id: &str, trigger: i64) -> Reminder {
        Reminder::from_host(id.into(), id.into(), String::new(), trigger, String::new())
    }

    const LATE_LIMIT: i64 = 3600;

    fn ids(schedule: &Schedule) -> Vec<(String, i64, Origin)> {
        schedule
            .iter()
            .map(|s| (s.reminder.id.clone(), s.reminder.trigger_at_epoch, s.origin))
            .collect()
    }

    fn synced(
        schedule: &Schedule,
        incoming: Vec<Reminder>,
        now: i64,
    ) -> (Schedule, Changes, SyncSummary) {
        let plan = schedule.plan_sync(incoming, now, LATE_LIMIT);
        let next = plan.next.unwrap_or_else(|| schedule.clone());
        (next, plan.changes, plan.summary)
    }

    #[test]
    fn sync_replaces_the_set_and_orders_by_trigger() {
        let (s1, c1, _) = synced(
            &Schedule::default(),
            vec![reminder("b", 200), reminder("a", 100)],
            50,
        );
        assert_eq!(c1.put.len(), 2);
        assert_eq!(s1.next().unwrap().reminder.id, "a");
        let (s2, c2, summary) = synced(&s1, vec![reminder("a", 100), reminder("c", 150)], 60);
        assert_eq!(
            ids(&s2),
            vec![
                ("a".into(), 100, Origin::Synced),
                ("c".into(), 150, Origin::Synced)
            ]
        );
        // Unchanged "a" is not rewritten; "b" is removed; "c" is added.
        assert_eq!(c2.remove, vec![(Origin::Synced, "b".to_string())]);
        assert_eq!(c2.put.len(), 1);
        assert_eq!(summary.active_reminders, 2);
        let again = s2.plan_sync(vec![reminder("c", 150), reminder("a", 100)], 60, LATE_LIMIT);
        assert!(again.next.is_none() && again.changes.is_empty());
        assert_eq!(again.summary.active_reminders, 2);
    }

    #[test]
    fn a_fired_instance_is_not_scheduled_again_but_a_new_trigger_is() {
        let (mut s, _, _) = synced(&Schedule::default(), vec![reminder("a", 100)], 50);
        let due = s.due(100_000);
        s.apply(&s.plan_fired(&due));
        assert!(s.is_empty());
        let (s, _, summary) = synced(&s, vec![reminder("a", 100), reminder("a2", 300)], 90);
        assert_eq!(summary.skipped_already_fired, 1);
        assert_eq!(ids(&s), vec![("a2".into(), 300, Origin::Synced)]);
        let (s, _, summary) = synced(&s, vec![reminder("a", 400)], 90);
        assert_eq!(summary.skipped_already_fired, 0);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn due_synced_reminders_survive_a_sync_that_omits_them() {
        let (s, _, _) = synced(
            &Schedule::default(),
            vec![reminder("a", 100), reminder("b", 200)],
            50,
        );
        let (s, _, _) = synced(&s, vec![], 100);
        assert_eq!(ids(&s), vec![("a".into(), 100, Origin::Synced)]);
    }

    #[test]
    fn past_items_within_the_limit_are_scheduled_as_late_older_ones_expire() {
        let now = 10_000;
        let (s, _, summary) = synced(
            &Schedule::default(),
            vec![
                reminder("ahead", now + 60),
                reminder("a-second-ago", now - 1),
                reminder("this-second", now),
                reminder("at-the-limit", now - LATE_LIMIT),
                reminder("too-old", now - LATE_LIMIT - 1),
            ],
            now,
        );
        let names = |items: &[SyncedItem]| -> Vec<String> {
            items.iter().map(|item| item.id.clone()).collect()
        };
        assert_eq!(
            names(&summary.late),
            ["a-second-ago", "this-second", "at-the-limit"]
        );
        assert_eq!(names(&summary.expired), ["too-old"]);
        assert_eq!(summary.expired[0].trigger_at_epoch, now - LATE_LIMIT - 1);
        assert_eq!((summary.received, summary.scheduled), (5, 4));
        assert_eq!(
            ids(&s).into_iter().map(|(id, ..)| id).collect::<Vec<_>>(),
            ["at-the-limit", "a-second-ago", "this-second", "ahead"]
        );
        assert_eq!(s.due(now * 1000).len(), 3);
    }

    #[test]
    fn snoozes_survive_syncs_and_consume_the_pending_instance() {
        let (mut s, _, _) = synced(
            &Schedule::default(),
            vec![reminder("a", 100), reminder("b", 200)],
            50,
        );
        let changes = s.plan_snooze(reminder("b", 120));
        s.apply(&changes);
        assert_eq!(
            ids(&s),
            vec![
                ("a".into(), 100, Origin::Synced),
                ("b".into(), 120, Origin::Snoozed)
            ]
        );
        let (s, _, summary) = synced(&s, vec![reminder("a", 100), reminder("b", 200)], 60);
        assert_eq!(summary.skipped_already_fired, 1);
        assert_eq!(
            ids(&s),
            vec![
                ("a".into(), 100, Origin::Synced),
                ("b".into(), 120, Origin::Snoozed)
            ]
        );
    }

    fn vault(id: &str, trigger: i64, path: &str) -> Reminder {
        Reminder {
            source: Source::Vault,
            event: Some(Box::new(crate::reminder::EventRef {
                id: format!("fullnote:{path}"),
                title: id.into(),
                path: path.into(),
                start: "2026-11-23T09:30".into(),
            })),
            ..reminder(id, trigger)
        }
    }

    /// The plugin host's element: a per-session counter as id, the note in
    /// its `obsidian://open` link.
    fn plugin(id: &str, trigger: i64, path: &str) -> Reminder {
        Reminder {
            action_url: format!(
                "obsidian://open?vault=My%20Vault&file={}",
                path.replace('/', "%2F").replace(' ', "%20")
            ),
            ..reminder(id, trigger)
        }
    }

    fn vault_replaced(schedule: &Schedule, incoming: Vec<Reminder>, now: i64) -> Schedule {
        let plan = schedule.plan_vault(incoming, now, LATE_LIMIT);
        plan.next.unwrap_or_else(|| schedule.clone())
    }

    fn fire_due(schedule: &mut Schedule, now: i64) -> Vec<(String, Origin)> {
        let due = schedule.due(now * 1000);
        schedule.apply(&schedule.plan_fired(&due));
        due.iter()
            .map(|slot| (slot.reminder.id.clone(), slot.origin))
            .collect()
    }

    #[test]
    fn host_and_vault_sets_never_replace_each_other() {
        let s = vault_replaced(
            &Schedule::default(),
            vec![vault("v", 100, "events/V.md")],
            50,
        );
        let (s, _, summary) = synced(&s, vec![reminder("h", 200)], 50);
        assert_eq!(summary.active_reminders, 2);
        let (s, changes, _) = synced(&s, vec![], 60);
        assert_eq!(changes.remove, vec![(Origin::Synced, "h".to_string())]);
        assert_eq!(ids(&s), vec![("v".into(), 100, Origin::Vault)]);
        let s = vault_replaced(&s, vec![], 60);
        assert!(s.is_empty());
        // The same id in both sets is two reminders, not one overwriting
        // the other; the vault's is the one queued (see dedup).
        let s = vault_replaced(&s, vec![vault("x", 100, "events/X.md")], 60);
        let (s, _, summary) = synced(&s, vec![reminder("x", 100)], 60);
        assert_eq!(summary.deduplicated, 1);
        assert_eq!(ids(&s), vec![("x".into(), 100, Origin::Vault)]);
        let s = vault_replaced(&s, vec![], 60);
        assert_eq!(ids(&s), vec![("x".into(), 100, Origin::Synced)]);
    }

    #[test]
    fn the_plugins_copy_of_a_vault_reminder_is_kept_but_never_shown() {
        let path = "events/2026-11-23 Standup.md";
        let s = vault_replaced(
            &Schedule::default(),
            vec![vault(
                "fullnote:events/2026-11-23 Standup.md::2026-11-23T09:30",
                100,
                path,
            )],
            50,
        );
        let (mut s, changes, summary) = synced(
            &s,
            vec![
                plugin("17", 100, path),
                plugin("18", 300, "events/Other.md"),
            ],
            50,
        );
        assert_eq!(changes.put.len(), 2, "the host's set holds both");
        assert_eq!((summary.scheduled, summary.deduplicated), (2, 1));
        assert_eq!(summary.active_reminders, 2);
        assert_eq!(
            fire_due(&mut s, 100),
            vec![(
                "fullnote:events/2026-11-23 Standup.md::2026-11-23T09:30".into(),
                Origin::Vault
            )]
        );
        // The vault's next set no longer has it (it fired); the host's copy
        // stays out, now because the note's reminder was shown.
        let s = vault_replaced(&s, vec![], 100);
        assert_eq!(ids(&s), vec![("18".into(), 300, Origin::Synced)]);
        // The host re-sending it a second late changes nothing either.
        let (s, _, _) = synced(
            &s,
            vec![
                plugin("17", 100, path),
                plugin("18", 300, "events/Other.md"),
            ],
            101,
        );
        assert_eq!(ids(&s), vec![("18".into(), 300, Origin::Synced)]);
    }

    #[test]
    fn a_vault_reminder_is_not_shown_when_the_hosts_copy_already_was() {
        let path = "events/Review.md";
        let (mut s, _, _) = synced(&Schedule::default(), vec![plugin("3", 100, path)], 50);
        assert_eq!(fire_due(&mut s, 100), vec![("3".into(), Origin::Synced)]);
        let plan = s.plan_vault(
            vec![vault("fullnote:events/Review.md::x", 100, path)],
            100,
            LATE_LIMIT,
        );
        assert_eq!(plan.summary.deduplicated, 1);
        assert!(plan.next.unwrap().is_empty());
        // A later occurrence of the same note is its own reminder.
        let s = vault_replaced(
            &s,
            vec![vault("fullnote:events/Review.md::y", 400, path)],
            100,
        );
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn a_snoozed_vault_reminder_consumes_its_instance_and_the_hosts_copy() {
        let path = "events/Call.md";
        let s = vault_replaced(&Schedule::default(), vec![vault("v", 100, path)], 50);
        let (mut s, _, _) = synced(&s, vec![plugin("9", 100, path)], 50);
        let snoozed = Reminder {
            trigger_at_epoch: 700,
            ..vault("v", 100, path)
        };
        s.apply(&s.plan_snooze(snoozed));
        assert_eq!(ids(&s), vec![("v".into(), 700, Origin::Snoozed)]);
        let s = vault_replaced(&s, vec![vault("v", 100, path)], 60);
        let (s, _, _) = synced(&s, vec![plugin("9", 100, path)], 60);
        assert_eq!(ids(&s), vec![("v".into(), 700, Origin::Snoozed)]);
    }

    #[test]
    fn old_fired_keys_are_forgotten() {
        let mut s = Schedule::default();
        s.apply(&Changes {
            add_fired: vec![
                FiredKey {
                    id: "old".into(),
                    trigger_at_epoch: 10,
                },
                FiredKey {
                    id: "new".into(),
                    trigger_at_epoch: FIRED_RETENTION_SECS + 90,
                },
            ],
            ..Changes::default()
        });
        let plan = s.plan_sync(vec![], FIRED_RETENTION_SECS + 100, LATE_LIMIT);
        assert_eq!(plan.changes.forget_fired.len(), 1);
        assert_eq!(plan.next.unwrap().fired_count(), 1);
    }
}
