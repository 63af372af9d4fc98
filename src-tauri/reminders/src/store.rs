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
//! `b\0n` synced buckets, `v\0n` vault buckets, `z\0id` snoozed,
//! `f\0trigger id` fired keys (ordered by trigger), `h\0seq` history.
//!
//! The synced set (and, the same way, the vault set) is stored in
//! [`SYNCED_BUCKETS`] buckets by a stable hash
//! of the id, each one JSON array, rather than one key per reminder: sled
//! costs about 10 µs per key written, so a 100k-reminder sync as 100k keys
//! took seconds, while as 256 values it writes in tens of milliseconds. A
//! small change (one reminder fired, one edited) rewrites one bucket.
//!
//! One unreadable record must not keep the daemon down: [`SledStore::load`]
//! moves every record it cannot decode, raw bytes and all, to the
//! `quarantine` tree (with when and why) and loads the rest;
//! [`SledStore::open`] moves a database sled itself reports as corrupt aside
//! and starts a fresh one, recording that in the quarantine too. `/doctor`
//! lists the quarantine. The host's next sync restores the synced set (it is
//! authoritative); snoozes and history in a lost record are gone.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use almanac_loopback::private_dir;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::clock;
use crate::history::{HistoryEntry, Origin};
use crate::reminder::Reminder;

#[cfg(all(test, unix))]
mod private;

/// A reminder instance that already fired (or was consumed by a snooze):
/// syncing it again does not schedule it again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FiredKey {
    pub id: String,
    pub trigger_at_epoch: i64,
}

impl FiredKey {
    /// The key of this instance of `reminder`.
    pub fn of(reminder: &Reminder) -> Self {
        Self {
            id: reminder.id.clone(),
            trigger_at_epoch: reminder.trigger_at_epoch,
        }
    }
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
    pub vault: Vec<Reminder>,
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

/// A record the store could not read, kept aside for inspection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quarantined {
    /// What the record was (`synced bucket 17`, `snoozed reminder "x"`,
    /// `the whole database`).
    pub record: String,
    pub reason: String,
    pub quarantined_at_ms: i64,
    /// The raw key and value, as found.
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    /// Where an unopenable database was moved (whole-database recovery only).
    pub moved_to: Option<PathBuf>,
}

/// Durable storage of the daemon's state.
pub trait ReminderStore: Send + Sync + 'static {
    /// Everything readable; unreadable records are quarantined, not fatal.
    fn load(&self) -> Result<Stored, StoreError>;
    /// Applies `changes` atomically and makes them durable before returning.
    fn commit(&self, changes: &Changes) -> Result<(), StoreError>;
    /// Where the data lives (for `/storage` and `/doctor`).
    fn path(&self) -> &Path;
    fn size_on_disk(&self) -> Result<u64, StoreError>;
    /// The records kept aside as unreadable, oldest first.
    fn quarantined(&self) -> Result<Vec<Quarantined>, StoreError>;
}

const SYNCED: u8 = b'b';
const VAULT: u8 = b'v';
/// How many buckets hold the synced set.
pub const SYNCED_BUCKETS: u64 = 256;
const SNOOZED: u8 = b'z';
const FIRED: u8 = b'f';
const HISTORY: u8 = b'h';
/// The sled tree unreadable records are moved to, keyed by a sled id.
const QUARANTINE_TREE: &str = "quarantine";

/// The sled database of one Almanac instance.
pub struct SledStore {
    db: sled::Db,
    path: PathBuf,
    /// Commits read-modify-write buckets, so they must not interleave.
    commit: Mutex<()>,
}

