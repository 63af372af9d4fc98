//! The sync status of one published calendar, as vdirsyncer keeps it: per
//! event (by `UID`), where its resource is and what both sides held at the
//! last agreement — the vault resource's ETag (a digest of what the note
//! serves: its content hash) and the server resource's ETag. Also the
//! collection's sync token, the conflicts kept and the last error.
//!
//! One small JSON file per published calendar under the data folder
//! (`publish/`), named by a hash of the calendar id, owner-only and
//! replaced atomically (`fsutil`): a crash leaves the old status or the
//! new one. A status that cannot be read is not guessed at: the calendar is
//! then synced as a first publish, which compares contents before it
//! writes anything (see [`super::pass`]), so nothing is lost or doubled.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsutil::{atomic_write_private, create_private_dir};

/// What both sides held for one event at their last agreement.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// The server resource's absolute URL.
    pub href: String,
    /// The server resource's ETag; `None` when the server gave none (the
    /// next poll brings it).
    pub remote_etag: Option<String>,
    /// The vault resource's ETag (the digest of what its notes serve).
    pub local_etag: String,
}

/// Both sides changed one event: the note kept the vault's version and the
/// server's was written beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    pub uid: String,
    /// The note that kept the vault's version (vault-relative).
    pub note: String,
    /// The note holding the server's version (vault-relative).
    pub conflict_note: String,
    /// When the conflict was found (Unix epoch milliseconds).
    pub at_millis: i64,
}

/// Conflicts remembered in the status (the notes themselves stay).
const KEPT_CONFLICTS: usize = 50;

/// The sync status of one published calendar.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Status {
    /// The collection the items are in; another one starts over.
    pub collection_url: String,
    pub sync_token: Option<String>,
    pub ctag: Option<String>,
    /// Whether the collection takes tasks (`VTODO`s); `None` until asked,
    /// once per collection.
    pub takes_tasks: Option<bool>,
    /// By event `UID`.
    pub items: BTreeMap<String, Item>,
    /// The last pass that reached the server and finished.
    pub last_sync_millis: Option<i64>,
    /// Why the last pass (or one event of it) failed, in plain words.
    pub last_error: Option<String>,
    /// The most recent conflicts, newest last.
    pub conflicts: Vec<Conflict>,
}

impl Status {
    /// Remembers `conflict`, forgetting the oldest past [`KEPT_CONFLICTS`].
    pub fn add_conflict(&mut self, conflict: Conflict) {
        self.conflicts.push(conflict);
        let excess = self.conflicts.len().saturating_sub(KEPT_CONFLICTS);
        self.conflicts.drain(..excess);
    }
}

/// The status files, one per published calendar.
#[derive(Debug, Clone)]
pub struct StatusStore {
    dir: PathBuf,
}

impl StatusStore {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    fn file(&self, calendar_id: &str) -> PathBuf {
        use sha2::Digest;
        let stem: String = sha2::Sha256::digest(calendar_id.as_bytes())
            .iter()
            .take(12)
            .map(|b| format!("{b:02x}"))
            .collect();
        self.dir.join(format!("{stem}.status.json"))
    }

    /// The status of `calendar_id`; an empty one when there is none or it
    /// cannot be read.
    pub fn load(&self, calendar_id: &str) -> Status {
        let file = self.file(calendar_id);
        match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                tracing::warn!(%error, file = %file.display(), "unreadable publish status; starting over");
                Status::default()
            }),
            Err(_) => Status::default(),
        }
    }

    pub fn store(&self, calendar_id: &str, status: &Status) -> std::io::Result<()> {
        create_private_dir(&self.dir)?;
        let json = serde_json::to_vec_pretty(status).map_err(std::io::Error::other)?;
        atomic_write_private(&self.file(calendar_id), &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_survives_the_disk_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = StatusStore::new(&dir.path().join("publish"));
        assert_eq!(store.load("work"), Status::default());
        let mut status = Status {
            collection_url: "http://h/c/".into(),
            sync_token: Some("t1".into()),
            ..Default::default()
        };
        status.items.insert(
            "u1".into(),
            Item {
                href: "http://h/c/u1.ics".into(),
                remote_etag: Some("\"1\"".into()),
                local_etag: "\"a\"".into(),
            },
        );
        store.store("work", &status).unwrap();
        assert_eq!(store.load("work"), status);
        assert_eq!(store.load("home"), Status::default());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let file = std::fs::read_dir(dir.path().join("publish"))
                .unwrap()
                .next()
                .unwrap()
                .unwrap();
            let mode = file.metadata().unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn only_the_latest_conflicts_are_remembered() {
        let mut status = Status::default();
        for n in 0..KEPT_CONFLICTS + 3 {
            status.add_conflict(Conflict {
                uid: n.to_string(),
                note: String::new(),
                conflict_note: String::new(),
                at_millis: 0,
            });
        }
        assert_eq!(status.conflicts.len(), KEPT_CONFLICTS);
        assert_eq!(status.conflicts[0].uid, "3");
    }
}
