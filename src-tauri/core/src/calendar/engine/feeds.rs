//! The ICS feed lifecycle: cached copies loaded at start, then fetched
//! again (conditionally: ETag / Last-Modified) when asked and every
//! [`ICS_MIN_INTERVAL`]. CalDAV calendars ride the same worker
//! (`caldav_source`).
//!
//! Fetches are slow and must not overlap, and a burst of requests (a settings
//! change, `POST /providers/revalidate`, the UI) should cost one more fetch,
//! not one each. So each engine has one worker thread fed by a coalescing
//! request slot: a request made while a fetch runs is folded into the one
//! pending run after it (a forced request wins). The worker holds the engine
//! weakly and ends when the engine is dropped.

use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use crate::calendar::engine::{Calendar, Inner, lock};
use crate::calendar::sources::{SourceConfig, ical};
use crate::ics::bounds::Limits;
use crate::kinds::Origin;

/// A feed fetched less than this long ago is not fetched again unless forced.
pub const ICS_MIN_INTERVAL: Duration = Duration::from_secs(5 * 60);

/// The request slot between the engine and its feed worker.
#[derive(Debug, Default, PartialEq)]
struct Pending {
    /// A run is asked for, and `force`s it.
    requested: Option<bool>,
    /// The engine is gone: the worker ends.
    closed: bool,
}

impl Pending {
    /// Adds a request to the pending one, if any (forced wins).
    fn request(&mut self, force: bool) {
        self.requested = Some(self.requested.unwrap_or(false) || force);
    }
}

#[derive(Default)]
struct Slot {
    pending: Mutex<Pending>,
    wake: Condvar,
}

/// The engine's handle on its feed worker. Dropping it (with the engine)
/// ends the worker once its current fetch, if any, is done.
pub(crate) struct FeedWorker {
    slot: Arc<Slot>,
}

impl FeedWorker {
    /// Starts the worker for `engine`.
    pub(in crate::calendar) fn start(engine: Weak<Inner>) -> FeedWorker {
        let slot = Arc::new(Slot::default());
        let worker = slot.clone();
        let spawned = std::thread::Builder::new()
            .name("almanac-ics-refresh".into())
            .spawn(move || {
                while let Some(force) = next_request(&worker) {
                    let Some(engine) = engine.upgrade() else {
                        return;
                    };
                    engine.revalidate_feeds(force);
                }
            });
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot start the calendar feed refresh");
        }
        FeedWorker { slot }
    }

    /// Asks for a run; returns at once.
    pub(in crate::calendar) fn request(&self, force: bool) {
        lock(&self.slot.pending).request(force);
        self.slot.wake.notify_one();
    }
}

impl Drop for FeedWorker {
    fn drop(&mut self) {
        lock(&self.slot.pending).closed = true;
        self.slot.wake.notify_one();
    }
}

/// Waits for the next request and takes it (`Some(force)`); `None` once the
/// engine is gone.
fn next_request(slot: &Slot) -> Option<bool> {
    let mut pending = lock(&slot.pending);
    loop {
        if pending.closed {
            return None;
        }
        if let Some(force) = pending.requested.take() {
            return Some(force);
        }
        let (next, waited) = slot
            .wake
            .wait_timeout(pending, ICS_MIN_INTERVAL)
            .unwrap_or_else(|p| p.into_inner());
        pending = next;
        // Nothing asked for a whole interval: the scheduled run.
        if waited.timed_out() && !pending.closed {
            return Some(false);
        }
    }
}

impl Inner {
    /// Loads the on-disk copies of the ICS feeds and CalDAV calendars into
    /// the cache, and what the sources of shipped data read.
    pub(in crate::calendar) fn load_cached_feeds(&self) {
        let tz = self.read().cache.display_tz;
        let configs = self.read().cache.configs();
        for (index, source) in configs.iter().enumerate() {
            if let Some(read) = source.read_shipped(tz) {
                self.apply_feed(index, source, read.map(Some), None);
            }
        }
        let feeds: Vec<(usize, SourceConfig)> = self.feed_sources();
        for (index, source) in feeds {
            match source.kind.kind().origin() {
                Origin::Feed => {
                    let Some((url, _)) = source.kind.feed() else {
                        continue;
                    };
                    // See `fetch_feed`: copy and cache move together.
                    let _copies = lock(&self.feed_copies);
                    if let Some((body, meta)) = self.feeds.load(&source.id, url) {
                        let parsed = ical::parse(&source, &body, tz, &Limits::FEED).map(Some);
                        self.apply_feed(index, &source, parsed, Some(&meta));
                    }
                }
                Origin::Server => self.load_caldav_mirror(index, &source),
                // Read from the vault by the scan, or shipped: not by the
                // feed worker.
                Origin::Notes | Origin::Shipped => {}
            }
        }
    }

