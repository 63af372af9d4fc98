//! Every event of one calendar, unexpanded: what a CalDAV collection or a
//! subscription feed lists (a series is one event, as written); or its
//! cached entries themselves, for a listing kept from one change to the
//! next (the CalDAV server's).

use std::sync::Arc;

use chrono_tz::Tz;

use super::cache::{Ceiling, Indexed};
use super::engine::Calendar;
use super::error::CalendarError;
use super::event::Event;
use super::query::{EventQuery, validate_range};
use super::sources::SourceConfig;

impl Calendar {
    /// The work of [`Calendar::source_events`].
    pub(super) fn listed_events(&self, id: &str) -> Option<Vec<Event>> {
        let state = self.inner.read();
        let source = state.cache.source(id)?;
        let mut events: Vec<Event> = source
            .notes
            .iter()
            .flat_map(|(path, entries)| entries.iter().map(|e| e.event(&source.config, path)))
            .collect();
        events.sort_by(|a, b| a.id.cmp(&b.id));
        Some(events)
    }
}

/// One cached entry of a source, as [`Calendar::with_source_entries`]
/// hands it out.
pub(crate) struct SourceEntry<'a> {
    /// Its note (`""` for a feed's or CalDAV calendar's resources).
    pub path: &'a str,
    entry: &'a Arc<Indexed>,
}

impl SourceEntry<'_> {
    /// Where the entry is: while it is held ([`SourceEntry::hold`]), no
    /// other entry is there (see [`HeldEntry`]).
    pub fn address(&self) -> usize {
        Arc::as_ptr(self.entry) as usize
    }

    pub fn hold(&self) -> HeldEntry {
        HeldEntry(self.entry.clone())
    }
}

/// An entry held past the read of the cache. The cache's entries never
/// change: a note re-read gets new ones, and the entries of an unchanged
/// note are shared from one generation of the cache to the next. So while
/// an entry is held, its address names it alone, and a later generation's
/// entry at that address is that same entry, unchanged.
#[derive(Debug, Clone)]
pub(crate) struct HeldEntry(pub(super) Arc<Indexed>);

impl HeldEntry {
    /// See [`SourceEntry::address`].
    pub fn address(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Its event (a series unexpanded), in calendar `source`, note `path`.
    pub fn event(&self, source: &SourceConfig, path: &str) -> Event {
        self.0.event(source, path)
    }
}

/// An entry a query matched, with its note (see
/// [`Calendar::query_entries`]).
pub(crate) struct MatchedEntry {
    pub entry: HeldEntry,
    pub path: Arc<str>,
}

impl MatchedEntry {
    pub fn address(&self) -> usize {
        self.entry.address()
    }
}

impl Calendar {
    /// The entries [`Calendar::query_checked`]'s events come from, each
    /// once (a series for all its occurrences), with the same checks, and
    /// without building an event: what a reader that wants the entries
    /// rather than the occurrences asks (the CalDAV server's
    /// `calendar-query`, which answers with whole resources).
    pub(crate) fn query_entries(
        &self,
        query: &EventQuery,
    ) -> Result<Vec<MatchedEntry>, CalendarError> {
        validate_range(query)?;
        let now = chrono::Utc::now().timestamp_millis();
        Ok(self
            .inner
            .read()
            .cache
            .matched_entries(query, now, Ceiling::PerAnswer)?)
    }

    /// Calls `visit` with calendar `id`'s configuration, the display zone
    /// and each of its cached entries, all as of one read of the cache (in
    /// no particular order); `None` if there is no such calendar. What a
    /// listing that is made again after every change visits to find what
    /// it already has.
    pub(crate) fn with_source_entries<R>(
        &self,
        id: &str,
        visit: impl FnOnce(&SourceConfig, Tz, &mut dyn Iterator<Item = SourceEntry<'_>>) -> R,
    ) -> Option<R> {
        let state = self.inner.read();
        let source = state.cache.source(id)?;
        let mut entries = source.notes.iter().flat_map(|(path, entries)| {
            entries.iter().map(move |entry| SourceEntry {
                path: path.as_str(),
                entry,
            })
        });
        Some(visit(&source.config, state.cache.display_tz, &mut entries))
    }
}
