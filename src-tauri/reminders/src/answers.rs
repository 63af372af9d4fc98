//! The parts the read routes' JSON answers are made of (the answers
//! themselves are in [`crate::routes`]). They are a superset of FCR Reminder's
//! (`status`, `checked_at_*`, `storage`, `events[]` with
//! `trigger_at_rfc3339` and `seconds_until_fire`), so tools written for that
//! daemon keep working; extra fields are only ever added.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::clock;
use crate::history::{HistoryEntry, Origin, Outcome};
use crate::reminder::Reminder;

/// FCR Reminder answers `"running"`; so does this daemon.
pub const STATUS: &str = "running";

/// The common head of every read answer.
#[derive(Debug, Serialize)]
pub struct Checked {
    pub status: &'static str,
    pub checked_at_epoch: i64,
    pub checked_at_rfc3339: String,
}

impl Checked {
    pub fn now(now_epoch: i64) -> Self {
        Self {
            status: STATUS,
            checked_at_epoch: now_epoch,
            checked_at_rfc3339: clock::rfc3339(now_epoch),
        }
    }
}

/// A pending reminder: the reminder as stored (shared with the schedule,
/// not copied), with when it fires in words and in seconds from now.
#[derive(Debug, Serialize)]
pub struct PendingItem {
    /// `id`, `title`, `body`, `trigger_at_epoch`, `action_url`, `source`
    /// (`host`, a `/sync`, or `vault`, derived from the notes) and a vault
    /// reminder's `event` (id, title, note path, start).
    #[serde(flatten)]
    pub reminder: Arc<Reminder>,
    pub trigger_at_rfc3339: String,
    pub seconds_until_fire: i64,
    pub origin: Origin,
}

impl PendingItem {
    pub fn new(reminder: &Arc<Reminder>, origin: Origin, now_epoch: i64) -> Self {
        Self {
            trigger_at_rfc3339: clock::rfc3339(reminder.trigger_at_epoch),
            seconds_until_fire: reminder.trigger_at_epoch - now_epoch,
            reminder: Arc::clone(reminder),
            origin,
        }
    }
}

/// A reminder that left the schedule (fired, missed or dropped).
#[derive(Debug, Serialize)]
pub struct HistoryItem {
    /// The reminder's own fields, as for [`PendingItem`].
    #[serde(flatten)]
    pub reminder: Reminder,
    pub trigger_at_rfc3339: String,
    pub origin: Origin,
    pub outcome: Outcome,
    pub recorded_at_rfc3339: String,
}

impl From<HistoryEntry> for HistoryItem {
    fn from(entry: HistoryEntry) -> Self {
        Self {
            trigger_at_rfc3339: clock::rfc3339(entry.reminder.trigger_at_epoch),
            reminder: entry.reminder,
            origin: entry.origin,
            outcome: entry.outcome,
            recorded_at_rfc3339: clock::rfc3339_ms(entry.recorded_at_ms),
        }
    }
}

/// Where the data lives. Built once at start; [`Self::refreshed`] re-checks
/// only whether the database is still there.
#[derive(Debug, Clone, Serialize)]
pub struct StorageInfo {
    pub app_dir: String,
    pub app_dir_url: String,
    pub storage_path: String,
    pub storage_url: String,
    pub storage_exists: bool,
}

impl StorageInfo {
    pub fn of(db_path: &Path) -> Self {
        let db_path = std::path::absolute(db_path).unwrap_or_else(|_| db_path.to_path_buf());
        let app_dir = db_path.parent().unwrap_or(&db_path).to_path_buf();
        Self {
            app_dir_url: file_url(&app_dir),
            app_dir: app_dir.display().to_string(),
            storage_url: file_url(&db_path),
            storage_path: db_path.display().to_string(),
            storage_exists: db_path.exists(),
        }
    }

    pub fn refreshed(&self) -> Self {
        Self {
            storage_exists: Path::new(&self.storage_path).exists(),
            ..self.clone()
        }
    }
}

fn file_url(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(String::from)
        .unwrap_or_default()
}