    /// The ICS and CalDAV sources, with their index.
    fn feed_sources(&self) -> Vec<(usize, SourceConfig)> {
        let configs = self.read().cache.configs();
        configs
            .into_iter()
            .enumerate()
            .filter(|(_, s)| s.kind.kind().refreshed())
            .collect()
    }

    /// Puts a feed's outcome into the cache: new events (`Ok(Some)`), still
    /// the same (`Ok(None)`), or an error that keeps the old events.
    fn apply_feed(
        &self,
        index: usize,
        source: &SourceConfig,
        parsed: Result<Option<ical::Parsed>, String>,
        meta: Option<&ical::FeedMeta>,
    ) {
        let mut state = self.write();
        // The sources may have been reconfigured while the feed was fetched.
        if state.cache.config(index) != Some(source) {
            return;
        }
        let fetched =
            meta.and_then(|m| chrono::DateTime::from_timestamp_millis(m.fetched_at_millis));
        match parsed {
            Ok(parsed) => {
                if let Some(parsed) = parsed {
                    // The rest of the feed shows; the status names what
                    // did not, until a body reads whole.
                    let set_aside = set_aside_status(&parsed.set_aside);
                    if let Some(status) = &set_aside {
                        tracing::warn!(source = %source.id, error = %status, "calendar feed items set aside");
                    }
                    state.cache.put_note(index, "", parsed.note);
                    state.cache.feed_set_aside(index, set_aside);
                }
                state
                    .cache
                    .feed_fetched(index, fetched.map(|t| t.to_rfc3339()));
            }
            Err(error) => {
                tracing::warn!(source = %source.id, %error, "calendar feed not updated");
                state.cache.feed_failed(index, error);
            }
        }
        drop(state);
        self.bump();
    }

    /// Fetches every feed that is due (all with `force`).
    fn revalidate_feeds(&self, force: bool) {
        for (index, source) in self.feed_sources() {
            match source.kind.kind().origin() {
                Origin::Feed => {
                    if let Some((url, allow_private_network)) = source.kind.feed() {
                        self.fetch_feed(index, &source, url, allow_private_network, force);
                    }
                }
                Origin::Server => self.sync_caldav(index, &source, force),
                // Read from the vault by the scan, or shipped: not by the
                // feed worker.
                Origin::Notes | Origin::Shipped => {}
            }
        }
    }

    /// Fetches ICS feed `source` (at `url`) when due, and puts what it
    /// read into the copy on disk and the cache.
    fn fetch_feed(
        &self,
        index: usize,
        source: &SourceConfig,
        url: &str,
        allow_private_network: bool,
        force: bool,
    ) {
        let previous = self.feeds.load(&source.id, url).map(|(_, meta)| meta);
        let now = chrono::Utc::now().timestamp_millis();
        let fresh = previous
            .as_ref()
            .is_some_and(|m| now - m.fetched_at_millis < ICS_MIN_INTERVAL.as_millis() as i64);
        if fresh && !force {
            return;
        }
        let _syncing = Syncing::start(self, &source.id);
        let fetched = ical::fetch(url, previous.as_ref(), allow_private_network);
        // The settings may have changed while the server answered. Asked
        // under the copies' lock, which loading the copies for a new
        // configuration (`load_cached_feeds`) takes too: the answer goes into
        // the copy and the cache together, or into neither. A copy moved on
        // alone would make the next fetch "not modified" against it, and the
        // cache would never show the change.
        let _copies = lock(&self.feed_copies);
        // Still the same feed: the same URL, perhaps renamed or recoloured.
        let Some((index, source, tz)) =
            self.now_reading(index, source, |current| current.kind == source.kind)
        else {
            // Gone, or now another feed: the new configuration was adopted
            // with a fetch of its own asked for.
            tracing::debug!(source = %source.id, "a calendar feed answered for a source since reconfigured; dropped");
            return;
        };
        let (parsed, meta) = match fetched {
            Ok(ical::Fetched::NotModified) => {
                let meta = ical::FeedMeta {
                    fetched_at_millis: now,
                    ..previous.unwrap_or_else(|| ical::meta_for(url, None, None))
                };
                self.store_feed(&source.id, None, &meta);
                (Ok(None), Some(meta))
            }
            Ok(ical::Fetched::Body {
                text,
                etag,
                last_modified,
            }) => {
                // Only a body that reads is kept on disk, to be
                // loaded at the next start.
                let meta = ical::meta_for(url, etag, last_modified);
                match ical::parse(&source, &text, tz, &Limits::FEED) {
                    Ok(parsed) => {
                        self.store_feed(&source.id, Some(&text), &meta);
                        (Ok(Some(parsed)), Some(meta))
                    }
                    Err(e) => (Err(e), None),
                }
            }
            Err(e) => (Err(e), None),
        };
        self.apply_feed(index, &source, parsed, meta.as_ref());
    }

