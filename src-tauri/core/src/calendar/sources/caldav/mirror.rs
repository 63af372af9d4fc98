//! The local copy of a CalDAV calendar: every event resource with its ETag,
//! and the collection's sync token and ctag. It is kept on disk so the
//! calendar is there offline and at the next start before the server
//! answers, and in memory between syncs, so a sync or a write costs what it
//! changed, not the calendar's size.
//!
//! On disk, per source: a snapshot (one JSON file, written atomically) and a
//! log of the changes since (JSON lines, appended and flushed to disk). A
//! change appends its resources and the new state; once the log outgrows the
//! snapshot, the two are folded into a new snapshot. A torn last line (a
//! crash mid-append) is ignored: the state it carried is lost with it, so
//! the next sync fetches those changes again.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

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

/// A mirror in memory, with the resources the cache could not read and
/// those the sync set aside unread for their size (each by href: why),
/// which the calendar's status names.
#[derive(Debug, Default)]
pub struct Live {
    pub mirror: Mirror,
    pub unreadable: BTreeMap<String, String>,
    pub set_aside: BTreeMap<String, String>,
}

/// One line of the log.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "op")]
enum Logged {
    Put {
        href: String,
        resource: Resource,
    },
    Remove {
        href: String,
    },
    State {
        calendar_url: String,
        sync_token: Option<String>,
        ctag: Option<String>,
        fetched_at_millis: Option<i64>,
    },
}

/// The mirrors on disk, one snapshot and one log per source, and in memory.
#[derive(Debug, Clone)]
pub struct MirrorStore {
    dir: PathBuf,
    live: Arc<Mutex<HashMap<String, Live>>>,
}

impl MirrorStore {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            live: Arc::default(),
        }
    }

    fn file(&self, source_id: &str) -> PathBuf {
        super::source_file(&self.dir, source_id, ".caldav.json")
    }

    fn log(&self, source_id: &str) -> PathBuf {
        super::source_file(&self.dir, source_id, ".caldav.log")
    }

    /// The mirror of `source_id` as stored on disk, if there is a readable
    /// one.
    pub fn load(&self, source_id: &str) -> Option<Mirror> {
        let snapshot = std::fs::read(self.file(source_id))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok());
        let log = std::fs::read(self.log(source_id)).unwrap_or_default();
        if snapshot.is_none() && log.is_empty() {
            return None;
        }
        let mut mirror: Mirror = snapshot.unwrap_or_default();
        let lines: Vec<&[u8]> = log
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let read: Vec<Logged> = lines
            .iter()
            .map_while(|line| serde_json::from_slice(line).ok())
            .collect();
        let torn = read.len() < lines.len();
        for line in read {
            match line {
                Logged::Put { href, resource } => {
                    mirror.resources.insert(href, resource);
                }
                Logged::Remove { href } => {
                    mirror.resources.remove(&href);
                }
                Logged::State {
                    calendar_url,
                    sync_token,
                    ctag,
                    fetched_at_millis,
                } => {
                    mirror.calendar_url = calendar_url;
                    mirror.sync_token = sync_token;
                    mirror.ctag = ctag;
                    mirror.fetched_at_millis = fetched_at_millis;
                }
            }
        }
        // Past a torn line nothing is read; lines appended after it would
        // be lost, so the log is folded away now.
        if torn && let Err(error) = self.store(source_id, &mirror) {
            tracing::warn!(%error, "could not fold the CalDAV mirror's log");
        }
        Some(mirror)
    }

    /// Replaces the stored mirror of `source_id` with `mirror` (a new
    /// snapshot, the log emptied).
    pub fn store(&self, source_id: &str, mirror: &Mirror) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let json = serde_json::to_vec(mirror).map_err(std::io::Error::other)?;
        atomic_write(&self.file(source_id), &json)?;
        match std::fs::remove_file(self.log(source_id)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Stores the change of `mirror`'s resources `touched` (changed, added
    /// or removed) and of its state: appended to the log, or folded into a
    /// new snapshot once the log would outgrow the last one.
    pub fn store_change(
        &self,
        source_id: &str,
        mirror: &Mirror,
        touched: &[String],
    ) -> std::io::Result<()> {
        let mut lines = Vec::new();
        for href in touched {
            let line = match mirror.resources.get(href) {
                Some(resource) => Logged::Put {
                    href: href.clone(),
                    resource: resource.clone(),
                },
                None => Logged::Remove { href: href.clone() },
            };
            serde_json::to_writer(&mut lines, &line).map_err(std::io::Error::other)?;
            lines.push(b'\n');
        }
        let state = Logged::State {
            calendar_url: mirror.calendar_url.clone(),
            sync_token: mirror.sync_token.clone(),
            ctag: mirror.ctag.clone(),
            fetched_at_millis: mirror.fetched_at_millis,
        };
        serde_json::to_writer(&mut lines, &state).map_err(std::io::Error::other)?;
        lines.push(b'\n');
        let size = |path: PathBuf| std::fs::metadata(path).map_or(0, |m| m.len());
        let (snapshot, log) = (size(self.file(source_id)), size(self.log(source_id)));
        if snapshot == 0 || log + lines.len() as u64 > snapshot.max(64 * 1024) {
            return self.store(source_id, mirror);
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log(source_id))?;
        file.write_all(&lines)?;
        file.sync_data()
    }

    /// The mirrors in memory: `live(id)` is read from disk on first use.
    pub fn live(&self) -> LiveMirrors<'_> {
        LiveMirrors {
            store: self,
            map: self.live.lock().unwrap_or_else(|p| p.into_inner()),
        }
    }
}

