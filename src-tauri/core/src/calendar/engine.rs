//! [`Calendar`]: the shared handle to the engine, its state, and the reads
//! (queries, details, sources, statistics) answered from the cache.
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

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use chrono_tz::Tz;
use tokio::sync::watch;

use super::adopt::{display_tz, log_transition, prepare};
use super::cache::{Cache, Ceiling};
use super::error::CalendarError;
use super::event::{Event, EventDetails, EventType, FileRef, Location};
use super::feeds::FeedWorker;
use super::id::EventId;
use super::query::{EventQuery, QueryAnswer};
use super::sources::caldav::mirror::MirrorStore;
use super::sources::caldav::password::Passwords;
use super::sources::caldav::queue::QueueStore;
use super::sources::{SourceType, ical};
use super::status::{CacheStats, SourceInfo, VaultStatus};
use super::vault::Vault;
use super::watcher::VaultWatcher;
use crate::events::{AppEvent, EventBus};
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
pub struct WeakCalendar(std::sync::Weak<Inner>);

impl WeakCalendar {
    /// The engine, while a [`Calendar`] holds it.
    pub fn upgrade(&self) -> Option<Calendar> {
        self.0.upgrade().map(|inner| Calendar { inner })
    }
}

pub(super) struct State {
    /// [`Vault::unopened`] while `vault_status` is unavailable.
    pub(super) vault: Vault,
    pub(super) cache: Cache,
    pub(super) vault_status: VaultStatus,
}

pub(crate) struct Inner {
    state: RwLock<State>,
    changes: watch::Sender<u64>,
    /// Where each generation is announced besides `changes`.
    events: EventBus,
    /// Serializes our own writes (read-modify-write of notes).
    pub(super) write_lock: Mutex<()>,
    /// Serializes re-reads of notes, so a slow re-read can never put an older
    /// version of a note into the cache after a newer one.
    pub(super) refresh_lock: Mutex<()>,
    pub(super) watcher: Mutex<Option<VaultWatcher>>,
    watcher_alive: Arc<AtomicBool>,
    /// The on-disk copies of the feeds.
    pub(super) feeds: ical::FeedStore,
    /// The on-disk mirrors of the CalDAV calendars.
    pub(super) mirrors: MirrorStore,
    /// The CalDAV writes waiting for their server.
    pub(super) queues: QueueStore,
    /// Serializes a CalDAV source's syncs and writes (its mirror and queue).
    pub(super) caldav_lock: Mutex<()>,
    /// The CalDAV passwords, in the OS keyring.
    pub(super) passwords: Passwords,
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
    /// Opens the vault of `settings`: creates the vault folder and the folders
    /// of its note sources when missing, indexes every note (in parallel),
    /// loads cached ICS feeds from `paths.ical_cache_dir()` and starts their
    /// background refresh, and starts the file watcher.
    ///
    /// A vault that cannot be opened does not stop the engine: it starts with
    /// empty note calendars and [`Calendar::vault_status`] says why (feeds
    /// still load). [`Calendar::follow`] retries it.
    pub fn open(settings: &Settings, paths: &Paths) -> Calendar {
        Self::open_publishing(settings, paths, EventBus::default())
    }

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
            refresh_lock: Mutex::new(()),
            watcher: Mutex::new(None),
            watcher_alive: Arc::new(AtomicBool::new(false)),
            feeds: ical::FeedStore::new(&paths.ical_cache_dir()),
            mirrors: MirrorStore::new(&paths.ical_cache_dir()),
            queues: QueueStore::new(&paths.caldav_queue_dir()),
            caldav_lock: Mutex::new(()),
            passwords: Passwords::default(),
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

    /// A handle that does not keep the engine alive.
    pub fn downgrade(&self) -> WeakCalendar {
        WeakCalendar(Arc::downgrade(&self.inner))
    }

    /// Whether the vault can be used, and if not, why.
    pub fn vault_status(&self) -> VaultStatus {
        self.inner.read().vault_status.clone()
    }

    /// The events matching `query`, series expanded into occurrences, sorted
    /// by start (then id). Reads the cache only. The unchecked form, for the
    /// engine's tests and benchmarks: a range whose end is before its start
    /// matches nothing, and each series is cut at the per-series caps (see
    /// [`super::query`]). Clients go through [`Calendar::query_checked`].
    pub fn query(&self, query: &EventQuery) -> Vec<Event> {
        let now = chrono::Utc::now().timestamp_millis();
        self.inner
            .read()
            .cache
            .query(query, now, Ceiling::PerSeries)
            .map(|(events, _)| events)
            .unwrap_or_default()
    }

    /// Like [`Calendar::query`], but refuses a range whose end is before its
    /// start with [`CalendarError::InvalidInput`], and a query past the cost
    /// ceiling (more than [`MAX_EVENTS_PER_ANSWER`] events, or more than
    /// [`MAX_EXPANSION_STEPS`] expansion steps) with
    /// [`CalendarError::QueryTooLarge`], as soon as it is exceeded.
    ///
    /// [`MAX_EVENTS_PER_ANSWER`]: super::query::MAX_EVENTS_PER_ANSWER
    /// [`MAX_EXPANSION_STEPS`]: super::query::MAX_EXPANSION_STEPS
    pub fn query_checked(&self, query: &EventQuery) -> Result<Vec<Event>, CalendarError> {
        Ok(self.query_answer(query)?.events)
    }

