//! Writes made while the server could not take them, kept durably (one
//! JSON file per source under the data folder, replaced atomically) and
//! replayed in order when it answers again, each with the precondition it
//! was made under, so a replay never overwrites a change made meanwhile.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsutil::atomic_write_private;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "op")]
pub enum QueuedWrite {
    /// PUT `ics` to `href`: `If-Match: if_match`, or `If-None-Match: *`
    /// (a new resource) when `None`.
    Put {
        href: String,
        ics: String,
        if_match: Option<String>,
    },
    /// DELETE `href` with `If-Match: if_match`.
    Delete { href: String, if_match: String },
}

impl QueuedWrite {
    pub fn href(&self) -> &str {
        match self {
            QueuedWrite::Put { href, .. } | QueuedWrite::Delete { href, .. } => href,
        }
    }
}

/// The queues on disk, one file per source.
#[derive(Debug, Clone)]
pub struct QueueStore {
    dir: PathBuf,
}

impl QueueStore {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, source_id: &str) -> PathBuf {
        super::source_file(&self.dir, source_id, ".json")
    }

    /// The queued writes of `source_id`, oldest first.
    pub fn load(&self, source_id: &str) -> Vec<QueuedWrite> {
        std::fs::read(self.file(source_id))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Replaces the queue of `source_id` (an empty one removes the file).
    pub fn store(&self, source_id: &str, writes: &[QueuedWrite]) -> std::io::Result<()> {
        let file = self.file(source_id);
        if writes.is_empty() {
            return match std::fs::remove_file(&file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        crate::fsutil::create_private_dir(&self.dir)?;
        let json = serde_json::to_vec(writes).map_err(std::io::Error::other)?;
        atomic_write_private(&file, &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_survives_the_disk_in_order_and_empties() {
        let dir = tempfile::tempdir().unwrap();
        let store = QueueStore::new(dir.path());
        let writes = vec![
            QueuedWrite::Put {
                href: "http://h/c/a.ics".into(),
                ics: "BEGIN:VCALENDAR".into(),
                if_match: None,
            },
            QueuedWrite::Delete {
                href: "http://h/c/b.ics".into(),
                if_match: "\"2\"".into(),
            },
        ];
        store.store("work", &writes).unwrap();
        assert_eq!(store.load("work"), writes);
        store.store("work", &[]).unwrap();
        assert_eq!(store.load("work"), vec![]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
