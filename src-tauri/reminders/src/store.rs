//! Durable state behind a small trait: the synced set, the snoozed set, the
//! keys of reminders that already fired, and the recent history.
//!
//! Every change the daemon makes is one [`Changes`] value, committed
//! atomically and flushed to disk before the caller goes on (and before an
//! HTTP answer is sent), so after a crash the store holds exactly the last
//! acknowledged state, or the one being written, never a mix.
//!
//! The sled implementation keeps everything in one tree under prefixed keys,
//! because a sled `Batch` applied to one tree is atomic, crash included:
//! `b\0n` synced buckets, `z\0id` snoozed, `f\0trigger id` fired keys
//! (ordered by trigger), `h\0seq` history.
//!
//! The synced set is stored in [`SYNCED_BUCKETS`] buckets by a stable hash
//! of the id, each one JSON array, rather than one key per reminder: sled
//! costs about 10 µs per key written, so a 100k-reminder sync as 100k keys
//! took seconds, while as 256 values it writes in tens of milliseconds. A
//! small change (one reminder fired, one edited) rewrites one bucket.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::history::{HistoryEntry, Origin};
use crate::reminder::Reminder;

/// A reminder instance that already fired (or was consumed by a snooze):
/// syncing it again does not schedule it again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FiredKey {
    pub id: String,
    pub trigger_at_epoch: i64,
}

/// One atomic change of the durable state.
#[derive(Debug, Default)]
pub struct Changes {
    /// Inserted or replaced, by origin and id.
    pub put: Vec<(Origin, Arc<Reminder>)>,
    pub remove: Vec<(Origin, String)>,
    pub add_fired: Vec<FiredKey>,
    pub forget_fired: Vec<FiredKey>,
    pub add_history: Vec<HistoryEntry>,
    pub forget_history: Vec<u64>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.put.is_empty()
            && self.remove.is_empty()
            && self.add_fired.is_empty()
            && self.forget_fired.is_empty()
            && self.add_history.is_empty()
            && self.forget_history.is_empty()
    }
}

/// Everything a store holds, as loaded at start.
#[derive(Debug, Default)]
pub struct Stored {
    pub synced: Vec<Reminder>,
    pub snoozed: Vec<Reminder>,
    pub fired: Vec<FiredKey>,
    pub history: Vec<HistoryEntry>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the reminder database at {path}: {source}")]
    Open { path: PathBuf, source: sled::Error },
    #[error("reminder database error: {0}")]
    Sled(#[from] sled::Error),
    #[error("unreadable record under key {key:?}: {source}")]
    Corrupt {
        key: String,
        source: serde_json::Error,
    },
}

/// Durable storage of the daemon's state.
pub trait ReminderStore: Send + Sync + 'static {
    fn load(&self) -> Result<Stored, StoreError>;
    /// Applies `changes` atomically and makes them durable before returning.
    fn commit(&self, changes: &Changes) -> Result<(), StoreError>;
    /// Where the data lives (for `/storage` and `/doctor`).
    fn path(&self) -> &Path;
    fn size_on_disk(&self) -> Result<u64, StoreError>;
}

const SYNCED: u8 = b'b';
/// How many buckets hold the synced set.
pub const SYNCED_BUCKETS: u64 = 256;
const SNOOZED: u8 = b'z';
const FIRED: u8 = b'f';
const HISTORY: u8 = b'h';

/// The sled database of one Almanac instance.
pub struct SledStore {
    db: sled::Db,
    path: PathBuf,
    /// Commits read-modify-write buckets, so they must not interleave.
    commit: Mutex<()>,
}

impl SledStore {
    /// Opens (or creates) the database; fails if another process holds it.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let path = path.into();
        // Every commit flushes itself, so sled's periodic flusher thread
        // (a wake-up every 500 ms) would only cost idle CPU.
        let db = sled::Config::new()
            .path(&path)
            .flush_every_ms(None)
            .open()
            .map_err(|source| StoreError::Open {
                path: path.clone(),
                source,
            })?;
        Ok(Self {
            db,
            path,
            commit: Mutex::new(()),
        })
    }
}

