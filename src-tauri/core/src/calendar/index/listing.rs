//! Every event of one calendar, unexpanded: what a CalDAV collection or a
//! subscription feed lists (a series is one event, as written); or its
//! cached entries themselves, for a listing kept from one change to the
//! next (the CalDAV server's).

use std::collections::HashMap;
use std::sync::Arc;

use chrono_tz::Tz;

use super::cache::{Ceiling, Indexed};
use crate::calendar::engine::Calendar;
use crate::calendar::sources::SourceConfig;
use almanac_model::error::CalendarError;
use almanac_model::event::Event;
use almanac_model::query::{EventQuery, validate_range};

impl Calendar {
    /// The work of [`Calendar::source_events`].
    pub(in crate::calendar) fn listed_events(&self, id: &str) -> Option<Vec<Event>> {
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

/// An entry held past the read of the cache. The cache's entries never
/// change: a note re-read gets new ones, and the entries of an unchanged
/// note are shared from one generation of the cache to the next. So while
/// an entry is held, its address names it alone, and a later generation's
/// entry at that address is that same entry, unchanged.
#[derive(Debug, Clone)]
pub(crate) struct HeldEntry(pub(in crate::calendar) Arc<Indexed>);

impl HeldEntry {
    /// Where the entry is: while it is held, no other entry is there.
    pub fn address(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Its event (a series unexpanded), in calendar `source`, note `path`.
    pub fn event(&self, source: &SourceConfig, path: &str) -> Event {
        self.0.event(source, path)
    }
}

/// What a reader works out per cached entry of one calendar (see
/// [`Calendar::remember_entries`]), kept from one generation of the cache
/// to the next, so that after a change only new entries are worked out:
/// the entries of unchanged notes are the same entries (see
/// [`HeldEntry`]).
#[derive(Debug)]
pub(crate) struct EntryMemo<T> {
    source: SourceConfig,
    display_tz: Tz,
    /// Entry address → the entry, held, and its value.
    entries: HashMap<usize, Remembered<T>>,
}

#[derive(Debug, Clone)]
pub(crate) struct Remembered<T> {
    pub entry: HeldEntry,
    /// Its note (`""` for a feed's or CalDAV calendar's resources).
    pub path: Arc<str>,
    pub value: T,
}

impl<T> EntryMemo<T> {
    /// Whether this memo was made from `before`: the same calendar
    /// configuration and display zone, so an entry at the same address is
    /// the same.
    pub fn continues(&self, before: &EntryMemo<T>) -> bool {
        before.reads(&self.source, self.display_tz)
    }

    /// Whether this memo's entries are events of `source` in `display_tz`.
    fn reads(&self, source: &SourceConfig, display_tz: Tz) -> bool {
        self.source == *source && self.display_tz == display_tz
    }

    /// The calendar's configuration, as remembered.
    pub fn source(&self) -> &SourceConfig {
        &self.source
    }

    pub fn display_tz(&self) -> Tz {
        self.display_tz
    }

    pub fn get(&self, address: usize) -> Option<&Remembered<T>> {
        self.entries.get(&address)
    }

    /// Every entry, by address (in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Remembered<T>)> {
        self.entries.iter().map(|(address, r)| (*address, r))
    }

    /// The event of `remembered`, an entry of this memo.
    pub fn event(&self, remembered: &Remembered<T>) -> Event {
        remembered.entry.event(&self.source, &remembered.path)
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

    /// Calendar `id`'s cached entries, each with a value: carried over
    /// from `before` (the memo of an earlier generation) for an entry it
    /// holds, else `work_out` of the entry's event; all as of one read of
    /// the cache. Nothing is carried over if the calendar's configuration
    /// or the display zone changed, as both are part of an event. `None`
    /// if there is no such calendar.
    pub(crate) fn remember_entries<T: Clone>(
        &self,
        id: &str,
        before: Option<&EntryMemo<T>>,
        mut work_out: impl FnMut(&Event) -> T,
    ) -> Option<EntryMemo<T>> {
        let state = self.inner.read();
        let source = state.cache.source(id)?;
        let display_tz = state.cache.display_tz;
        let before = before.filter(|b| b.reads(&source.config, display_tz));
        let mut entries = HashMap::with_capacity(before.map_or(0, |b| b.entries.len()));
        for (path, note) in &source.notes {
            for entry in note {
                let address = Arc::as_ptr(entry) as usize;
                let known = before
                    .and_then(|b| b.entries.get(&address))
                    .filter(|known| *known.path == **path);
                let remembered = match known {
                    Some(known) => known.clone(),
                    None => Remembered {
                        value: work_out(&entry.event(&source.config, path)),
                        entry: HeldEntry(entry.clone()),
                        path: path.as_str().into(),
                    },
                };
                entries.insert(address, remembered);
            }
        }
        Some(EntryMemo {
            source: source.config.clone(),
            display_tz,
            entries,
        })
    }
}
