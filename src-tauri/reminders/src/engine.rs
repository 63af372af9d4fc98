//! The daemon's state and every way it changes: sync, snooze, fire.
//!
//! All writers take one async mutex, so changes are serialized; each one is
//! planned from the in-memory schedule, committed durably to the store, and
//! only then mirrored in memory. Readers (the HTTP read routes, the handle)
//! take a short read lock on the in-memory state and never touch the disk.

use std::sync::{Arc, Mutex, RwLock, Weak};

use tokio::sync::{Notify, watch};

use crate::clock;
use crate::config::DaemonConfig;
use crate::history::{History, HistoryEntry, Origin, Outcome};
use crate::notifier::{Notification, Notifier, ReminderActions};
use crate::opener::{OpenError, Opener};
use crate::payload::SnoozeRequest;
use crate::reminder::{Reminder, Rules, Source, scheme_allowed};
use crate::schedule::{FIRED_RETENTION_SECS, Schedule, Slot, SyncSummary};
use crate::store::{Changes, ReminderStore, StoreError};

/// A reminder fired at most this late is shown on its own; later than that
/// (the machine slept, the clock jumped) it joins a missed summary.
pub const ON_TIME_LIMIT_MS: i64 = 60_000;

/// Why an action from the shell or a notification failed.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("the reminder daemon has stopped")]
    Stopped,
    #[error("no pending or recently fired reminder has the id {0:?}")]
    UnknownId(String),
    #[error("field `{field}`: {reason}")]
    Invalid { field: &'static str, reason: String },
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Storage(#[from] StoreError),
}

/// What happened to the reminders that were due at one settling pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Settled {
    pub fired: usize,
    pub missed: usize,
    pub dropped: usize,
}

/// A pending reminder as the shell's Reminders window lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Scheduled {
    #[serde(flatten)]
    pub reminder: Reminder,
    pub origin: Origin,
}

/// The schedule, the history and the store, with the one writer lock that
/// orders every change. Shared by the routes, the scheduler, the handle and
/// (weakly) the notification actions.
pub struct Engine {
    /// Replaced whole by [`Engine::reconfigure`]; readers take a snapshot.
    config: RwLock<Arc<DaemonConfig>>,
    store: Arc<dyn ReminderStore>,
    schedule: RwLock<Schedule>,
    history: RwLock<History>,
    /// Serializes every change (sync, snooze, fire).
    writer: tokio::sync::Mutex<()>,
    /// Wakes the scheduler after a change of the schedule.
    pub(crate) wake: Notify,
    /// Counts changes of the schedule or the history, for watchers (the
    /// shell's Reminders window) that must not poll.
    generation: watch::Sender<u64>,
    notifier: Arc<dyn Notifier>,
    opener: Arc<dyn Opener>,
    /// The last failed commit, for `/doctor` (cleared by the next success).
    storage_error: Mutex<Option<String>>,
    me: Weak<Engine>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("db_path", &self.config().db_path)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Loads the store's state into memory.
    pub fn load(
        config: DaemonConfig,
        store: Arc<dyn ReminderStore>,
        notifier: Arc<dyn Notifier>,
        opener: Arc<dyn Opener>,
    ) -> Result<Arc<Self>, StoreError> {
        let mut stored = store.load()?;
        let history = History::new(std::mem::take(&mut stored.history));
        let schedule = Schedule::from_stored(stored);
        Ok(Arc::new_cyclic(|me| Engine {
            config: RwLock::new(Arc::new(config)),
            store,
            schedule: RwLock::new(schedule),
            history: RwLock::new(history),
            writer: tokio::sync::Mutex::new(()),
            wake: Notify::new(),
            generation: watch::Sender::new(0),
            notifier,
            opener,
            storage_error: Mutex::new(None),
            me: me.clone(),
        }))
    }

    /// The configuration in force now.
    pub fn config(&self) -> Arc<DaemonConfig> {
        self.config.read().expect("config lock poisoned").clone()
    }

    /// Puts `config` in force for everything that follows: the next payload
    /// is checked against its schemes, the next settling uses its grace
    /// window. (The listener and the update checks are the handle's part.)
    pub(crate) fn reconfigure(&self, config: DaemonConfig) {
        *self.config.write().expect("config lock poisoned") = Arc::new(config);
    }

    /// How late a synced item may be and still be scheduled (to fire at
    /// once): the grace window, but never longer than fired keys are kept,
    /// so an item can never fire twice.
    fn late_limit_secs(&self) -> i64 {
        let grace = i64::try_from(self.config().grace_window.as_secs()).unwrap_or(i64::MAX);
        grace.min(FIRED_RETENTION_SECS)
    }