    /// Where the cache now has source `was` (last seen at `index`; sources
    /// may have moved since), its configuration and the display zone, if
    /// `still` says that configuration reads what `was` read. `None` when
    /// the source is gone or reads something else.
    pub(in crate::calendar) fn now_reading(
        &self,
        index: usize,
        was: &SourceConfig,
        still: impl FnOnce(&SourceConfig) -> bool,
    ) -> Option<(usize, SourceConfig, chrono_tz::Tz)> {
        let state = self.read();
        let cache = &state.cache;
        let index = match cache.config(index) {
            Some(current) if current.id == was.id => index,
            _ => cache.source_index(&was.id)?,
        };
        let current = cache.config(index)?;
        still(current).then(|| (index, current.clone(), cache.display_tz))
    }

    fn store_feed(&self, source_id: &str, body: Option<&str>, meta: &ical::FeedMeta) {
        if let Err(error) = self.feeds.store(source_id, body, meta) {
            tracing::warn!(source = %source_id, %error, "could not cache calendar feed on disk");
        }
    }
}

/// A feed or CalDAV calendar marked as being fetched or synced while this
/// lives: the mark and its removal each announce a change, so the calendar
/// list shows "syncing" for as long as the server takes.
pub(in crate::calendar) struct Syncing<'a> {
    engine: &'a Inner,
    id: String,
}

impl<'a> Syncing<'a> {
    pub(in crate::calendar) fn start(engine: &'a Inner, id: &str) -> Syncing<'a> {
        lock(&engine.syncing).insert(id.to_string());
        engine.bump();
        Syncing {
            engine,
            id: id.to_string(),
        }
    }
}

impl Drop for Syncing<'_> {
    fn drop(&mut self) {
        lock(&self.engine.syncing).remove(&self.id);
        self.engine.bump();
    }
}

impl Calendar {
    /// The work of [`Calendar::revalidate`].
    pub(in crate::calendar) fn request_revalidation(&self, force: bool) {
        if self.inner.feed_sources().is_empty() {
            return;
        }
        self.inner.feed_worker.request(force);
    }
}

/// The status of a feed some items of which were set aside (the first few
/// named, so the status stays short).
fn set_aside_status(set_aside: &[String]) -> Option<String> {
    const NAMED: usize = 5;
    if set_aside.is_empty() {
        return None;
    }
    let mut named = set_aside[..set_aside.len().min(NAMED)].join("; ");
    if set_aside.len() > NAMED {
        named.push_str(&format!("; and {} more", set_aside.len() - NAMED));
    }
    Some(format!(
        "{} item(s) of the feed are not valid iCalendar and are not shown: {named}",
        set_aside.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_made_during_a_run_fold_into_one_more_forced_if_any_was() {
        let slot = Slot::default();
        lock(&slot.pending).request(false);
        assert_eq!(next_request(&slot), Some(false));
        // A run is under way: three requests arrive.
        for force in [false, true, false] {
            lock(&slot.pending).request(force);
        }
        assert_eq!(next_request(&slot), Some(true));
        assert_eq!(*lock(&slot.pending), Pending::default());
    }

    #[test]
    fn the_worker_ends_when_closed_even_with_a_request_pending() {
        let slot = Slot::default();
        let mut pending = lock(&slot.pending);
        pending.request(true);
        pending.closed = true;
        drop(pending);
        assert_eq!(next_request(&slot), None);
    }
}
