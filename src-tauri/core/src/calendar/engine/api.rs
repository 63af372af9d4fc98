//! [`Calendar`]'s public API, every method in one file. Reads are answered
//! here, from the cache; everything else is handed to the module that does
//! the work: `dispatch` (writes, routed by source kind), `detach` (one
//! occurrence of a note series), `adopt` and `follow` (settings), `feeds`
//! (refetching feeds and CalDAV calendars), `listing` (a calendar
//! unexpanded) and `note_occurrences` (for vault reminders).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use chrono::NaiveDate;
use chrono_tz::Tz;
use tokio::sync::watch;

use super::source_info::SourceInfo;
use crate::calendar::engine::{Calendar, WeakCalendar, lock};
use crate::calendar::index::cache::Ceiling;
use crate::calendar::index::note_occurrences::{NoteOccurrences, Notes};
use crate::calendar::write::notes::TakenName;
use crate::events::EventBus;
use crate::paths::Paths;
use crate::settings::{Settings, SettingsStore};
use almanac_model::error::CalendarError;
use almanac_model::event::{Event, EventDetails, EventType, FileRef, Location};
use almanac_model::fields::EventFields;
use almanac_model::id::EventId;
use almanac_model::query::{EventMembers, EventQuery, JsonAnswer, QueryAnswer};
use almanac_model::status::{CacheStats, VaultStatus};