    pub fn store(&self) -> &dyn ReminderStore {
        self.store.as_ref()
    }

    pub fn notifier(&self) -> &dyn Notifier {
        self.notifier.as_ref()
    }

    /// Runs `read` on the in-memory schedule.
    pub fn with_schedule<T>(&self, read: impl FnOnce(&Schedule) -> T) -> T {
        read(&self.schedule.read().expect("schedule lock poisoned"))
    }

    pub fn recently_fired(&self) -> Vec<HistoryEntry> {
        self.history.read().expect("history lock poisoned").recent()
    }

    pub fn history_count(&self, outcome: Outcome) -> usize {
        self.history
            .read()
            .expect("history lock poisoned")
            .count(outcome)
    }

    pub fn storage_error(&self) -> Option<String> {
        self.storage_error
            .lock()
            .expect("error lock poisoned")
            .clone()
    }

    /// Pending reminders in trigger order, at most `limit`.
    pub fn upcoming(&self, limit: usize) -> Vec<Scheduled> {
        self.with_schedule(|schedule| {
            schedule
                .iter()
                .take(limit)
                .map(|slot| Scheduled {
                    reminder: (*slot.reminder).clone(),
                    origin: slot.origin,
                })
                .collect()
        })
    }

    /// The earliest pending trigger, in epoch milliseconds.
    pub fn next_trigger_ms(&self) -> Option<i64> {
        self.with_schedule(|schedule| schedule.next().map(|slot| slot.reminder.trigger_ms()))
    }

    /// `POST /sync` with its parsed, validated reminders: replaces the
    /// host's synced set in one durable commit and wakes the scheduler.
    pub async fn sync(&self, reminders: Vec<Reminder>) -> Result<SyncSummary, StoreError> {
        self.replace(Origin::Synced, reminders).await
    }

    /// Replaces the set derived from the vault, exactly as a `/sync`
    /// replaces the host's (one durable commit, once-only bookkeeping, late
    /// items), without touching the host's set. A reminder that breaks a
    /// field rule is left out (and logged) rather than refusing the others:
    /// one odd note must not silence the vault. A link with a scheme the
    /// allowlist refuses is dropped, the reminder kept.
    pub async fn replace_vault(&self, reminders: Vec<Reminder>) -> Result<SyncSummary, StoreError> {
        let config = self.config();
        let rules = Rules::of(&config);
        let valid: Vec<Reminder> = reminders
            .into_iter()
            .map(|mut reminder| {
                reminder.source = Source::Vault;
                if rules.check_action_url(&reminder.action_url).is_err() {
                    tracing::warn!(id = %reminder.id, "vault reminder link refused; shown without one");
                    reminder.action_url.clear();
                }
                reminder
            })
            .filter(|reminder| match rules.check_reminder(reminder) {
                Ok(()) => true,
                Err((field, reason)) => {
                    tracing::warn!(id = %reminder.id, "vault reminder left out: field `{field}` {reason}");
                    false
                }
            })
            .collect();
        self.replace(Origin::Vault, valid).await
    }

    /// Replaces the `origin` set (synced or vault) with `reminders`.
    async fn replace(
        &self,
        origin: Origin,
        reminders: Vec<Reminder>,
    ) -> Result<SyncSummary, StoreError> {
        let _writer = self.writer.lock().await;
        let me = self.strong();
        let late_limit_secs = self.late_limit_secs();
        let plan = blocking(move || {
            me.with_schedule(|schedule| {
                let now = clock::now_epoch();
                match origin {
                    Origin::Vault => schedule.plan_vault(reminders, now, late_limit_secs),
                    _ => schedule.plan_sync(reminders, now, late_limit_secs),
                }
            })
        })
        .await;
        if let Some(next) = plan.next {
            let (_, committed) = self.commit(plan.changes).await;
            committed?;
            let previous = std::mem::replace(
                &mut *self.schedule.write().expect("schedule lock poisoned"),
                next,
            );
            // Freeing a large old schedule takes a while: not on the
            // request's path, and not under the lock.
            tokio::task::spawn_blocking(move || drop(previous));
            self.wake.notify_one();
            self.generation.send_modify(|g| *g += 1);
        }
        Ok(plan.summary)
    }

    /// `POST /snooze` with its validated request: schedules the reminder
    /// `minutes` from now, durably.
    pub async fn snooze(&self, request: SnoozeRequest) -> Result<Reminder, StoreError> {
        self.schedule_snooze(|now_epoch| request.into_reminder(now_epoch))
            .await
    }

