//! The delivery log: the last [`KEPT_PER_HOOK`] attempts of each hook, in
//! `webhook-deliveries.json` in the data folder (mode 0600, rewritten
//! atomically after each attempt, so it survives a restart or a crash).
//! It holds what the settings window shows: never a body, a header or the
//! secret.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::fsutil::atomic_write_private;

/// Attempts kept per hook, newest last.
pub const KEPT_PER_HOOK: usize = 50;

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
}

/// The log, in memory and in its file.
#[derive(Debug)]
pub struct DeliveryLog {
    path: PathBuf,
    by_hook: BTreeMap<Uuid, VecDeque<Delivery>>,
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
        }
    }

    /// Hook `hook`'s attempts, oldest first.
    pub fn of(&self, hook: Uuid) -> Vec<Delivery> {
        self.by_hook
            .get(&hook)
            .map(|d| d.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Adds an attempt (dropping the hook's oldest past the limit) and
    /// writes the file.
    pub fn record(&mut self, hook: Uuid, delivery: Delivery) {
        let kept = self.by_hook.entry(hook).or_default();
        kept.push_back(delivery);
        while kept.len() > KEPT_PER_HOOK {
            kept.pop_front();
        }
        self.save();
    }

    /// Forgets a deleted hook's attempts.
    pub fn forget(&mut self, hook: Uuid) {
        if self.by_hook.remove(&hook).is_some() {
            self.save();
        }
    }

    fn save(&self) {
        let written = serde_json::to_vec(&self.by_hook)
            .map_err(std::io::Error::other)
            .and_then(|text| atomic_write_private(&self.path, &text));
        if let Err(error) = written {
            tracing::warn!(%error, file = %self.path.display(), "the webhook delivery log could not be written");
        }
    }
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
        }
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
        let again = DeliveryLog::open(&path).of(hook);
        assert_eq!(again.len(), KEPT_PER_HOOK);
        assert_eq!(again[0].attempt, 3, "the oldest were dropped");
        let mut log = DeliveryLog::open(&path);
        log.forget(hook);
        assert!(DeliveryLog::open(&path).of(hook).is_empty());
    }

    #[test]
    fn a_damaged_log_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("webhook-deliveries.json");
        std::fs::write(&path, "[").unwrap();
        assert!(DeliveryLog::open(&path).of(Uuid::new_v4()).is_empty());
    }
}