impl SledStore {
    /// Opens (or creates) the database; fails if another process holds it.
    ///
    /// A database sled reports as corrupt (or as written in a format it does
    /// not support) is renamed to `<name>.corrupt-<UTC time>`, kept for
    /// inspection, and a fresh one is started in its place; the quarantine
    /// records the move. Any other failure (locked by another process, no
    /// permission, disk full) is returned: moving a database that may be
    /// fine aside would lose it for nothing.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let path = path.into();
        let source = match Self::open_waiting_for_the_lock(&path) {
            Ok(store) => return Ok(store),
            Err(source) if is_unreadable(&source) => source,
            Err(source) => return Err(StoreError::Open { path, source }),
        };
        let aside = aside_path(&path);
        tracing::error!(
            database = %path.display(), moved_to = %aside.display(), error = %source,
            "the reminder database is unreadable; moving it aside and starting a fresh one"
        );
        std::fs::rename(&path, &aside).map_err(|io| StoreError::Open {
            path: path.clone(),
            source: sled::Error::Io(io),
        })?;
        let store = Self::open_as_is(&path).map_err(|source| StoreError::Open {
            path: path.clone(),
            source,
        })?;
        store.quarantine(Quarantined {
            record: "the whole database".into(),
            reason: source.to_string(),
            quarantined_at_ms: clock::now_ms(),
            key: Vec::new(),
            value: Vec::new(),
            moved_to: Some(aside),
        })?;
        store.db.flush()?;
        Ok(store)
    }

    /// A handle dropped a moment ago (a daemon restarted in this process)
    /// can still hold the folder's lock while sled's own threads finish
    /// writing its last buffers; that lasts milliseconds. So a refused lock
    /// is tried again for [`LOCK_PATIENCE`] before it is reported as another
    /// process's.
    fn open_waiting_for_the_lock(path: &Path) -> Result<Self, sled::Error> {
        let deadline = std::time::Instant::now() + LOCK_PATIENCE;
        loop {
            match Self::open_as_is(path) {
                Err(error) if is_held_lock(&error) && std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                done => return done,
            }
        }
    }

    fn open_as_is(path: &Path) -> Result<Self, sled::Error> {
        // The database folder is the user's alone: it holds every
        // reminder's title and link. sled creates its files with the
        // default modes, so the folder is made 0700 before sled opens it
        // and its files narrowed to 0600 after (files sled makes later are
        // inside the 0700 folder already).
        private_dir::create(path)?;
        // Every commit flushes itself, so sled's periodic flusher thread
        // (a wake-up every 500 ms) would only cost idle CPU.
        let config = sled::Config::new().path(path).flush_every_ms(None);
        // sled asserts on some malformed files instead of returning an
        // error; that is damage too, not a reason to take the app down.
        let db = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| config.open()))
            .unwrap_or_else(|_| {
                Err(sled::Error::ReportableBug(
                    "sled panicked while reading the database".into(),
                ))
            })?;
        private_dir::tighten(path, &[])?;
        Ok(Self {
            db,
            path: path.to_path_buf(),
            commit: Mutex::new(()),
        })
    }

    /// Moves one record from the main tree to the quarantine, atomically.
    fn quarantine(&self, record: Quarantined) -> Result<(), StoreError> {
        use sled::Transactional;
        use sled::transaction::{ConflictableTransactionError, TransactionError};

        let quarantine = self.db.open_tree(QUARANTINE_TREE)?;
        let id = self.db.generate_id()?.to_be_bytes();
        let value = to_json(&record);
        let main: &sled::Tree = &self.db;
        (main, &quarantine)
            .transaction(|(main, quarantine)| {
                if !record.key.is_empty() {
                    main.remove(record.key.as_slice())?;
                }
                quarantine.insert(&id, value.as_slice())?;
                Ok::<_, ConflictableTransactionError<()>>(())
            })
            .map_err(|error| match error {
                TransactionError::Storage(error) => StoreError::Sled(error),
                TransactionError::Abort(()) => unreachable!("the transaction never aborts"),
            })
    }
}

/// Whether `error` says the database's content cannot be read (as opposed
/// to the database being busy, forbidden or out of space).
/// How long [`SledStore::open`] waits for a lock held a moment longer.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// sled reports a held lock only as an I/O error of kind `Other` whose
/// text says so.
fn is_held_lock(error: &sled::Error) -> bool {
    matches!(error, sled::Error::Io(io) if io.to_string().contains("could not acquire lock"))
}

fn is_unreadable(error: &sled::Error) -> bool {
    match error {
        sled::Error::Corruption { .. }
        | sled::Error::Unsupported(_)
        | sled::Error::ReportableBug(_) => true,
        sled::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::UnexpectedEof
        ),
        sled::Error::CollectionNotFound(_) => false,
    }
}

/// `reminders.sled` → `reminders.sled.corrupt-20260504T091500.123Z`.
fn aside_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".corrupt-{}",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    ));
    path.with_file_name(name)
}

/// What a record of the main tree is, for the quarantine.
fn describe(key: &[u8]) -> String {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    match (key.first(), key.get(2..)) {
        (Some(&SYNCED), Some(&[high, low])) => {
            format!("synced bucket {}", u16::from_be_bytes([high, low]))
        }
        (Some(&VAULT), Some(&[high, low])) => {
            format!("vault bucket {}", u16::from_be_bytes([high, low]))
        }
        (Some(&SNOOZED), Some(id)) => format!("snoozed reminder {:?}", text(id)),
        (Some(&FIRED), Some(rest)) => {
            format!("fired key {:?}", text(rest.get(8..).unwrap_or_default()))
        }
        (Some(&HISTORY), Some(seq)) => match <[u8; 8]>::try_from(seq) {
            Ok(seq) => format!("history entry {}", u64::from_be_bytes(seq)),
            Err(_) => format!("history entry {:?}", text(seq)),
        },
        _ => format!("record {:?}", text(key)),
    }
}