/// The mirrors in memory, locked (briefly: never across a request).
pub struct LiveMirrors<'s> {
    store: &'s MirrorStore,
    map: MutexGuard<'s, HashMap<String, Live>>,
}

impl LiveMirrors<'_> {
    /// The mirror of `source_id` in memory (from disk, or empty, at first).
    pub fn of(&mut self, source_id: &str) -> &mut Live {
        self.map
            .entry(source_id.to_string())
            .or_insert_with(|| Live {
                mirror: self.store.load(source_id).unwrap_or_default(),
                unreadable: BTreeMap::new(),
                set_aside: BTreeMap::new(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(uid: &str) -> Resource {
        Resource {
            etag: format!("\"{uid}\""),
            ics: format!(
                "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:{uid}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            ),
        }
    }

    #[test]
    fn a_mirror_survives_the_disk_and_finds_resources_by_uid() {
        let dir = tempfile::tempdir().unwrap();
        let store = MirrorStore::new(dir.path());
        let mut mirror = Mirror {
            calendar_url: "http://h/c/".into(),
            sync_token: Some("t1".into()),
            ..Default::default()
        };
        mirror
            .resources
            .insert("http://h/c/a.ics".into(), resource("abc"));
        store.store("work", &mirror).unwrap();
        let loaded = store.load("work").unwrap();
        assert_eq!(loaded, mirror);
        assert_eq!(loaded.href_of("abc"), Some("http://h/c/a.ics"));
        assert_eq!(loaded.href_of("ab"), None);
        assert_eq!(store.load("other"), None);
    }

    #[test]
    fn changes_are_logged_then_folded_and_a_torn_line_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let store = MirrorStore::new(dir.path());
        let mut mirror = Mirror {
            calendar_url: "http://h/c/".into(),
            ..Default::default()
        };
        for i in 0..50 {
            let href = format!("http://h/c/{i}.ics");
            mirror.resources.insert(href, resource(&format!("u{i}")));
        }
        store.store("work", &mirror).unwrap();
        let snapshot = std::fs::read(store.file("work")).unwrap();

        mirror.resources.remove("http://h/c/1.ics");
        mirror
            .resources
            .insert("http://h/c/2.ics".into(), resource("changed"));
        mirror.sync_token = Some("t2".into());
        let touched = ["http://h/c/1.ics".into(), "http://h/c/2.ics".into()];
        store.store_change("work", &mirror, &touched).unwrap();
        assert_eq!(std::fs::read(store.file("work")).unwrap(), snapshot);
        assert_eq!(store.load("work").unwrap(), mirror);

        // A crash mid-append: the torn line and what follows are ignored.
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(store.log("work"))
            .unwrap();
        log.write_all(br#"{"op":"state","calendarUrl":"http://h/c/","syncTo"#)
            .unwrap();
        assert_eq!(store.load("work").unwrap(), mirror);
        assert!(!store.log("work").exists(), "folded into the snapshot");

        // Once the log outgrows the snapshot, both fold into a new snapshot.
        for round in 0..200 {
            mirror.sync_token = Some(format!("t{round}"));
            store.store_change("work", &mirror, &touched).unwrap();
        }
        assert!(std::fs::metadata(store.log("work")).map_or(0, |m| m.len()) < 64 * 1024 + 1024);
        assert_eq!(store.load("work").unwrap(), mirror);
    }

    #[test]
    fn the_live_mirror_is_read_from_disk_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = MirrorStore::new(dir.path());
        let mut mirror = Mirror::default();
        mirror
            .resources
            .insert("http://h/c/a.ics".into(), resource("a"));
        store.store("work", &mirror).unwrap();
        assert_eq!(store.live().of("work").mirror, mirror);
        std::fs::remove_file(store.file("work")).unwrap();
        assert_eq!(store.live().of("work").mirror, mirror, "kept in memory");
        assert_eq!(store.live().of("new").mirror, Mirror::default());
    }
}
