//! [`Calendar`]: the shared handle to the engine, and the glue between the
//! cache, the sources, the writer and the watcher.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use chrono_tz::Tz;
use tokio::sync::watch;

use super::cache::{Cache, Ceiling};
use super::error::CalendarError;
use super::event::{Event, EventDetails, FileRef, Location};
use super::fields::EventFields;
use super::id::EventId;
use super::query::EventQuery;
use super::scan;
use super::sources::{SourceConfig, SourceType, fullnote, ical};
use super::status::{CacheStats, SourceInfo, VaultStatus};
use super::vault::Vault;
use super::watcher::{ChangeSink, VaultWatcher};
use super::write::{self, DailyTarget};
use crate::paths::Paths;
use crate::settings::{Settings, SettingsStore};

/// A feed fetched less than this long ago is not fetched again unless forced.
pub const ICS_MIN_INTERVAL: Duration = Duration::from_secs(5 * 60);

/// The calendar engine. Cheap to clone (an `Arc` inside); every clone is the
/// same engine. Send + Sync: share it between the REST server, the UI and the
/// in-process API. The watcher and feed threads stop when the last clone is
/// dropped.
#[derive(Clone)]
pub struct Calendar {
    pub(super) inner: Arc<Inner>,
}

struct State {
    /// [`Vault::unopened`] while `vault_status` is unavailable.
    vault: Vault,
    cache: Cache,
    vault_status: VaultStatus,
}

pub(crate) struct Inner {
    state: RwLock<State>,
    changes: watch::Sender<u64>,
    /// Serializes our own writes (read-modify-write of notes).
    write_lock: Mutex<()>,
    /// Serializes re-reads of notes, so a slow re-read can never put an older
    /// version of a note into the cache after a newer one.
    refresh_lock: Mutex<()>,
    watcher: Mutex<Option<VaultWatcher>>,
    watcher_alive: Arc<AtomicBool>,
    feeds: ical::FeedStore,
    /// Feed revalidation state: [`RUNNING`], [`AGAIN`], [`AGAIN_FORCED`].
    revalidating: AtomicU8,
    /// The settings the engine was last told to use (guarded by
    /// `write_lock` for writers): what an unavailable vault is retried with,
    /// and what [`Calendar::catch_up`] compares against.
    wanted: Mutex<Settings>,
}