impl ReminderStore for SledStore {
    fn load(&self) -> Result<Stored, StoreError> {
        let mut stored = Stored::default();
        for item in self.db.iter() {
            let (key, value) = item?;
            let decode_err = |source| StoreError::Corrupt {
                key: String::from_utf8_lossy(&key).into_owned(),
                source,
            };
            match key.first() {
                Some(&SYNCED) => stored
                    .synced
                    .extend(serde_json::from_slice::<Vec<Reminder>>(&value).map_err(decode_err)?),
                Some(&SNOOZED) => stored
                    .snoozed
                    .push(serde_json::from_slice(&value).map_err(decode_err)?),
                Some(&FIRED) => stored.fired.push(decode_fired_key(&key)),
                Some(&HISTORY) => stored
                    .history
                    .push(serde_json::from_slice(&value).map_err(decode_err)?),
                // Unknown prefixes belong to a newer version: leave them be.
                _ => {}
            }
        }
        Ok(stored)
    }

    fn commit(&self, changes: &Changes) -> Result<(), StoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let _serialized = self.commit.lock().expect("commit lock poisoned");
        let mut batch = sled::Batch::default();
        self.write_synced(changes, &mut batch)?;
        for (origin, id) in &changes.remove {
            if *origin == Origin::Snoozed {
                batch.remove(snoozed_key(id));
            }
        }
        for (origin, reminder) in &changes.put {
            if *origin == Origin::Snoozed {
                batch.insert(snoozed_key(&reminder.id), to_json(reminder.as_ref()));
            }
        }
        for key in &changes.forget_fired {
            batch.remove(fired_key(key));
        }
        for key in &changes.add_fired {
            batch.insert(fired_key(key), &[]);
        }
        for seq in &changes.forget_history {
            batch.remove(history_key(*seq).to_vec());
        }
        for entry in &changes.add_history {
            batch.insert(history_key(entry.seq).to_vec(), to_json(entry));
        }
        self.db.apply_batch(batch)?;
        self.db.flush()?;
        Ok(())
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn size_on_disk(&self) -> Result<u64, StoreError> {
        Ok(self.db.size_on_disk()?)
    }
}

impl SledStore {
    /// Adds to `batch` the new content of every synced bucket `changes`
    /// touches (read, changed, written back; an emptied bucket is removed).
    fn write_synced(&self, changes: &Changes, batch: &mut sled::Batch) -> Result<(), StoreError> {
        let mut touched: BTreeMap<u64, (Vec<&str>, Vec<&Arc<Reminder>>)> = BTreeMap::new();
        for (origin, id) in &changes.remove {
            if *origin == Origin::Synced {
                touched.entry(bucket_of(id)).or_default().0.push(id);
            }
        }
        for (origin, reminder) in &changes.put {
            if *origin == Origin::Synced {
                touched
                    .entry(bucket_of(&reminder.id))
                    .or_default()
                    .1
                    .push(reminder);
            }
        }
        for (bucket, (removed, put)) in touched {
            let key = bucket_key(bucket);
            let mut content: HashMap<String, Reminder> = match self.db.get(key)? {
                Some(bytes) => serde_json::from_slice::<Vec<Reminder>>(&bytes)
                    .map_err(|source| StoreError::Corrupt {
                        key: format!("synced bucket {bucket}"),
                        source,
                    })?
                    .into_iter()
                    .map(|reminder| (reminder.id.clone(), reminder))
                    .collect(),
                None => HashMap::new(),
            };
            for id in removed {
                content.remove(id);
            }
            for reminder in put {
                content.insert(reminder.id.clone(), (**reminder).clone());
            }
            if content.is_empty() {
                batch.remove(&key);
            } else {
                let mut reminders: Vec<&Reminder> = content.values().collect();
                reminders.sort_by(|a, b| a.id.cmp(&b.id));
                batch.insert(&key, to_json(&reminders));
            }
        }
        Ok(())
    }
}

fn to_json(value: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(value).expect("reminders and history entries always serialize")
}

/// FNV-1a of the id: stable across builds and Rust versions (std's hasher
/// is not), so a reminder stays in its bucket forever.
fn bucket_of(id: &str) -> u64 {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % SYNCED_BUCKETS
}

fn bucket_key(bucket: u64) -> [u8; 4] {
    let [.., high, low] = bucket.to_be_bytes();
    [SYNCED, 0, high, low]
}

fn snoozed_key(id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(2 + id.len());
    key.extend_from_slice(&[SNOOZED, 0]);
    key.extend_from_slice(id.as_bytes());
    key
}

/// `f\0`, the trigger as big-endian with the sign bit flipped (so byte order
/// is numeric order), then the id.
fn fired_key(key: &FiredKey) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(10 + key.id.len());
    bytes.extend_from_slice(&[FIRED, 0]);
    bytes.extend_from_slice(&((key.trigger_at_epoch as u64) ^ (1 << 63)).to_be_bytes());
    bytes.extend_from_slice(key.id.as_bytes());
    bytes
}

