//! [`Calendar`]: the shared handle to the engine, and its state. Its public
//! methods are all in `api` (the reads, answered from the cache, and the
//! entry points of the rest).
//!
//! The rest of the engine lives beside it, one concept per module, all as
//! `impl` blocks on the same [`Calendar`] / [`Inner`]:
//! - `reread`: re-reading notes (full rescans, single paths, watcher batches);
//! - `feeds`: the ICS feed lifecycle, one worker thread per engine;
//! - `caldav_source`: the CalDAV calendars on that worker; `caldav_write`:
//!   their writes;
//! - `dispatch`: writes, routed to each source type's writer;
//! - `adopt`: putting settings (vault, sources, zone) in place;
//! - `follow`: following the settings store over time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use tokio::sync::watch;

use super::adopt::{display_tz, log_transition, prepare};
use super::cache::Cache;
use super::feeds::FeedWorker;
use super::sources::caldav::state::CaldavState;
use super::sources::ical;
use super::status::VaultStatus;
use super::vault::Vault;
use super::watcher::VaultWatcher;
use crate::events::{AppEvent, EventBus};
use crate::history::{ChangeScope, History};
use crate::paths::Paths;
use crate::settings::{Settings, SettingsStore};

/// The calendar engine. Cheap to clone (an `Arc` inside); every clone is the
/// same engine. Send + Sync: share it between the REST server, the UI and the
/// in-process API. The watcher and feed threads stop when the last clone is
/// dropped.
#[derive(Clone)]
pub struct Calendar {
    pub(super) inner: Arc<Inner>,
}

/// A [`Calendar`] that does not keep the engine alive, for followers that
/// should end with it.
#[derive(Clone)]
pub struct WeakCalendar(pub(super) std::sync::Weak<Inner>);

pub(super) struct State {
    /// [`Vault::unopened`] while `vault_status` is unavailable.
    pub(super) vault: Vault,
    pub(super) cache: Cache,
    pub(super) vault_status: VaultStatus,
}

pub(crate) struct Inner {
    state: RwLock<State>,
    pub(super) changes: watch::Sender<u64>,
    /// Where each generation is announced besides `changes`.
    events: EventBus,
    /// Serializes our own writes (read-modify-write of notes).
    pub(super) write_lock: Mutex<()>,
    /// Every file written, recorded ([`Inner::begin_write`]).
    pub(super) history: History,
    /// Serializes re-reads of notes, so a slow re-read can never put an older
    /// version of a note into the cache after a newer one.
    pub(super) refresh_lock: Mutex<()>,
    pub(super) watcher: Mutex<Option<VaultWatcher>>,
    pub(super) watcher_alive: Arc<AtomicBool>,
    /// The on-disk copies of the feeds.
    pub(super) feeds: ical::FeedStore,
    /// Held while a feed's copy is loaded into the cache, and from a fetched
    /// feed's check of the settings until its answer is in both the copy and
    /// the cache: the two move together (`feeds`).
    pub(super) feed_copies: Mutex<()>,
    /// The CalDAV calendars' own state, owned by their kind.
    pub(super) caldav: CaldavState,
    /// Runs feed revalidations, one at a time.
    pub(super) feed_worker: FeedWorker,
    /// The settings the engine was last told to use (guarded by
    /// `write_lock` for writers): what an unavailable vault is retried with,
    /// and what [`Calendar::catch_up`] compares against.
    pub(super) wanted: Mutex<Settings>,
    /// The store [`Calendar::follow`] follows: where a CalDAV calendar's
    /// discovered URL is written back.
    pub(super) settings: Mutex<std::sync::Weak<SettingsStore>>,
}

/// The write lock, with the change it makes open in the history: the
/// change is finished (field order) before the lock is released.
pub(super) struct WriteGuard<'a> {
    pub(super) change: ChangeScope,
    _lock: MutexGuard<'a, ()>,
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    pub(super) fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Announces that the cached events or the feed status changed: the one
    /// place the cache generation moves. The watch channel and the bus are
    /// fed together, in generation order.
    pub(super) fn bump(&self) {
        self.changes.send_modify(|generation| {
            *generation += 1;
            self.events.publish(AppEvent::CalendarChanged {
                generation: *generation,
            });
        });
    }

    /// Takes the write lock for one write, recorded in the history as one
    /// change (`undoes`: the change it undoes).
    pub(super) fn begin_write(&self, undoes: Option<u64>) -> WriteGuard<'_> {
        let lock = lock(&self.write_lock);
        let vault = self.read().vault.root().to_path_buf();
        WriteGuard {
            change: self.history.begin(&vault, undoes),
            _lock: lock,
        }
    }

    pub(super) fn start_watcher(self: &Arc<Self>) {
        let root = self.read().vault.root().to_path_buf();
        let weak = Arc::downgrade(self);
        match VaultWatcher::start(&root, weak, self.watcher_alive.clone()) {
            Ok(watcher) => *lock(&self.watcher) = Some(watcher),
            Err(error) => {
                self.watcher_alive.store(false, Ordering::SeqCst);
                tracing::error!(%error, vault = %root.display(), "cannot watch the vault; external edits show after a rescan");
            }
        }
    }
}

impl Calendar {
    /// [`Calendar::open`], announcing each generation on `events` (the
    /// instance's bus) as [`AppEvent::CalendarChanged`].
    pub(crate) fn open_publishing(
        settings: &Settings,
        paths: &Paths,
        events: EventBus,
    ) -> Calendar {
        let (vault, configs, vault_status) = prepare(settings, &VaultStatus::Available);
        log_transition(&VaultStatus::Available, &vault_status);
        let usable = vault_status.is_available();
        let inner = Arc::new_cyclic(|engine| Inner {
            state: RwLock::new(State {
                vault,
                cache: Cache::new(configs, display_tz(settings)),
                vault_status,
            }),
            changes: watch::Sender::new(0),
            events,
            write_lock: Mutex::new(()),
            history: History::open_or_log(&paths.history_file()),
            refresh_lock: Mutex::new(()),
            watcher: Mutex::new(None),
            watcher_alive: Arc::new(AtomicBool::new(false)),
            feeds: ical::FeedStore::new(&paths.ical_cache_dir()),
            feed_copies: Mutex::new(()),
            caldav: CaldavState::new(paths),
            feed_worker: FeedWorker::start(engine.clone()),
            wanted: Mutex::new(settings.clone()),
            settings: Mutex::new(std::sync::Weak::new()),
        });
        // Watch first, so nothing changed during the scan is missed.
        if usable {
            inner.start_watcher();
        }
        inner.rescan_notes();
        inner.load_cached_feeds();
        let calendar = Calendar { inner };
        calendar.revalidate(false);
        calendar
    }
}