impl WeakCalendar {
    /// The engine, while a [`Calendar`] holds it.
    pub fn upgrade(&self) -> Option<Calendar> {
        self.0.upgrade().map(|inner| Calendar { inner })
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
    /// [`almanac_model::query`]). Clients go through [`Calendar::query_checked`].
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
    /// [`MAX_EVENTS_PER_ANSWER`]: almanac_model::query::MAX_EVENTS_PER_ANSWER
    /// [`MAX_EXPANSION_STEPS`]: almanac_model::query::MAX_EXPANSION_STEPS
    pub fn query_checked(&self, query: &EventQuery) -> Result<Vec<Event>, CalendarError> {
        Ok(self.query_answer(query)?.events)
    }

    /// [`Calendar::query_checked`] with the series it left out (see
    /// [`almanac_model::query`]).
    pub fn query_answer(&self, query: &EventQuery) -> Result<QueryAnswer, CalendarError> {
        almanac_model::query::validate_range(query)?;
        let now = chrono::Utc::now().timestamp_millis();
        let (events, left_out) = self
            .inner
            .read()
            .cache
            .query(query, now, Ceiling::PerAnswer)?;
        Ok(QueryAnswer { events, left_out })
    }

    /// [`Calendar::query_answer`] with the events serialized (as JSON), from
    /// bytes kept per cached event: what a server sends.
    pub fn query_json(&self, query: &EventQuery) -> Result<JsonAnswer, CalendarError> {
        self.query_json_with(query, &|_, _, _| {})
    }

    /// [`Calendar::query_json`] with `members` written into each event
    /// object (the times REST adds, `crate::api::event_times`).
    pub fn query_json_with(
        &self,
        query: &EventQuery,
        members: EventMembers,
    ) -> Result<JsonAnswer, CalendarError> {
        almanac_model::query::validate_range(query)?;
        let now = chrono::Utc::now().timestamp_millis();
        Ok(self
            .inner
            .read()
            .cache
            .query_json_with(query, now, Ceiling::PerAnswer, members)?)
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
        let syncing = lock(&self.inner.syncing).clone();
        let state = self.inner.read();
        state
            .cache
            .sources
            .iter()
            .map(|source| {
                let config = &source.config;
                SourceInfo {
                    id: config.id.clone(),
                    name: config.name.clone(),
                    color: config.color.clone(),
                    kind: config.kind.kind(),
                    directory: config.kind.listed_folder().map(str::to_string),
                    heading: config.kind.heading().map(str::to_string),
                    url: config.kind.address().map(str::to_string),
                    editable: !config.kind.kind().read_only(),
                    event_count: source.notes.values().map(Vec::len).sum(),
                    last_fetched: source.feed.last_fetched.clone(),
                    syncing: syncing.contains(&config.id),
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
    /// (see [`parse_range_bound`](crate::calendar::parse_range_bound)).
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

    /// Creates an event in calendar `calendar_id` and returns it as cached.
    /// Full Note calendars get a new note `YYYY-MM-DD Title.md` (an existing
    /// one is never replaced: [`CalendarError::Conflict`]); daily-note
    /// calendars get a new item under the heading of that day's note.
    pub fn create(&self, calendar_id: &str, fields: EventFields) -> Result<Event, CalendarError> {
        self.create_named(calendar_id, fields, TakenName::Refuse)
    }

    /// [`Calendar::create`], with a Full Note calendar's note numbered when
    /// its name is taken (as for a CalDAV client, which cannot choose it).
    pub fn create_named(
        &self,
        calendar_id: &str,
        fields: EventFields,
        taken: TakenName,
    ) -> Result<Event, CalendarError> {
        self.create_with_name(calendar_id, fields, taken)
    }

    /// Applies `fields` (a merge patch, see [`EventFields`]) to the event `id`
    /// and returns the updated event. Its id changes when the note is renamed
    /// (new date or title) or a daily-note item moves to another day.
    pub fn update(&self, id: &str, fields: EventFields) -> Result<Event, CalendarError> {
        self.update_event(id, fields)
    }

    /// Applies `fields` to the occurrence on `date` of series `id` only, and
    /// returns that occurrence as an event of its own. A CalDAV series gets a
    /// modified occurrence (`RECURRENCE-ID`) in its resource; a Full Note
    /// series, which cannot hold one, gets the occurrence detached into a
    /// note of its own and skips that day (see `detach`).
    pub fn update_occurrence(
        &self,
        id: &str,
        date: NaiveDate,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        self.update_one_occurrence(id, date, fields)
    }

    /// Moves the event `id` to calendar `calendar_id` with `fields` applied
    /// (a plain [`update`](Self::update) when it is already there), and
    /// returns it. Full Note events move with their note (its own keys and
    /// body kept); daily-note items move as items; to or from a CalDAV
    /// calendar, the event is made there and removed here
    /// (`move_across`). What the target cannot hold is
    /// refused, naming `calendarId`: a read-only calendar, or what the
    /// target could not keep (a note's text in an item or a CalDAV event).
    pub fn move_to(
        &self,
        id: &str,
        calendar_id: &str,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        self.move_event(id, calendar_id, fields)
    }

    /// Deletes the event `id`. With `instance_date`, only that occurrence of a
    /// series is suppressed (added to the series' `skipDates`).
    pub fn delete(&self, id: &str, instance_date: Option<NaiveDate>) -> Result<(), CalendarError> {
        self.delete_event(id, instance_date)
    }

    /// Adopts changed settings (vault path, sources, display time zone):
    /// rebuilds the cache from a full rescan, keeps the cached events of
    /// ICS and CalDAV sources still reading the same calendar
    /// ([`SourceConfig::reads_same_feed_as`](crate::calendar::sources::SourceConfig::reads_same_feed_as)),
    /// and moves the watcher when the vault moved. A
    /// vault that cannot be used becomes the [`Calendar::vault_status`].
    pub fn apply_settings(&self, settings: &Settings) {
        self.adopt_settings(settings)
    }

    /// Adopts `store`'s current settings if the engine would read them
    /// differently (vault, sources, zone) from the ones it uses; otherwise,
    /// while the vault is unavailable, tries it again. Returns when done.
    /// [`Calendar::follow`] calls it on every settings change; the API calls
    /// it after an update, so its answer already reflects the change.
    pub fn catch_up(&self, store: &SettingsStore) {
        self.catch_up_with(store)
    }

    /// Whether the Full Note series `id` has an occurrence on `date` that
    /// [`Calendar::update_occurrence`] may detach: checked before a write of
    /// several parts, so a bad date changes nothing.
    pub fn check_occurrence(&self, id: &str, date: NaiveDate) -> Result<(), CalendarError> {
        self.check_detachable(id, date)
    }

    /// Whether the occurrence on `date` of the Full Note series `id` may be
    /// cancelled ([`Calendar::delete`] with that date): refused (409) when
    /// the note detached for it holds text of its own. Checked before a
    /// write of several parts, so a refusal changes nothing.
    pub fn check_cancellable(&self, id: &str, date: NaiveDate) -> Result<(), CalendarError> {
        self.check_cancellable_occurrence(id, date)
    }

    /// The note of its own the `date` occurrence of series `id` has (it was
    /// edited on its own), vault-relative: deleting the occurrence deletes
    /// it too, so a question before the delete names it. `None` when there
    /// is none (or no such series).
    pub fn detached_note(&self, id: &str, date: NaiveDate) -> Option<String> {
        self.detached_note_of(id, date)
    }

    /// The history of every change written to the vault
    /// ([`crate::history`]).
    pub fn history(&self) -> &crate::history::History {
        &self.inner.history
    }

    /// Puts each of `files` back as an undo of change `undoes` does
    /// ([`crate::history::undo`]): through the write path, recorded as a
    /// change of its own (its id returned; `None` when nothing was
    /// written). Refused ([`CalendarError::Conflict`], naming the note)
    /// when a file no longer holds what it is expected to.
    pub fn restore(
        &self,
        files: &[crate::history::RestoreFile],
        undoes: u64,
    ) -> Result<Option<u64>, CalendarError> {
        self.restore_files(files, undoes)
    }

    /// Moves the note `rel` (vault-relative) to the vault's `.trash/`
    /// folder, as Obsidian deletes: through the write path, recorded, and
    /// undoable. Its path there.
    pub fn trash_note(&self, rel: &str) -> Result<String, CalendarError> {
        self.trash_file(rel)
    }

    /// Starts a background refetch of the ICS sources and returns at once.
    /// Without `force`, a feed fetched less than `ICS_MIN_INTERVAL` (five
    /// minutes) ago is left alone; with it, every feed is asked
    /// (conditionally: ETag / Last-Modified). Requests made while one runs
    /// are folded into one more run after it.
    pub fn revalidate(&self, force: bool) {
        self.request_revalidation(force)
    }

    /// Follows `store` from now on, on a thread of its own: a change of the
    /// vault, the sources or the display zone is adopted (see
    /// [`Calendar::catch_up`]), and while the vault is unavailable it is tried
    /// again every `VAULT_RETRY` (two seconds). The thread ends when the
    /// store or the engine is dropped.
    pub fn follow(&self, store: &Arc<SettingsStore>) {
        self.follow_store(store)
    }

    /// The events of calendar `id` (series unexpanded), sorted by id; `None`
    /// when there is no such calendar. Reads the cache only.
    pub fn source_events(&self, id: &str) -> Option<Vec<Event>> {
        self.listed_events(id)
    }

    /// The occurrences starting in `from_millis..=until_millis` of `notes`
    /// (see [`Notes`]), read from the cache under one lock, so the cursor
    /// matches what was read.
    pub fn note_occurrences(
        &self,
        notes: Notes,
        from_millis: i64,
        until_millis: i64,
    ) -> NoteOccurrences {
        self.occurrences_in_notes(notes, from_millis, until_millis)
    }
}