fn decode_fired_key(bytes: &[u8]) -> FiredKey {
    let mut trigger = [0u8; 8];
    let raw = bytes.get(2..10).unwrap_or(&[0; 8]);
    trigger.copy_from_slice(raw);
    FiredKey {
        trigger_at_epoch: (u64::from_be_bytes(trigger) ^ (1 << 63)) as i64,
        id: String::from_utf8_lossy(bytes.get(10..).unwrap_or_default()).into_owned(),
    }
}

fn history_key(seq: u64) -> [u8; 10] {
    let mut key = [0u8; 10];
    key[0] = HISTORY;
    key[2..].copy_from_slice(&seq.to_be_bytes());
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Outcome;

    fn reminder(id: &str, trigger: i64) -> Arc<Reminder> {
        Arc::new(Reminder {
            id: id.into(),
            title: format!("title {id}"),
            body: "body".into(),
            trigger_at_epoch: trigger,
            action_url: "obsidian://x".into(),
        })
    }

    #[test]
    fn fired_keys_order_numerically_and_round_trip() {
        let keys = [-5, 0, 7, 1_700_000_000].map(|t| FiredKey {
            id: "a".into(),
            trigger_at_epoch: t,
        });
        let encoded: Vec<_> = keys.iter().map(fired_key).collect();
        assert!(encoded.windows(2).all(|pair| pair[0] < pair[1]));
        for (key, bytes) in keys.iter().zip(&encoded) {
            assert_eq!(&decode_fired_key(bytes), key);
        }
    }

    #[test]
    fn commits_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        {
            let store = SledStore::open(&path).unwrap();
            store
                .commit(&Changes {
                    put: vec![
                        (Origin::Synced, reminder("a", 10)),
                        (Origin::Synced, reminder("b", 20)),
                        (Origin::Snoozed, reminder("a", 30)),
                    ],
                    add_fired: vec![FiredKey {
                        id: "old".into(),
                        trigger_at_epoch: 5,
                    }],
                    add_history: vec![HistoryEntry {
                        seq: 0,
                        reminder: (*reminder("old", 5)).clone(),
                        origin: Origin::Synced,
                        outcome: Outcome::Fired,
                        recorded_at_ms: 5_000,
                    }],
                    ..Changes::default()
                })
                .unwrap();
            store
                .commit(&Changes {
                    remove: vec![(Origin::Synced, "b".into())],
                    ..Changes::default()
                })
                .unwrap();
        }
        let stored = SledStore::open(&path).unwrap().load().unwrap();
        assert_eq!(stored.synced, vec![(*reminder("a", 10)).clone()]);
        assert_eq!(stored.snoozed, vec![(*reminder("a", 30)).clone()]);
        assert_eq!(stored.fired.len(), 1);
        assert_eq!(stored.history.len(), 1);
    }

    #[test]
    fn buckets_hold_large_sets_and_small_changes_touch_little() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        let all: Vec<_> = (0..2000).map(|i| reminder(&format!("r{i}"), i)).collect();
        store
            .commit(&Changes {
                put: all.iter().map(|r| (Origin::Synced, r.clone())).collect(),
                ..Changes::default()
            })
            .unwrap();
        store
            .commit(&Changes {
                remove: (0..1000)
                    .map(|i| (Origin::Synced, format!("r{i}")))
                    .collect(),
                put: vec![(Origin::Synced, reminder("r1500", 99))],
                ..Changes::default()
            })
            .unwrap();
        let mut loaded = store.load().unwrap().synced;
        loaded.sort_by_key(|r| r.trigger_at_epoch);
        assert_eq!(loaded.len(), 1000);
        assert_eq!(loaded[0], *reminder("r1500", 99));
        assert!(
            loaded
                .iter()
                .all(|r| r.id["r".len()..].parse::<u32>().unwrap() >= 1000)
        );
        assert_eq!(bucket_of("r1"), bucket_of("r1"));
        assert!(bucket_of("any id at all") < SYNCED_BUCKETS);
    }

    #[test]
    fn a_second_open_of_the_same_database_fails_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let _first = SledStore::open(dir.path()).unwrap();
        let error = SledStore::open(dir.path()).err().expect("locked");
        assert!(error.to_string().contains("cannot open"), "{error}");
    }
}
