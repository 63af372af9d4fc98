//! The delivery log: the last [`KEPT_PER_HOOK`] attempts of each hook, and
//! the entries a hook's queue had no room for, in `webhook-deliveries.json`
//! in the data folder (mode 0600, written atomically, so it survives a
//! restart or a crash). It holds what the settings window shows: never a
//! body, a header or the secret.
//!
//! An attempt changes the log in memory only. The file is written by
//! [`spawn_writer`], off the async workers, at most once per
//! [`WRITE_EVERY`]: a flood of deliveries costs a few writes, not one each
//! (a crash loses at most that long of the log; it is a record, not the
//! user's data), and once more when the webhooks are dropped.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Weak;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Shared;
use super::queue::QUEUE_BOUND;
use crate::changes::Change;
use crate::fsutil::atomic_write_private;

/// Attempts kept per hook, newest last.
pub const KEPT_PER_HOOK: usize = 50;

/// How long after a change to the log its file is written.
pub const WRITE_EVERY: Duration = Duration::from_secs(1);

/// One attempt to deliver one entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub at: DateTime<Utc>,
    /// The `webhook-id` header: the same for every attempt of one entry.
    pub webhook_id: String,
    /// The change-feed entry's id and type.
    pub entry_id: u64,
    #[serde(rename = "type")]
    pub entry_type: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The receiver's HTTP status, when it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Why the attempt failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub ok: bool,
    /// Not an attempt: entries dropped from the hook's full queue, from
    /// `entry_id` on (`attempt` is 0, `error` says what and where to find
    /// them). One row counts a run of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<Skipped>,
}

/// A run of entries never sent to a hook, its queue being full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub count: u64,
    /// The newest of them (the oldest is the row's `entry_id`).
    pub last_entry_id: u64,
}

impl Delivery {
    /// The row for `change`, the first of a run dropped from a full queue.
    fn skipped(webhook_id: String, change: &Change) -> Self {
        let mut row = Self {
            at: Utc::now(),
            webhook_id,
            entry_id: change.id,
            entry_type: super::hook::type_name(change.about.kind),
            attempt: 0,
            status: None,
            error: None,
            ok: false,
            skipped: Some(Skipped {
                count: 0,
                last_entry_id: change.id,
            }),
        };
        row.skip_another(change);
        row
    }

    /// Counts `change`, dropped after those of this row.
    fn skip_another(&mut self, change: &Change) {
        let Some(skipped) = &mut self.skipped else {
            return;
        };
        skipped.count += 1;
        skipped.last_entry_id = change.id;
        self.at = Utc::now();
        let (first, last, count) = (self.entry_id, change.id, skipped.count);
        let which = if count == 1 {
            format!("1 entry not sent (feed id {first})")
        } else {
            format!("{count} entries not sent (feed ids {first} to {last})")
        };
        self.error = Some(format!(
            "{which}: more than {QUEUE_BOUND} were waiting for this receiver. \
             GET /api/v1/changes?since={} lists them while the change feed keeps them.",
            first - 1
        ));
    }
}

/// The log, in memory and in its file.
#[derive(Debug)]
pub struct DeliveryLog {
    path: PathBuf,
    by_hook: BTreeMap<Uuid, VecDeque<Delivery>>,
    /// Changed since the file was last written.
    unsaved: bool,
}

