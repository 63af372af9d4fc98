//! What the engine keeps for its CalDAV calendars, owned by the kind: the
//! on-disk mirrors, the queues of writes waiting for their server, the lock
//! that serializes a calendar's syncs and writes, and the passwords.

use std::sync::Mutex;

use super::mirror::MirrorStore;
use super::password::Passwords;
use super::queue::QueueStore;
use crate::paths::Paths;

pub struct CaldavState {
    /// The on-disk mirrors of the CalDAV calendars.
    pub mirrors: MirrorStore,
    /// The CalDAV writes waiting for their server.
    pub queues: QueueStore,
    /// Serializes a CalDAV source's syncs and writes (its mirror and queue).
    pub lock: Mutex<()>,
    /// The CalDAV passwords, in the OS keyring.
    pub passwords: Passwords,
}

impl CaldavState {
    pub fn new(paths: &Paths) -> Self {
        CaldavState {
            mirrors: MirrorStore::new(&paths.ical_cache_dir()),
            queues: QueueStore::new(&paths.caldav_queue_dir()),
            lock: Mutex::new(()),
            passwords: Passwords::default(),
        }
    }
}