/// A revalidation thread is running.
const RUNNING: u8 = 1;
/// Another run was asked for while one was running.
const AGAIN: u8 = 2;
/// … and it was forced.
const AGAIN_FORCED: u8 = 4;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    fn bump(&self) {
        self.changes.send_modify(|generation| *generation += 1);
    }

    /// Re-reads every note of every note source.
    /// An unavailable vault is not read: its note sources end up empty.
    fn rescan_notes(&self) {
        let _refresh = lock(&self.refresh_lock);
        let started = Instant::now();
        let (vault, configs, tz, usable) = {
            let state = self.read();
            let configs: Vec<SourceConfig> = state
                .cache
                .sources
                .iter()
                .map(|s| s.config.clone())
                .collect();
            let usable = state.vault_status.is_available();
            (state.vault.clone(), configs, state.cache.display_tz, usable)
        };
        let jobs: Vec<(usize, String)> = configs
            .iter()
            .enumerate()
            .filter(|_| usable)
            .flat_map(|(index, source)| {
                scan::note_paths(&vault, source, "")
                    .into_iter()
                    .map(move |path| (index, path))
            })
            .collect();
        let results = scan::read_notes(&vault, &configs, &jobs, tz);
        let mut state = self.write();
        for (index, source) in configs.iter().enumerate() {
            if source.dir().is_some() {
                state.cache.clear_source(index);
            }
        }
        for (index, path, parsed) in results {
            if let Some(parsed) = parsed {
                state.cache.put_note(index, &path, parsed);
            }
        }
        state.cache.last_scan = started.elapsed();
        drop(state);
        tracing::info!(
            notes = jobs.len(),
            millis = started.elapsed().as_millis() as u64,
            "vault indexed"
        );
        self.bump();
    }

    /// Re-reads vault-relative paths (notes or folders) for every source
    /// that owns them. Returns whether the cache changed.
    fn refresh(&self, rels: &[String]) -> bool {
        let _refresh = lock(&self.refresh_lock);
        let (vault, configs, tz) = {
            let state = self.read();
            let configs: Vec<SourceConfig> = state
                .cache
                .sources
                .iter()
                .map(|s| s.config.clone())
                .collect();
            (state.vault.clone(), configs, state.cache.display_tz)
        };
        let mut reads = Vec::new();
        let mut gone = Vec::new();
        {
            let state = self.read();
            for (index, source) in configs.iter().enumerate() {
                if source.dir().is_none() {
                    continue;
                }
                for rel in rels {
                    match std::fs::symlink_metadata(vault.root().join(rel)) {
                        Ok(meta) if meta.is_file() => {
                            if source.owns(rel) {
                                reads.push((index, rel.clone()));
                            }
                        }
                        Ok(meta) if meta.is_dir() => {
                            // A folder appeared or moved here: read what is in
                            // it, forget what no longer is.
                            let present = scan::note_paths(&vault, source, rel);
                            for cached in state.cache.paths_under(index, rel) {
                                if !present.contains(&cached) {
                                    gone.push((index, cached));
                                }
                            }
                            reads.extend(present.into_iter().map(|p| (index, p)));
                        }
                        _ if state.cache.has_note(index, rel) => gone.push((index, rel.clone())),
                        // Gone and not a note: maybe a folder of notes.
                        _ => gone.extend(
                            state
                                .cache
                                .paths_under(index, rel)
                                .into_iter()
                                .map(|p| (index, p)),
                        ),
                    }
                }
            }
        }
        let results = if reads.len() > 64 {
            scan::read_notes(&vault, &configs, &reads, tz)
        } else {
            reads
                .into_iter()
                .map(|(index, path)| {
                    let parsed = scan::read_note(&vault, &configs[index], &path, tz);
                    (index, path, parsed)
                })
                .collect()
        };
        let mut changed = false;
        let mut state = self.write();
        for (index, path) in gone {
            changed |= state.cache.remove_note(index, &path);
        }
        for (index, path, parsed) in results {
            changed |= match parsed {
                Some(parsed) => state.cache.put_note(index, &path, parsed),
                None => state.cache.remove_note(index, &path),
            };
        }
        drop(state);
        if changed {
            self.bump();
        }
        changed
    }

    /// Loads the on-disk copies of the ICS feeds into the cache.
    fn load_cached_feeds(&self) {
        let feeds: Vec<(usize, SourceConfig)> = self.feed_sources();
        let tz = self.read().cache.display_tz;
        for (index, source) in feeds {
            let SourceType::Ical { url, .. } = &source.kind else {
                continue;
            };
            if let Some((body, meta)) = self.feeds.load(&source.id, url) {
                self.apply_feed(index, &source, Ok(Some(body)), Some(&meta), tz);
            }
        }
    }

    fn feed_sources(&self) -> Vec<(usize, SourceConfig)> {
        self.read()
            .cache
            .sources
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s.config.kind, SourceType::Ical { .. }))
            .map(|(i, s)| (i, s.config.clone()))
            .collect()
    }

    /// Puts a feed's outcome into the cache: new events (`Ok(Some)`), still
    /// the same (`Ok(None)`), or an error that keeps the old events.
    fn apply_feed(
        &self,
        index: usize,
        source: &SourceConfig,
        outcome: Result<Option<String>, String>,
        meta: Option<&ical::FeedMeta>,
        tz: Tz,
    ) {
        let parsed = match outcome {
            Ok(Some(body)) => ical::parse(source, &body, tz).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        let mut state = self.write();
        // The sources may have been reconfigured while the feed was fetched.
        if state.cache.sources.get(index).map(|s| &s.config) != Some(source) {
            return;
        }
        let fetched =
            meta.and_then(|m| chrono::DateTime::from_timestamp_millis(m.fetched_at_millis));
        match parsed {
            Ok(Some(parsed)) => {
                state.cache.put_note(index, "", parsed);
                let feed = &mut state.cache.sources[index].feed;
                feed.last_error = None;
                feed.last_fetched = fetched.map(|t| t.to_rfc3339());
            }
            Ok(None) => {
                let feed = &mut state.cache.sources[index].feed;
                feed.last_error = None;
                feed.last_fetched = fetched.map(|t| t.to_rfc3339());
            }
            Err(error) => {
                tracing::warn!(source = %source.id, %error, "calendar feed not updated");
                state.cache.sources[index].feed.last_error = Some(error);
            }
        }
        drop(state);
        self.bump();
    }

    /// Fetches every feed that is due (all with `force`).
    fn revalidate_feeds(&self, force: bool) {
        let tz = self.read().cache.display_tz;
        for (index, source) in self.feed_sources() {
            let SourceType::Ical {
                url,
                allow_private_network,
            } = &source.kind
            else {
                continue;
            };
            let previous = self.feeds.load(&source.id, url).map(|(_, meta)| meta);
            let now = chrono::Utc::now().timestamp_millis();
            let fresh = previous
                .as_ref()
                .is_some_and(|m| now - m.fetched_at_millis < ICS_MIN_INTERVAL.as_millis() as i64);
            if fresh && !force {
                continue;
            }
            let outcome = match ical::fetch(url, previous.as_ref(), *allow_private_network) {
                Ok(ical::Fetched::NotModified) => {
                    let meta = ical::FeedMeta {
                        fetched_at_millis: now,
                        ..previous
                            .clone()
                            .unwrap_or_else(|| ical::meta_for(url, None, None))
                    };
                    self.store_feed(&source.id, None, &meta);
                    self.apply_feed(index, &source, Ok(None), Some(&meta), tz);
                    continue;
                }
                Ok(ical::Fetched::Body {
                    text,
                    etag,
                    last_modified,
                }) => {
                    let meta = ical::meta_for(url, etag, last_modified);
                    match ical::parse(&source, &text, tz) {
                        Ok(_) => {
                            self.store_feed(&source.id, Some(&text), &meta);
                            (Ok(Some(text)), Some(meta))
                        }
                        Err(e) => (Err(e), None),
                    }
                }
                Err(e) => (Err(e), None),
            };
            self.apply_feed(index, &source, outcome.0, outcome.1.as_ref(), tz);
        }
    }

    fn store_feed(&self, source_id: &str, body: Option<&str>, meta: &ical::FeedMeta) {
        if let Err(error) = self.feeds.store(source_id, body, meta) {
            tracing::warn!(source = %source_id, %error, "could not cache calendar feed on disk");
        }
    }

    fn start_watcher(self: &Arc<Self>) {
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

/// A batch of changed paths larger than this is handled by a full rescan,
/// which is cheaper than many single re-reads.
const RESCAN_BATCH: usize = 2_000;

impl ChangeSink for Inner {
    fn paths_changed(&self, paths: &[PathBuf]) {
        if paths.len() > RESCAN_BATCH {
            return self.rescan_notes();
        }
        let rels: Vec<String> = {
            let state = self.read();
            paths
                .iter()
                .filter_map(|p| state.vault.relative(p))
                .collect()
        };
        self.refresh(&rels);
    }

    fn rescan(&self) {
        self.rescan_notes();
    }
}

/// The sources of `settings`, resolved against the vault; a source that
/// cannot be used is logged and left out.
fn configs(settings: &Settings, vault: &Vault) -> Vec<SourceConfig> {
    settings
        .calendar_sources
        .iter()
        .filter_map(|source| {
            SourceConfig::from_settings(source, &settings.vault_path)
                .or_else(|_| SourceConfig::from_settings(source, vault.root()))
                .map_err(
                    |error| tracing::error!(source = %source.id, %error, "calendar source ignored"),
                )
                .ok()
        })
        .collect()
}

fn display_tz(settings: &Settings) -> Tz {
    settings.display_timezone.parse().unwrap_or(Tz::UTC)
}

fn create_source_dirs(vault: &Vault, configs: &[SourceConfig]) -> Result<(), CalendarError> {
    for dir in configs.iter().filter_map(SourceConfig::dir) {
        if !dir.is_empty() {
            let path = vault.join(dir)?;
            std::fs::create_dir_all(&path).map_err(|e| CalendarError::io(&path, e))?;
        }
    }
    Ok(())
}

/// What the engine needs to use `settings`: the vault (its note calendars'
/// folders created), the sources and the vault's status. When the vault
/// cannot be used the status says why; `previous` keeps the `since` of a
/// problem that persists.
fn prepare(settings: &Settings, previous: &VaultStatus) -> (Vault, Vec<SourceConfig>, VaultStatus) {
    let opened = Vault::open(&settings.vault_path).and_then(|vault| {
        let configs = configs(settings, &vault);
        create_source_dirs(&vault, &configs)?;
        Ok((vault, configs))
    });
    match opened {
        Ok((vault, configs)) => (vault, configs, VaultStatus::Available),
        Err(error) => {
            let vault = Vault::unopened(&settings.vault_path);
            let configs = configs(settings, &vault);
            let since = match previous {
                VaultStatus::Unavailable { since, .. } => since.clone(),
                VaultStatus::Available => chrono::Utc::now().to_rfc3339(),
            };
            let reason = error.to_string();
            (vault, configs, VaultStatus::Unavailable { reason, since })
        }
    }
}

/// Logs a change of the vault's status (not a repeat of the same problem).
fn log_transition(previous: &VaultStatus, next: &VaultStatus) {
    match (previous, next) {
        (VaultStatus::Unavailable { .. }, VaultStatus::Available) => {
            tracing::info!("the vault is available again")
        }
        (VaultStatus::Unavailable { reason: old, .. }, VaultStatus::Unavailable { reason, .. })
            if old == reason => {}
        (_, VaultStatus::Unavailable { reason, .. }) => tracing::error!(
            %reason,
            "the vault is unavailable; note calendars stay empty until it can be opened"
        ),
        (VaultStatus::Available, VaultStatus::Available) => {}
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
        let (vault, configs, vault_status) = prepare(settings, &VaultStatus::Available);
        log_transition(&VaultStatus::Available, &vault_status);
        let usable = vault_status.is_available();
        let inner = Arc::new(Inner {
            state: RwLock::new(State {
                vault,
                cache: Cache::new(configs, display_tz(settings)),
                vault_status,
            }),
            changes: watch::Sender::new(0),
            write_lock: Mutex::new(()),
            refresh_lock: Mutex::new(()),
            watcher: Mutex::new(None),
            watcher_alive: Arc::new(AtomicBool::new(false)),
            feeds: ical::FeedStore::new(&paths.ical_cache_dir()),
            revalidating: AtomicU8::new(0),
            wanted: Mutex::new(settings.clone()),
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

    /// Whether the vault can be used, and if not, why.
    pub fn vault_status(&self) -> VaultStatus {
        self.inner.read().vault_status.clone()
    }

    /// Refuses a write while the vault is unavailable.
    fn require_vault(&self) -> Result<(), CalendarError> {
        match &self.inner.read().vault_status {
            VaultStatus::Available => Ok(()),
            VaultStatus::Unavailable { reason, .. } => {
                Err(CalendarError::VaultUnavailable(reason.clone()))
            }
        }
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
        super::query::validate_range(query)?;
        let now = chrono::Utc::now().timestamp_millis();
        Ok(self
            .inner
            .read()
            .cache
            .query(query, now, Ceiling::PerAnswer)?)
    }

    /// The event with this id (a series: unexpanded), with the note and line
    /// it is written on. Reads the cache only.
    pub fn details(&self, id: &str) -> Result<EventDetails, CalendarError> {
        let target: EventId = id.parse()?;
        let state = self.inner.read();
        let found = match &target {
            EventId::FullNote { path } | EventId::DailyNote { path, .. } => {
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

    /// Creates an event in calendar `calendar_id` and returns it as cached.
    /// Full Note calendars get a new note `YYYY-MM-DD Title.md` (an existing
    /// one is never replaced: [`CalendarError::Conflict`]); daily-note
    /// calendars get a new item under the heading of that day's note.
    pub fn create(&self, calendar_id: &str, fields: EventFields) -> Result<Event, CalendarError> {
        let _write = lock(&self.inner.write_lock);
        self.require_vault()?;
        let (vault, source) = {
            let state = self.inner.read();
            let source = state
                .cache
                .source(calendar_id)
                .ok_or_else(|| {
                    CalendarError::invalid("calendarId", format!("no calendar `{calendar_id}`"))
                })?
                .config
                .clone();
            (state.vault.clone(), source)
        };
        match &source.kind {
            SourceType::FullNote { dir } => {
                let path = write::create_fullnote(&vault, dir, &fields)?;
                self.inner.refresh(std::slice::from_ref(&path));
                self.cached(&path, &fullnote::event_id(&path))
            }
            SourceType::DailyNote {
                dir,
                heading,
                format,
            } => {
                let target = DailyTarget::new(dir, heading, format)?;
                let path = write::create_daily(&vault, &target, &fields, |date| {
                    self.daily_note(&source.id, date)
                })?;
                self.inner.refresh(std::slice::from_ref(&path));
                // The new item is the last one of its note.
                let state = self.inner.read();
                let cached = state.cache.source(&source.id);
                cached
                    .and_then(|s| s.notes.get(&path))
                    .and_then(|entries| entries.iter().max_by_key(|e| e.line_number))
                    .zip(cached)
                    .map(|(e, s)| e.event(&s.config, &path))
                    .ok_or_else(|| CalendarError::NotFound(path.clone()))
            }
            SourceType::Ical { .. } => Err(CalendarError::ReadOnly(source.id.clone())),
        }
    }

    /// Applies `fields` (a merge patch, see [`EventFields`]) to the event `id`
    /// and returns the updated event. Its id changes when the note is renamed
    /// (new date or title) or a daily-note item moves to another day.
    pub fn update(&self, id: &str, fields: EventFields) -> Result<Event, CalendarError> {
        let _write = lock(&self.inner.write_lock);
        self.require_vault()?;
        let (vault, index, path, source) = self.locate(id)?;
        match &source.kind {
            SourceType::FullNote { .. } => {
                let new_path = write::update_fullnote(&vault, &path, &fields)?;
                self.inner.refresh(&[path, new_path.clone()]);
                self.cached(&new_path, &fullnote::event_id(&new_path))
            }
            SourceType::DailyNote {
                dir,
                heading,
                format,
            } => {
                let target = DailyTarget::new(dir, heading, format)?;
                let new_path = write::update_daily(&vault, &target, &path, id, &fields, |date| {
                    self.daily_note(&source.id, date)
                })?;
                self.inner.refresh(&[path.clone(), new_path.clone()]);
                let title = fields.title.as_deref().map(str::trim);
                let state = self.inner.read();
                let cached = state.cache.sources.get(index);
                let entries = cached.and_then(|s| s.notes.get(&new_path));
                let entries = entries.map(Vec::as_slice).unwrap_or_default();
                // Same note and title: the id is unchanged. Otherwise the
                // item is the one with the new title (the last, if several).
                entries
                    .iter()
                    .find(|e| &*e.id == id)
                    .or_else(|| {
                        entries
                            .iter()
                            .rev()
                            .find(|e| title.is_some_and(|t| e.spec.title == t))
                    })
                    .or_else(|| entries.iter().max_by_key(|e| e.line_number))
                    .zip(cached)
                    .map(|(e, s)| e.event(&s.config, &new_path))
                    .ok_or_else(|| CalendarError::NotFound(id.to_string()))
            }
            SourceType::Ical { .. } => Err(CalendarError::ReadOnly(source.id.clone())),
        }
    }

    /// Deletes the event `id`. With `instance_date`, only that occurrence of a
    /// series is suppressed (added to the series' `skipDates`).
    pub fn delete(&self, id: &str, instance_date: Option<NaiveDate>) -> Result<(), CalendarError> {
        let _write = lock(&self.inner.write_lock);
        self.require_vault()?;
        let (vault, _, path, source) = self.locate(id)?;
        match (&source.kind, instance_date) {
            (SourceType::FullNote { .. }, None) => write::delete_fullnote(&vault, &path)?,
            (SourceType::FullNote { .. }, Some(date)) => {
                write::skip_fullnote_occurrence(&vault, &path, date)?
            }
            (
                SourceType::DailyNote {
                    dir,
                    heading,
                    format,
                },
                None,
            ) => write::delete_daily(&vault, &DailyTarget::new(dir, heading, format)?, &path, id)?,
            (SourceType::DailyNote { .. }, Some(_)) => {
                return Err(CalendarError::invalid(
                    "instanceDate",
                    "daily-note events are not recurring; delete the event instead",
                ));
            }
            (SourceType::Ical { .. }, _) => return Err(CalendarError::ReadOnly(source.id.clone())),
        }
        self.inner.refresh(&[path]);
        Ok(())
    }

    /// Resolves a client's id for a write: checks it is confined to the vault
    /// and cached. Returns the vault, source index, note path and source.
    fn locate(&self, id: &str) -> Result<(Vault, usize, String, SourceConfig), CalendarError> {
        let path = match id.parse()? {
            EventId::FullNote { path } | EventId::DailyNote { path, .. } => path,
            EventId::Ical { calendar_id, .. } => return Err(CalendarError::ReadOnly(calendar_id)),
        };
        let state = self.inner.read();
        state.vault.join(&path)?;
        if std::fs::symlink_metadata(state.vault.root().join(&path)).is_ok() {
            state.vault.existing(&path)?;
        }
        let (index, _) = state
            .cache
            .find_in_note(&path, id)
            .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
        let source = state.cache.sources[index].config.clone();
        Ok((state.vault.clone(), index, path, source))
    }

    /// The cached event `id` of note `path`.
    fn cached(&self, path: &str, id: &str) -> Result<Event, CalendarError> {
        let state = self.inner.read();
        state
            .cache
            .find_in_note(path, id)
            .map(|(index, e)| e.event(&state.cache.sources[index].config, path))
            .ok_or_else(|| CalendarError::NotFound(id.to_string()))
    }

    /// The existing daily note of `date` in source `source_id`, if any.
    fn daily_note(&self, source_id: &str, date: NaiveDate) -> Option<String> {
        let state = self.inner.read();
        let source = state.cache.source(source_id)?;
        let SourceType::DailyNote {
            format: Ok(format), ..
        } = &source.config.kind
        else {
            return None;
        };
        let mut paths: Vec<&String> = source
            .notes
            .keys()
            .filter(|p| format.date_of(p) == Some(date))
            .collect();
        paths.sort();
        paths.first().map(|p| p.to_string())
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
                    SourceType::FullNote { dir } => (Some(dir.clone()), None, None),
                    SourceType::DailyNote { dir, heading, .. } => {
                        (Some(dir.clone()), Some(heading.clone()), None)
                    }
                    SourceType::Ical { url, .. } => (None, None, Some(url.clone())),
                };
                SourceInfo {
                    id: config.id.clone(),
                    name: config.name.clone(),
                    color: config.color.clone(),
                    kind: config.kind_name(),
                    directory,
                    heading,
                    url,
                    editable: config.dir().is_some(),
                    event_count: source.notes.values().map(Vec::len).sum(),
                    last_fetched: source.feed.last_fetched.clone(),
                    last_error: source
                        .feed
                        .last_error
                        .clone()
                        .or_else(|| config.problem().map(str::to_string)),
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

    /// Starts a background refetch of the ICS sources and returns at once.
    /// Without `force`, a feed fetched less than [`ICS_MIN_INTERVAL`] ago is
    /// left alone; with it, every feed is asked (conditionally: ETag /
    /// Last-Modified). Requests made while one runs are folded into one
    /// more run after it.
    pub fn revalidate(&self, force: bool) {
        if self.inner.feed_sources().is_empty() {
            return;
        }
        loop {
            let current = self.inner.revalidating.load(Ordering::SeqCst);
            if current & RUNNING != 0 {
                // One is running: ask it to go once more (forced wins).
                let again = current | AGAIN | if force { AGAIN_FORCED } else { 0 };
                if self
                    .inner
                    .revalidating
                    .compare_exchange(current, again, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    return;
                }
            } else if self
                .inner
                .revalidating
                .compare_exchange(current, RUNNING, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                break;
            }
        }
        let inner = self.inner.clone();
        let spawned = std::thread::Builder::new()
            .name("almanac-ics-refresh".into())
            .spawn(move || {
                let mut force = force;
                loop {
                    inner.revalidate_feeds(force);
                    let current = inner.revalidating.load(Ordering::SeqCst);
                    let next = if current & AGAIN == 0 { 0 } else { RUNNING };
                    if inner
                        .revalidating
                        .compare_exchange(current, next, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                    {
                        if next == 0 {
                            break;
                        }
                        force = current & AGAIN_FORCED != 0;
                    }
                }
            });
        if let Err(error) = spawned {
            self.inner.revalidating.store(0, Ordering::SeqCst);
            tracing::error!(%error, "cannot start the calendar feed refresh");
        }
    }

    /// Adopts changed settings (vault path, sources, display time zone):
    /// rebuilds the cache from a full rescan, keeps the cached feeds of
    /// unchanged ICS sources, and moves the watcher when the vault moved. A
    /// vault that cannot be used becomes the [`Calendar::vault_status`].
    pub fn apply_settings(&self, settings: &Settings) {
        let _write = lock(&self.inner.write_lock);
        self.adopt(settings);
    }

    /// Adopts `store`'s current settings if the engine would read them
    /// differently (vault, sources, zone) from the ones it uses; otherwise,
    /// while the vault is unavailable, tries it again. Returns when done.
    /// [`Calendar::follow`] calls it on every settings change; the API calls
    /// it after an update, so its answer already reflects the change.
    pub fn catch_up(&self, store: &SettingsStore) {
        let _write = lock(&self.inner.write_lock);
        // Read under the lock: two callers can never adopt out of order.
        let latest = store.get();
        if latest.same_calendar_as(&lock(&self.inner.wanted)) {
            self.retry_vault();
        } else {
            self.adopt(&latest);
        }
    }

    /// Tries an unavailable vault again; changes nothing (not even the cache
    /// generation) while the problem stays the same. Callers hold `write_lock`.
    fn retry_vault(&self) {
        let previous = self.vault_status();
        if previous.is_available() {
            return;
        }
        let wanted = lock(&self.inner.wanted).clone();
        let prepared = prepare(&wanted, &previous);
        if prepared.2 != previous {
            self.install(&wanted, prepared, previous);
        }
    }

    /// Callers hold `write_lock`.
    fn adopt(&self, settings: &Settings) {
        *lock(&self.inner.wanted) = settings.clone();
        let previous = self.vault_status();
        let prepared = prepare(settings, &previous);
        self.install(settings, prepared, previous);
    }

    /// Puts a prepared vault and sources in place and rescans. Callers hold
    /// `write_lock`.
    fn install(
        &self,
        settings: &Settings,
        (vault, configs, status): (Vault, Vec<SourceConfig>, VaultStatus),
        previous: VaultStatus,
    ) {
        log_transition(&previous, &status);
        let usable = status.is_available();
        let rewatch = {
            let mut state = self.inner.write();
            let rewatch = state.vault != vault || previous.is_available() != usable;
            let mut cache = Cache::new(configs, display_tz(settings));
            let same_tz = cache.display_tz == state.cache.display_tz;
            for source in cache.sources.iter_mut() {
                if let Some(old) = state.cache.source(&source.config.id)
                    && old.config == source.config
                    && same_tz
                    && matches!(source.config.kind, SourceType::Ical { .. })
                {
                    source.notes = old.notes.clone();
                    source.feed = old.feed.clone();
                }
            }
            state.vault = vault;
            state.cache = cache;
            state.vault_status = status;
            rewatch
        };
        if rewatch {
            *lock(&self.inner.watcher) = None;
            if usable {
                self.inner.start_watcher();
            }
        }
        self.inner.rescan_notes();
        self.inner.load_cached_feeds();
        self.revalidate(false);
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