/// Adds one record of the main tree to `stored`, or says why it cannot.
fn decode_into(stored: &mut Stored, key: &[u8], value: &[u8]) -> Result<(), String> {
    let json = |error: serde_json::Error| error.to_string();
    match key.first() {
        Some(&SYNCED) => stored
            .synced
            .extend(serde_json::from_slice::<Vec<Reminder>>(value).map_err(json)?),
        Some(&VAULT) => stored
            .vault
            .extend(serde_json::from_slice::<Vec<Reminder>>(value).map_err(json)?),
        Some(&SNOOZED) => stored
            .snoozed
            .push(serde_json::from_slice(value).map_err(json)?),
        Some(&FIRED) => stored.fired.push(
            decode_fired_key(key).ok_or("a fired key needs a separator and an 8-byte trigger")?,
        ),
        Some(&HISTORY) => stored
            .history
            .push(serde_json::from_slice(value).map_err(json)?),
        // Unknown prefixes belong to a newer version: leave them be.
        _ => {}
    }
    Ok(())
}

impl ReminderStore for SledStore {
    fn load(&self) -> Result<Stored, StoreError> {
        let mut stored = Stored::default();
        let mut unreadable = Vec::new();
        for item in self.db.iter() {
            let (key, value) = item?;
            if let Err(reason) = decode_into(&mut stored, &key, &value) {
                unreadable.push((key, value, reason));
            }
        }
        if unreadable.is_empty() {
            return Ok(stored);
        }
        for (key, value, reason) in unreadable {
            let record = describe(&key);
            tracing::error!(%record, %reason, "unreadable reminder record quarantined");
            self.quarantine(Quarantined {
                record,
                reason,
                quarantined_at_ms: clock::now_ms(),
                key: key.to_vec(),
                value: value.to_vec(),
                moved_to: None,
            })?;
        }
        self.db.flush()?;
        Ok(stored)
    }

    fn commit(&self, changes: &Changes) -> Result<(), StoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let _serialized = self.commit.lock().expect("commit lock poisoned");
        let mut batch = sled::Batch::default();
        self.write_buckets(Origin::Synced, changes, &mut batch)?;
        self.write_buckets(Origin::Vault, changes, &mut batch)?;
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

    fn quarantined(&self) -> Result<Vec<Quarantined>, StoreError> {
        let quarantine = self.db.open_tree(QUARANTINE_TREE)?;
        quarantine
            .iter()
            .values()
            .map(|value| {
                let value = value?;
                serde_json::from_slice(&value).map_err(|source| StoreError::Corrupt {
                    key: "quarantine".into(),
                    source,
                })
            })
            .collect()
    }
}