    /// Snoozes a reminder the daemon already knows (from a notification
    /// action or the shell), checked against the rules in force now.
    pub async fn snooze_reminder(
        &self,
        reminder: &Reminder,
        minutes: i64,
    ) -> Result<Reminder, ActionError> {
        let config = self.config();
        let rules = Rules::of(&config);
        rules
            .check_reminder(reminder)
            .and_then(|()| rules.check_minutes(minutes).map_err(|e| ("minutes", e)))
            .map_err(|(field, reason)| ActionError::Invalid { field, reason })?;
        let reminder = reminder.clone();
        Ok(self
            .schedule_snooze(|now_epoch| reminder.snoozed(now_epoch, minutes))
            .await?)
    }

    /// Schedules the reminder `snoozed` makes of the time the writer lock
    /// was taken.
    async fn schedule_snooze(
        &self,
        snoozed: impl FnOnce(i64) -> Reminder,
    ) -> Result<Reminder, StoreError> {
        let _writer = self.writer.lock().await;
        let snoozed = snoozed(clock::now_epoch());
        let changes = self.with_schedule(|schedule| schedule.plan_snooze(snoozed.clone()));
        let (changes, committed) = self.commit(changes).await;
        committed?;
        self.schedule
            .write()
            .expect("schedule lock poisoned")
            .apply(&changes);
        self.wake.notify_one();
        self.generation.send_modify(|g| *g += 1);
        Ok(snoozed)
    }

    /// A receiver that wakes after every change of the pending set or the
    /// history (sync, snooze, fire).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    /// The pending (or else recently fired) reminder with this id.
    pub fn find(&self, id: &str) -> Result<Reminder, ActionError> {
        self.with_schedule(|schedule| schedule.find(id).map(|slot| (*slot.reminder).clone()))
            .or_else(|| {
                let history = self.history.read().expect("history lock poisoned");
                history.find(id).map(|entry| entry.reminder.clone())
            })
            .ok_or_else(|| ActionError::UnknownId(id.to_string()))
    }

    /// Opens `url` if it has an allowed scheme (checked again here: the
    /// opener must never see anything else).
    pub fn open_url(&self, url: &str) -> Result<(), ActionError> {
        if url.is_empty() {
            return Err(OpenError::NoUrl.into());
        }
        if !scheme_allowed(url, &self.config().allowed_schemes) {
            return Err(OpenError::SchemeRefused(url.to_string()).into());
        }
        Ok(self.opener.open(url)?)
    }

    /// Takes every due reminder off the schedule: those at most
    /// `on_time_limit_ms` late are shown one by one, in trigger order; later
    /// ones within the grace window are shown in one summary; older ones are
    /// dropped. All are recorded in the history and marked fired.
    ///
    /// `None` treats every due reminder as missed (used at start: they came
    /// due while the app was closed).
    ///
    /// The fired keys are committed before the notifications go out, so a
    /// reminder is never shown twice, and whoever sees a notification sees a
    /// schedule without it. A failing disk does not hold reminders back:
    /// they are still shown, and the error is reported by `/doctor`.
    pub async fn settle_due(&self, on_time_limit_ms: Option<i64>) -> Settled {
        let _writer = self.writer.lock().await;
        let now_ms = clock::now_ms();
        let due = self.with_schedule(|schedule| schedule.due(now_ms));
        if due.is_empty() {
            return Settled::default();
        }
        let grace_ms = i64::try_from(self.config().grace_window.as_millis()).unwrap_or(i64::MAX);
        let mut settled = Settled::default();
        let mut notifications = Vec::new();
        let mut missed = Vec::new();
        let mut records = Vec::with_capacity(due.len());
        for Slot { origin, reminder } in &due {
            let late_ms = now_ms.saturating_sub(reminder.trigger_ms());
            let outcome = match on_time_limit_ms {
                Some(limit) if late_ms <= limit => Outcome::Fired,
                _ if late_ms <= grace_ms => Outcome::Missed,
                _ => Outcome::Dropped,
            };
            let reminder = (**reminder).clone();
            match outcome {
                Outcome::Fired => {
                    settled.fired += 1;
                    notifications.push(Notification::Reminder {
                        reminder: reminder.clone(),
                        origin: *origin,
                        actions: Box::new(ReminderActions::new(self.me.clone(), reminder.clone())),
                    });
                }
                Outcome::Missed => {
                    settled.missed += 1;
                    missed.push(reminder.clone());
                }
                Outcome::Dropped => settled.dropped += 1,
            }
            records.push((reminder, *origin, outcome));
        }
        if !missed.is_empty() {
            missed.reverse();
            notifications.push(Notification::MissedSummary { missed });
        }
        if settled.dropped > 0 {
            tracing::info!(
                "dropped {} reminders missed by more than the grace window",
                settled.dropped
            );
        }

        let mut changes = self.with_schedule(|schedule| schedule.plan_fired(&due));
        let (added, evicted) = self
            .history
            .read()
            .expect("history lock poisoned")
            .plan(records, now_ms);
        changes.add_history = added;
        changes.forget_history = evicted;
        let (changes, _) = self.commit(changes).await;
        self.schedule
            .write()
            .expect("schedule lock poisoned")
            .apply(&changes);
        self.history
            .write()
            .expect("history lock poisoned")
            .push(&changes.add_history);
        self.generation.send_modify(|g| *g += 1);
        for notification in notifications {
            self.notifier.notify(notification);
        }
        settled
    }