    /// [`Calendar::query_checked`] with the series it left out (see
    /// [`super::query`]).
    pub fn query_answer(&self, query: &EventQuery) -> Result<QueryAnswer, CalendarError> {
        super::query::validate_range(query)?;
        let now = chrono::Utc::now().timestamp_millis();
        let (events, left_out) = self
            .inner
            .read()
            .cache
            .query(query, now, Ceiling::PerAnswer)?;
        Ok(QueryAnswer { events, left_out })
    }

    /// The event with this id (a series: unexpanded), with the note and line
    /// it is written on. Reads the cache only.
    pub fn details(&self, id: &str) -> Result<EventDetails, CalendarError> {
        let target: EventId = id.parse()?;
        let state = self.inner.read();
        let found = match &target {
            EventId::FullNote { path }
            | EventId::DailyNote { path, .. }
            | EventId::Task { path, .. } => {
                state.vault.join(path)?;
                state
                    .cache
                    .find_in_note(path, id)
                    .map(|(index, entry)| (index, path.as_str(), entry))
            }
            EventId::Ical { .. } => state.cache.find(id),
        };
        let (index, path, entry) = found.ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
        let source = &state.cache.sources[index].config;
        Ok(EventDetails {
            calendar_id: source.id.clone(),
            event: entry.event(source, path),
            location: (!matches!(target, EventId::Ical { .. })).then(|| Location {
                file: FileRef {
                    path: path.to_string(),
                },
                line_number: entry.line_number,
            }),
        })
    }

    /// The series one occurrence of which the single event `id` stands in
    /// for: in the same calendar, of the same title, skipping the event's
    /// date (how a "this occurrence" edit or tick is written, as in Full
    /// Calendar). `None` when there is none.
    pub fn replaced_series(&self, id: &str) -> Result<Option<Event>, CalendarError> {
        let state = self.inner.read();
        let (index, _, single) = state
            .cache
            .find(id)
            .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
        let (EventType::Single, Some(date)) = (single.spec.kind, single.spec.date) else {
            return Ok(None);
        };
        let source = &state.cache.sources[index];
        Ok(source.notes.iter().find_map(|(path, entries)| {
            entries
                .iter()
                .find(|e| {
                    e.spec.kind != EventType::Single
                        && e.spec.title == single.spec.title
                        && e.spec.skip_dates.contains(&date)
                })
                .map(|e| e.event(&source.config, path))
        }))
    }

    /// The configured sources, in settings order.
    pub fn sources(&self) -> Vec<SourceInfo> {
        let state = self.inner.read();
        state
            .cache
            .sources
            .iter()
            .map(|source| {
                let config = &source.config;
                let (directory, heading, url) = match &config.kind {
                    SourceType::FullNote { dir } | SourceType::Tasks { dir, .. } => {
                        (Some(dir.clone()), None, None)
                    }
                    SourceType::DailyNote { dir, heading, .. } => {
                        (Some(dir.clone()), Some(heading.clone()), None)
                    }
                    SourceType::Ical { url, .. } => (None, None, Some(url.clone())),
                    SourceType::Caldav { server, .. } => (None, None, Some(server.clone())),
                    SourceType::Holidays { .. } | SourceType::IcsFile { .. } => (None, None, None),
                };
                SourceInfo {
                    id: config.id.clone(),
                    name: config.name.clone(),
                    color: config.color.clone(),
                    kind: config.kind.kind(),
                    directory,
                    heading,
                    url,
                    editable: !config.kind.kind().read_only(),
                    event_count: source.notes.values().map(Vec::len).sum(),
                    last_fetched: source.feed.last_fetched.clone(),
                    last_error: source
                        .feed
                        .last_error
                        .clone()
                        .or_else(|| config.problem().map(str::to_string))
                        .or_else(|| config.notes_problem(&state.cache.invalid)),
                    series_left_out: source
                        .notes
                        .values()
                        .flatten()
                        .filter_map(|entry| entry.left_out(config))
                        .collect(),
                    order: config.order,
                    components: config.components.clone(),
                }
            })
            .collect()
    }

    /// Cache statistics.
    pub fn stats(&self) -> CacheStats {
        let generation = *self.inner.changes.borrow();
        let alive = self.inner.watcher_alive.load(Ordering::SeqCst);
        self.inner.read().cache.stats(alive, generation)
    }

    /// A receiver of the cache generation: it changes whenever the cached
    /// events or the feed status change (own writes, external edits, ICS
    /// refreshes, rescans). Await `changed()` / `wait_for(..)` instead of
    /// polling.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// The display time zone, for parsing REST range bounds
    /// (see [`parse_range_bound`](super::parse_range_bound)).
    pub fn display_timezone(&self) -> Tz {
        self.inner.read().cache.display_tz
    }

    /// The canonical vault folder.
    pub fn vault_root(&self) -> PathBuf {
        self.inner.read().vault.root().to_path_buf()
    }

    /// Re-reads one vault-relative path now (as the watcher would), for
    /// callers that changed a note themselves and cannot wait.
    pub fn refresh_path(&self, path: &Path) {
        let rel = self.inner.read().vault.relative(path);
        if let Some(rel) = rel {
            self.inner.refresh(&[rel]);
        }
    }
}