impl SledStore {
    /// Adds to `batch` the new content of every bucket of the `origin`
    /// set (synced or vault) that `changes` touches (read, changed, written
    /// back; an emptied bucket is removed).
    fn write_buckets(
        &self,
        origin: Origin,
        changes: &Changes,
        batch: &mut sled::Batch,
    ) -> Result<(), StoreError> {
        let (prefix, name) = match origin {
            Origin::Vault => (VAULT, "vault"),
            _ => (SYNCED, "synced"),
        };
        let mut touched: BTreeMap<u64, (Vec<&str>, Vec<&Arc<Reminder>>)> = BTreeMap::new();
        for (changed, id) in &changes.remove {
            if *changed == origin {
                touched.entry(bucket_of(id)).or_default().0.push(id);
            }
        }
        for (changed, reminder) in &changes.put {
            if *changed == origin {
                touched
                    .entry(bucket_of(&reminder.id))
                    .or_default()
                    .1
                    .push(reminder);
            }
        }
        for (bucket, (removed, put)) in touched {
            let key = bucket_key(prefix, bucket);
            let mut content: HashMap<String, Reminder> = match self.db.get(key)? {
                Some(bytes) => serde_json::from_slice::<Vec<Reminder>>(&bytes)
                    .map_err(|source| StoreError::Corrupt {
                        key: format!("{name} bucket {bucket}"),
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

fn bucket_key(prefix: u8, bucket: u64) -> [u8; 4] {
    let [.., high, low] = bucket.to_be_bytes();
    [prefix, 0, high, low]
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

fn decode_fired_key(bytes: &[u8]) -> Option<FiredKey> {
    let trigger: [u8; 8] = bytes.get(2..10)?.try_into().ok()?;
    Some(FiredKey {
        trigger_at_epoch: (u64::from_be_bytes(trigger) ^ (1 << 63)) as i64,
        id: String::from_utf8_lossy(&bytes[10..]).into_owned(),
    })
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
        Arc::new(Reminder::from_host(
            id.into(),
            format!("title {id}"),
            "body".into(),
            trigger,
            "obsidian://x".into(),
        ))
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
            assert_eq!(decode_fired_key(bytes).as_ref(), Some(key));
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
                        // The same id in the vault set is another record.
                        (Origin::Vault, reminder("a", 40)),
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
        assert_eq!(stored.vault, vec![(*reminder("a", 40)).clone()]);
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

    /// Garbage under three keys of a real database: the rest loads, the
    /// three are in the quarantine (raw bytes, what and why), and gone from
    /// the main tree, so the next load is clean.
    #[test]
    fn unreadable_records_are_quarantined_and_the_rest_loads() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        store
            .commit(&Changes {
                put: vec![
                    (Origin::Synced, reminder("good", 10)),
                    (Origin::Snoozed, reminder("snoozed", 20)),
                ],
                ..Changes::default()
            })
            .unwrap();
        let bad_bucket = bucket_key(SYNCED, (bucket_of("good") + 1) % SYNCED_BUCKETS);
        store.db.insert(bad_bucket, &b"\xff not json"[..]).unwrap();
        store
            .db
            .insert(snoozed_key("broken"), &b"{\"id\":"[..])
            .unwrap();
        store.db.insert([FIRED, 0, 1], &[][..]).unwrap();

        let stored = store.load().unwrap();
        assert_eq!(stored.synced, vec![(*reminder("good", 10)).clone()]);
        assert_eq!(stored.snoozed, vec![(*reminder("snoozed", 20)).clone()]);
        assert!(stored.fired.is_empty());
        let quarantined = store.quarantined().unwrap();
        let records: Vec<&str> = quarantined.iter().map(|q| q.record.as_str()).collect();
        assert_eq!(records.len(), 3, "{quarantined:?}");
        // In key order: b(ucket), f(ired), z (snoozed).
        assert!(records[0].starts_with("synced bucket "), "{records:?}");
        assert!(records[1].starts_with("fired key"), "{records:?}");
        assert_eq!(records[2], "snoozed reminder \"broken\"");
        assert_eq!(quarantined[0].key, bad_bucket);
        assert_eq!(quarantined[0].value, b"\xff not json");
        assert!(quarantined[2].reason.contains("EOF"), "{quarantined:?}");
        assert!(quarantined.iter().all(|q| q.quarantined_at_ms > 0));
        assert_eq!(store.db.get(bad_bucket).unwrap(), None);

        drop(store);
        let store = SledStore::open(dir.path()).unwrap();
        assert_eq!(store.load().unwrap().synced.len(), 1);
        assert_eq!(store.quarantined().unwrap().len(), 3);
    }

    /// A database whose files sled cannot read is moved aside, not fatal.
    #[test]
    fn an_unreadable_database_is_moved_aside_and_a_fresh_one_starts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reminders.sled");
        {
            let store = SledStore::open(&path).unwrap();
            store
                .commit(&Changes {
                    put: vec![(Origin::Synced, reminder("lost", 10))],
                    ..Changes::default()
                })
                .unwrap();
        }
        for entry in std::fs::read_dir(&path).unwrap() {
            let file = entry.unwrap().path();
            if file.is_file() {
                let len = std::fs::metadata(&file).unwrap().len() as usize;
                std::fs::write(&file, vec![0xA5; len.max(64)]).unwrap();
            }
        }
        let store = SledStore::open(&path).unwrap();
        assert!(store.load().unwrap().synced.is_empty());
        let quarantined = store.quarantined().unwrap();
        assert_eq!(quarantined.len(), 1, "{quarantined:?}");
        assert_eq!(quarantined[0].record, "the whole database");
        let aside = quarantined[0].moved_to.clone().unwrap();
        assert!(aside.is_dir(), "{aside:?}");
        assert!(
            aside
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("reminders.sled.corrupt-"),
            "{aside:?}"
        );
    }

    #[test]
    fn a_second_open_of_the_same_database_fails_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let _first = SledStore::open(dir.path()).unwrap();
        let error = SledStore::open(dir.path()).err().expect("locked");
        assert!(error.to_string().contains("cannot open"), "{error}");
    }
}