impl DeliveryLog {
    /// The log in `path`. A missing or damaged file starts an empty log (it
    /// is a record, not the user's data; the damage is logged).
    pub fn open(path: &Path) -> Self {
        let by_hook = match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                tracing::warn!(%error, file = %path.display(), "the webhook delivery log cannot be read; starting a new one");
                BTreeMap::new()
            }),
            Err(_) => BTreeMap::new(),
        };
        Self {
            path: path.to_path_buf(),
            by_hook,
            unsaved: false,
        }
    }

    /// Hook `hook`'s attempts, oldest first.
    pub fn of(&self, hook: Uuid) -> Vec<Delivery> {
        self.by_hook
            .get(&hook)
            .map(|d| d.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Adds an attempt (dropping the hook's oldest past the limit), in
    /// memory: [`DeliveryLog::save`] writes it.
    pub fn record(&mut self, hook: Uuid, delivery: Delivery) {
        let kept = self.by_hook.entry(hook).or_default();
        kept.push_back(delivery);
        while kept.len() > KEPT_PER_HOOK {
            kept.pop_front();
        }
        self.unsaved = true;
    }

    /// Counts `change` (whose `webhook-id` would have been `webhook_id`)
    /// as dropped from hook `hook`'s full queue: in the hook's newest row
    /// when that counts dropped entries already, else in a new one (then
    /// `true`: a new run of them began).
    pub fn skipped(&mut self, hook: Uuid, webhook_id: String, change: &Change) -> bool {
        self.unsaved = true;
        let kept = self.by_hook.entry(hook).or_default();
        if let Some(row) = kept.back_mut().filter(|row| row.skipped.is_some()) {
            row.skip_another(change);
            return false;
        }
        self.record(hook, Delivery::skipped(webhook_id, change));
        true
    }

    /// Forgets a deleted hook's attempts.
    pub fn forget(&mut self, hook: Uuid) {
        if self.by_hook.remove(&hook).is_some() {
            self.unsaved = true;
        }
    }

    /// The file's new text, when the log changed since it was last taken.
    fn unsaved_text(&mut self) -> Option<Vec<u8>> {
        if !std::mem::take(&mut self.unsaved) {
            return None;
        }
        match serde_json::to_vec(&self.by_hook) {
            Ok(text) => Some(text),
            Err(error) => {
                tracing::warn!(%error, "the webhook delivery log could not be written");
                None
            }
        }
    }
}

/// Writes `log`'s changes to its file. Blocks: call it off the async
/// workers. The file is written outside the lock, so recording an attempt
/// never waits for the disk; only one writer runs at a time (the task of
/// [`spawn_writer`], or the webhooks' drop once no task holds them).
pub(super) fn save(log: &std::sync::Mutex<DeliveryLog>) {
    let (path, text) = {
        let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
        let Some(text) = log.unsaved_text() else {
            return;
        };
        (log.path.clone(), text)
    };
    if let Err(error) = atomic_write_private(&path, &text) {
        tracing::warn!(%error, file = %path.display(), "the webhook delivery log could not be written");
        let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
        log.unsaved = true;
    }
}

/// Writes the log [`WRITE_EVERY`] after it changes, on a blocking thread,
/// until the webhooks behind `shared` are dropped. Sleeps on a notification
/// while nothing changes.
pub(super) fn spawn_writer(shared: Weak<Shared>) {
    let Some(changed) = shared.upgrade().map(|s| s.log_changed.clone()) else {
        return;
    };
    tokio::spawn(async move {
        loop {
            changed.notified().await;
            tokio::time::sleep(WRITE_EVERY).await;
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let saved = tokio::task::spawn_blocking(move || save(&shared.log)).await;
            if let Err(error) = saved {
                tracing::warn!(%error, "the webhook delivery log's writer failed");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(n: u32) -> Delivery {
        Delivery {
            at: Utc::now(),
            webhook_id: "msg_x_1".into(),
            entry_id: 1,
            entry_type: "event.created".into(),
            attempt: n,
            status: Some(500),
            error: None,
            ok: false,
            skipped: None,
        }
    }

    fn saved(log: DeliveryLog) {
        save(&std::sync::Mutex::new(log));
    }

    #[test]
    fn the_log_keeps_the_newest_attempts_and_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("webhook-deliveries.json");
        let hook = Uuid::new_v4();
        let mut log = DeliveryLog::open(&path);
        for n in 0..(KEPT_PER_HOOK as u32 + 3) {
            log.record(hook, attempt(n));
        }
        assert!(!path.exists(), "recording writes nothing");
        saved(log);
        let again = DeliveryLog::open(&path).of(hook);
        assert_eq!(again.len(), KEPT_PER_HOOK);
        assert_eq!(again[0].attempt, 3, "the oldest were dropped");
        let mut log = DeliveryLog::open(&path);
        log.forget(hook);
        saved(log);
        assert!(DeliveryLog::open(&path).of(hook).is_empty());
    }

    #[test]
    fn a_run_of_entries_dropped_from_a_webhook_queue_is_one_row() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = DeliveryLog::open(&dir.path().join("webhook-deliveries.json"));
        let hook = Uuid::new_v4();
        let dropped = |id| Change {
            id,
            at: String::new(),
            about: crate::changes::About::calendar(
                crate::changes::ChangeKind::EventCreated,
                "c",
                None,
            ),
        };
        for id in 5..=7 {
            log.skipped(hook, format!("msg_x_{id}"), &dropped(id));
        }
        log.record(hook, attempt(1));
        log.skipped(hook, "msg_x_9".into(), &dropped(9));
        let rows = log.of(hook);
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].entry_id, rows[0].attempt), (5, 0));
        assert_eq!(
            rows[0].skipped,
            Some(Skipped {
                count: 3,
                last_entry_id: 7
            })
        );
        assert_eq!(
            rows[0].error.as_deref(),
            Some(
                "3 entries not sent (feed ids 5 to 7): more than 1000 were waiting for this \
                 receiver. GET /api/v1/changes?since=4 lists them while the change feed keeps them."
            )
        );
        assert_eq!(rows[2].skipped.map(|s| s.count), Some(1));
    }

    #[test]
    fn a_damaged_log_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("webhook-deliveries.json");
        std::fs::write(&path, "[").unwrap();
        assert!(DeliveryLog::open(&path).of(Uuid::new_v4()).is_empty());
    }
}
