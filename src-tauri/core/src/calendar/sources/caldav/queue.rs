//! Writes made while the server could not take them, kept durably (one
//! JSON file per source under the data folder, replaced atomically) and
//! replayed in order when it answers again, each with the precondition it
//! was made under, so a replay never overwrites a change made meanwhile.
//! A write the server refuses on replay is not dropped: the event it would
//! have written is kept as an `.ics` file in `refused/` beside the queues,
//! which the user can open or import in any calendar app, and the
//! calendar's status names that folder while a file of it is there.

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

    /// Where the writes the server refused on replay are kept.
    pub fn refused_dir(&self) -> PathBuf {
        self.dir.join("refused")
    }

    /// Keeps the event `write` would have written, refused by the server
    /// on replay, as a new file in [`refused_dir`](Self::refused_dir); the
    /// file, or `None` for a delete: it held nothing of the user's (the
    /// event stays on the server and shows again at the next sync).
    pub fn keep_refused(
        &self,
        source_id: &str,
        write: &QueuedWrite,
    ) -> std::io::Result<Option<PathBuf>> {
        let QueuedWrite::Put { ics, .. } = write else {
            return Ok(None);
        };
        let dir = self.refused_dir();
        let at = chrono::Utc::now().format("%Y%m%dT%H%M%S%3f");
        // Replays run one at a time (under the CalDAV lock): a name free
        // now is still free when written.
        let mut file = super::source_file(&dir, source_id, &format!("-{at}.ics"));
        let mut n = 1;
        while file.exists() {
            file = super::source_file(&dir, source_id, &format!("-{at}-{n}.ics"));
            n += 1;
        }
        atomic_write_private(&file, ics.as_bytes())?;
        Ok(Some(file))
    }

    /// How many refused writes of `source_id` are kept.
    pub fn refused_count(&self, source_id: &str) -> usize {
        let prefix = super::source_file(Path::new(""), source_id, "-");
        let prefix = prefix.to_string_lossy();
        std::fs::read_dir(self.refused_dir())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with(&*prefix) && name.ends_with(".ics")
            })
            .count()
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

    #[test]
    fn a_refused_write_is_kept_in_its_own_file_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let store = QueueStore::new(dir.path());
        let put = QueuedWrite::Put {
            href: "http://h/c/a.ics".into(),
            ics: "BEGIN:VCALENDAR".into(),
            if_match: None,
        };
        let first = store.keep_refused("work", &put).unwrap().unwrap();
        let second = store.keep_refused("work", &put).unwrap().unwrap();
        assert_ne!(first, second);
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "BEGIN:VCALENDAR");
        let delete = QueuedWrite::Delete {
            href: "http://h/c/b.ics".into(),
            if_match: "\"2\"".into(),
        };
        assert_eq!(store.keep_refused("work", &delete).unwrap(), None);
        assert_eq!(store.refused_count("work"), 2);
        assert_eq!(store.refused_count("home"), 0);
    }
}