    /// Commits on a blocking thread; remembers the outcome for `/doctor`.
    async fn commit(&self, changes: Changes) -> (Changes, Result<(), StoreError>) {
        let store = self.store.clone();
        let (changes, result) = blocking(move || {
            let result = store.commit(&changes);
            (changes, result)
        })
        .await;
        let mut last_error = self.storage_error.lock().expect("error lock poisoned");
        match &result {
            Ok(()) => *last_error = None,
            Err(error) => {
                tracing::error!("cannot save reminders: {error}");
                *last_error = Some(error.to_string());
            }
        }
        (changes, result)
    }

    fn strong(&self) -> Arc<Engine> {
        self.me
            .upgrade()
            .expect("the engine is alive while its methods run")
    }
}

/// Runs CPU- or disk-bound work off the async worker threads. A panic there
/// (a bug) is logged and continued on the caller's task; in a request, the
/// router's catch-panic layer answers it with the JSON `500`.
pub(crate) async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    almanac_loopback::blocking(work)
        .await
        .unwrap_or_else(|panicked| panicked.resume())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex as StdMutex;

    use super::*;
    use crate::notifier::NotifierInfo;
    use crate::opener::SystemOpener;
    use crate::store::SledStore;

    #[derive(Default)]
    struct Recorder(StdMutex<Vec<Notification>>);

    impl Notifier for Recorder {
        fn notify(&self, notification: Notification) {
            self.0.lock().unwrap().push(notification);
        }

        fn info(&self) -> NotifierInfo {
            NotifierInfo::default()
        }
    }

    /// After a suspend (or a wall-clock jump forward) the scheduler finds
    /// several reminders due at once: the slightly late one is shown on its
    /// own, the long-overdue ones in one summary, the ancient one dropped.
    #[tokio::test]
    async fn reminders_found_late_after_a_suspend_are_summarized_not_spammed() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        let now = clock::now_epoch();
        let put = |id: &str, trigger: i64| {
            (
                Origin::Synced,
                Arc::new(Reminder::from_host(
                    id.into(),
                    id.into(),
                    String::new(),
                    trigger,
                    String::new(),
                )),
            )
        };
        store
            .commit(&Changes {
                put: vec![
                    put("just-now", now - 1),
                    put("during-sleep-1", now - 600),
                    put("during-sleep-2", now - 3000),
                    put("last-week", now - 7 * 86_400),
                    put("tomorrow", now + 86_400),
                ],
                ..Changes::default()
            })
            .unwrap();
        let recorder = Arc::new(Recorder::default());
        let engine = Engine::load(
            DaemonConfig::new(dir.path()),
            Arc::new(store),
            recorder.clone(),
            Arc::new(SystemOpener),
        )
        .unwrap();

        let settled = engine.settle_due(Some(ON_TIME_LIMIT_MS)).await;
        assert_eq!(
            settled,
            Settled {
                fired: 1,
                missed: 2,
                dropped: 1
            }
        );
        let shown = std::mem::take(&mut *recorder.0.lock().unwrap());
        assert_eq!(shown.len(), 2);
        assert!(
            matches!(&shown[0], Notification::Reminder { reminder, .. } if reminder.id == "just-now")
        );
        match &shown[1] {
            Notification::MissedSummary { missed } => {
                let ids: Vec<&str> = missed.iter().map(|r| r.id.as_str()).collect();
                assert_eq!(ids, ["during-sleep-1", "during-sleep-2"]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(engine.upcoming(10).len(), 1);
        assert_eq!(
            engine.settle_due(Some(ON_TIME_LIMIT_MS)).await,
            Settled::default()
        );
    }
}
