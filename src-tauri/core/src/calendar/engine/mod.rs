//! The engine: [`Calendar`], the shared handle, and its state, with the
//! plumbing that keeps the cache in step with the vault, the feeds and the
//! settings.
//!
//! # How `Calendar` is composed
//!
//! One handle ([`Calendar`], holding [`Inner`]) and its methods, one room
//! per concern, each an `impl` block on the same [`Calendar`] / [`Inner`]:
//! - here (`engine`): the public API (`api`: the reads, answered from the
//!   cache, and the entry points of everything else); re-reading notes
//!   (`reread`: full rescans, single paths, watcher batches, over `scan`'s
//!   parallel vault read); external edits (`watcher`); the ICS feed worker
//!   (`feeds`); putting settings in place (`adopt`) and following them over
//!   time (`follow`);
//! - `write`: writes routed to each source kind's writer (`dispatch`), and
//!   one occurrence of a note series detached (`detach`);
//! - `sources::caldav`: the CalDAV calendars on the feed worker (`worker`),
//!   their writes (`writes`) and moves in and out of them (`moves`);
//! - `index`: the readers that answer from the cache without the public
//!   API's checks (`listing`, `note_occurrences`, `per_day`).
//!
//! May import every room: it is the one place they meet.

mod adopt;
mod api;
pub(in crate::calendar) mod feeds;
mod follow;
mod reread;
mod scan;
pub(crate) mod source_info;
mod watcher;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use tokio::sync::watch;

use crate::calendar::index::cache::Cache;
use crate::calendar::sources::caldav::state::CaldavState;
use crate::calendar::sources::ical;
use crate::calendar::vault::Vault;
use crate::events::{AppEvent, EventBus};
use crate::history::{ChangeScope, History};
use crate::paths::Paths;
use crate::settings::{Settings, SettingsStore};
use adopt::{display_tz, log_transition, prepare};
use almanac_model::status::VaultStatus;
use feeds::FeedWorker;
use watcher::VaultWatcher;

/// The calendar engine. Cheap to clone (an `Arc` inside); every clone is the
/// same engine. Send + Sync: share it between the REST server, the UI and the
/// in-process API. The watcher and feed threads stop when the last clone is
/// dropped.
#[derive(Clone)]
pub struct Calendar {
    pub(in crate::calendar) inner: Arc<Inner>,
}

/// A [`Calendar`] that does not keep the engine alive, for followers that
/// should end with it.
#[derive(Clone)]
pub struct WeakCalendar(pub(in crate::calendar) std::sync::Weak<Inner>);

pub(in crate::calendar) struct State {
    /// [`Vault::unopened`] while `vault_status` is unavailable.
    pub(in crate::calendar) vault: Vault,
    pub(in crate::calendar) cache: Cache,
    pub(in crate::calendar) vault_status: VaultStatus,
}

pub(crate) struct Inner {
    state: RwLock<State>,
    pub(in crate::calendar) changes: watch::Sender<u64>,
    /// Where each generation is announced besides `changes`.
    events: EventBus,
    /// Serializes our own writes (read-modify-write of notes).
    pub(in crate::calendar) write_lock: Mutex<()>,
    /// Every file written, recorded ([`Inner::begin_write`]).
    pub(in crate::calendar) history: History,
    /// Serializes re-reads of notes, so a slow re-read can never put an older
    /// version of a note into the cache after a newer one.
    pub(in crate::calendar) refresh_lock: Mutex<()>,
    pub(in crate::calendar) watcher: Mutex<Option<VaultWatcher>>,
    pub(in crate::calendar) watcher_alive: Arc<AtomicBool>,
    /// The on-disk copies of the feeds.
    pub(in crate::calendar) feeds: ical::FeedCopies,
    /// Held while a feed's copy is loaded into the cache, and from a fetched
    /// feed's check of the settings until its answer is in both the copy and
    /// the cache: the two move together (`feeds`).
    pub(in crate::calendar) feed_copies: Mutex<()>,
    /// The ids of the feeds and CalDAV calendars being fetched or synced
    /// right now (`feeds::Syncing`), which the calendar list shows.
    pub(in crate::calendar) syncing: Mutex<HashSet<String>>,
    /// The CalDAV calendars' own state, owned by their kind.
    pub(in crate::calendar) caldav: CaldavState,
    /// Runs feed revalidations, one at a time.
    pub(in crate::calendar) feed_worker: FeedWorker,
    /// The settings the engine was last told to use (guarded by
    /// `write_lock` for writers): what an unavailable vault is retried with,
    /// and what [`Calendar::catch_up`] compares against.
    pub(in crate::calendar) wanted: Mutex<Settings>,
    /// The store [`Calendar::follow`] follows: where a CalDAV calendar's
    /// discovered URL is written back.
    pub(in crate::calendar) settings: Mutex<std::sync::Weak<SettingsStore>>,
}

/// The write lock, with the change it makes open in the history: the
/// change is finished (field order) before the lock is released.
pub(in crate::calendar) struct WriteGuard<'a> {
    pub(in crate::calendar) change: ChangeScope,
    _lock: MutexGuard<'a, ()>,
}

pub(in crate::calendar) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    pub(in crate::calendar) fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    pub(in crate::calendar) fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Announces that the cached events or the feed status changed: the one
    /// place the cache generation moves. The watch channel and the bus are
    /// fed together, in generation order.
    pub(in crate::calendar) fn bump(&self) {
        self.changes.send_modify(|generation| {
            *generation += 1;
            self.events.publish(AppEvent::CalendarChanged {
                generation: *generation,
            });
        });
    }

    /// Takes the write lock for one write, recorded in the history as one
    /// change (`undoes`: the change it undoes).
    pub(in crate::calendar) fn begin_write(&self, undoes: Option<u64>) -> WriteGuard<'_> {
        let lock = lock(&self.write_lock);
        let vault = self.read().vault.root().to_path_buf();
        WriteGuard {
            change: self.history.begin(&vault, undoes),
            _lock: lock,
        }
    }

    pub(in crate::calendar) fn start_watcher(self: &Arc<Self>) {
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
            feeds: ical::FeedCopies::new(&paths.ical_cache_dir()),
            feed_copies: Mutex::new(()),
            syncing: Mutex::default(),
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
