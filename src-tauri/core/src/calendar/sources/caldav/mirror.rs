//! The local copy of a CalDAV calendar: every event resource with its ETag,
//! and the collection's sync token and ctag. It is kept on disk (one JSON
//! file per source, written atomically) so the calendar is there offline
//! and at the next start before the server answers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsutil::atomic_write;

/// One `.ics` resource of the calendar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    pub etag: String,
    pub ics: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mirror {
    /// The collection these resources are of.
    pub calendar_url: String,
    pub sync_token: Option<String>,
    pub ctag: Option<String>,
    /// By absolute resource URL.
    pub resources: BTreeMap<String, Resource>,
    pub fetched_at_millis: Option<i64>,
}

impl Mirror {
    /// The resource holding the event with `uid`, if any.
    pub fn href_of(&self, uid: &str) -> Option<&str> {
        self.resources
            .iter()
            .find(|(_, r)| holds_uid(&r.ics, uid))
            .map(|(href, _)| href.as_str())
    }
}

/// Whether `ics` has a `UID:` line equal to `uid` (unfolded lines suffice:
/// UIDs Almanac matches are short).
fn holds_uid(ics: &str, uid: &str) -> bool {
    ics.lines().any(|line| {
        line.trim_end_matches('\r')
            .strip_prefix("UID:")
            .is_some_and(|v| v.trim() == uid)
    })
}

/// The mirrors on disk, one file per source.
#[derive(Debug, Clone)]
pub struct MirrorStore {
    dir: PathBuf,
}

impl MirrorStore {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    fn file(&self, source_id: &str) -> PathBuf {
        super::source_file(&self.dir, source_id, ".caldav.json")
    }

    /// The stored mirror of `source_id`, if there is a readable one.
    pub fn load(&self, source_id: &str) -> Option<Mirror> {
        serde_json::from_slice(&std::fs::read(self.file(source_id)).ok()?).ok()
    }

    pub fn store(&self, source_id: &str, mirror: &Mirror) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let json = serde_json::to_vec(mirror).map_err(std::io::Error::other)?;
        atomic_write(&self.file(source_id), &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_survives_the_disk_and_finds_resources_by_uid() {
        let dir = tempfile::tempdir().unwrap();
        let store = MirrorStore::new(dir.path());
        let mut mirror = Mirror {
            calendar_url: "http://h/c/".into(),
            sync_token: Some("t1".into()),
            ..Default::default()
        };
        mirror.resources.insert(
            "http://h/c/a.ics".into(),
            Resource {
                etag: "\"1\"".into(),
                ics:
                    "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:abc\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
                        .into(),
            },
        );
        store.store("work", &mirror).unwrap();
        let loaded = store.load("work").unwrap();
        assert_eq!(loaded, mirror);
        assert_eq!(loaded.href_of("abc"), Some("http://h/c/a.ics"));
        assert_eq!(loaded.href_of("ab"), None);
        assert_eq!(store.load("other"), None);
    }
}
