//! [`Calendar`]: the shared handle to the engine.

use std::sync::Arc;

use chrono::NaiveDate;
use tokio::sync::watch;

use super::error::CalendarError;
use super::event::{Event, EventDetails};
use super::fields::EventFields;
use super::query::EventQuery;
use super::status::{CacheStats, SourceInfo};
use crate::paths::Paths;
use crate::settings::Settings;

/// The calendar engine. Cheap to clone (an `Arc` inside); every clone is the
/// same engine. Send + Sync: share it between the REST server, the UI and the
/// in-process API.
#[derive(Clone)]
pub struct Calendar {
    inner: Arc<Inner>,
}

struct Inner {
    changes: watch::Sender<u64>,
}

impl Calendar {
    /// Opens the vault of `settings`: creates the vault folder and the folders
    /// of its note sources when missing, indexes every note (in parallel),
    /// loads cached ICS feeds from `paths.ical_cache_dir()` and starts their
    /// background refresh, and starts the file watcher.
    pub fn open(settings: &Settings, paths: &Paths) -> Result<Calendar, CalendarError> {
        let _ = (settings, paths);
        todo!()
    }

    /// The events matching `query`, series expanded into occurrences, sorted
    /// by start. Reads the cache only. A range with `start > end` matches
    /// nothing (use [`Calendar::query_checked`] to get an error instead).
    pub fn query(&self, query: &EventQuery) -> Vec<Event> {
        let _ = query;
        todo!()
    }

    /// Like [`Calendar::query`], but refuses a range whose end is before its
    /// start with [`CalendarError::InvalidInput`].
    pub fn query_checked(&self, query: &EventQuery) -> Result<Vec<Event>, CalendarError> {
        super::query::validate_range(query)?;
        Ok(self.query(query))
    }

    /// The event with this id, with the note and line it is written on.
    pub fn details(&self, id: &str) -> Result<EventDetails, CalendarError> {
        let _ = id;
        todo!()
    }

    /// Creates an event in calendar `calendar_id` and returns it as cached.
    pub fn create(&self, calendar_id: &str, fields: EventFields) -> Result<Event, CalendarError> {
        let _ = (calendar_id, fields);
        todo!()
    }

    /// Applies `fields` (a merge patch, see [`EventFields`]) to the event `id`
    /// and returns the updated event. Its id changes when the note is renamed
    /// (new date or title) or a daily-note item moves to another day.
    pub fn update(&self, id: &str, fields: EventFields) -> Result<Event, CalendarError> {
        let _ = (id, fields);
        todo!()
    }

    /// Deletes the event `id`. With `instance_date`, only that occurrence of a
    /// series is suppressed (added to the series' `skipDates`).
    pub fn delete(&self, id: &str, instance_date: Option<NaiveDate>) -> Result<(), CalendarError> {
        let _ = (id, instance_date);
        todo!()
    }

    /// The configured sources, in settings order.
    pub fn sources(&self) -> Vec<SourceInfo> {
        todo!()
    }

    /// Cache statistics.
    pub fn stats(&self) -> CacheStats {
        todo!()
    }

    /// Starts a background refetch of the ICS sources and returns at once.
    /// Without `force`, a feed fetched less than the minimum interval ago is
    /// left alone; with it, every feed is asked (conditionally: ETag /
    /// Last-Modified).
    pub fn revalidate(&self, force: bool) {
        let _ = force;
        todo!()
    }

    /// Adopts changed settings (vault path, sources, display time zone):
    /// rescans the vault and restarts the watcher when the vault moved.
    pub fn apply_settings(&self, settings: &Settings) -> Result<(), CalendarError> {
        let _ = settings;
        todo!()
    }

    /// A receiver of the cache generation: it changes whenever the cached
    /// events change (own writes, external edits, ICS refreshes, rescans).
    /// Await `changed()` / `wait_for(..)` instead of polling.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// The display time zone, for parsing REST range bounds
    /// (see [`parse_range_bound`](super::parse_range_bound)).
    pub fn display_timezone(&self) -> chrono_tz::Tz {
        todo!()
    }
}
