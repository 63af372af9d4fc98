//! The in-memory index every read is served from.
//!
//! Per source, a map from note path to the events read from that note (ICS
//! feeds use one entry keyed by the empty path). Replacing a note's entry is
//! the only mutation, so a scan, a watcher event and an own write all update
//! the cache the same way.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::NaiveDate;
use chrono_tz::Tz;

use super::event_json::{self, JsonCell};
use super::journal::Journal;
use super::occurrence_index::OccurrenceIndex;
use crate::calendar::sources::NoteCalendar;
use crate::calendar::sources::{ParsedNote, SourceConfig};
use almanac_model::event::Event;
use almanac_model::series::memo::YearMemo;
use almanac_model::series::recurrence::{Occurrence, Timing};
use almanac_model::spec::{EventSpec, format_date, format_time};
use almanac_model::status::{CacheStats, RECENT_SKIPS, SeriesLeftOut, SkippedNote};

/// One cached event (a series counts once), kept compact: the client-facing
/// [`Event`] is built only for results.
#[derive(Debug, Clone)]
pub struct Indexed {
    pub id: Box<str>,
    pub spec: EventSpec,
    pub timing: Timing,
    /// Lower-cased title and note contents, for text search.
    pub haystack: Box<str>,
    /// 0-based line of the event in its note.
    pub line_number: usize,
    /// Set when a query left this series out (it needed more than its share
    /// of the query's steps); a re-read note is a new entry, unset.
    left_out: LeftOut,
    /// The event's JSON, once an answer has written it.
    json: JsonCell,
}

/// Whether a series was left out of an answer. Queries read the cache
/// shared, so the flag is atomic.
#[derive(Debug, Default)]
struct LeftOut(AtomicBool);

impl Clone for LeftOut {
    fn clone(&self) -> Self {
        LeftOut(AtomicBool::new(self.0.load(Ordering::Relaxed)))
    }
}

impl Indexed {
    pub fn new(
        id: String,
        spec: EventSpec,
        timing: Timing,
        contents: &str,
        line_number: usize,
    ) -> Indexed {
        let mut haystack = String::with_capacity(spec.title.len() + contents.len() + 1);
        haystack.push_str(&spec.title.to_lowercase());
        haystack.push('\n');
        haystack.push_str(&contents.to_lowercase());
        Indexed {
            id: id.into_boxed_str(),
            spec,
            timing,
            haystack: haystack.into_boxed_str(),
            line_number,
            left_out: LeftOut::default(),
            json: JsonCell::default(),
        }
    }

    /// The warning for this series, once a query has left it out.
    pub fn left_out(&self, source: &SourceConfig) -> Option<SeriesLeftOut> {
        self.left_out
            .0
            .load(Ordering::Relaxed)
            .then(|| SeriesLeftOut::new(&source.id, &self.id, &self.spec.title))
    }

    pub(in crate::calendar) fn mark_left_out(&self) {
        self.left_out.0.store(true, Ordering::Relaxed);
    }

    pub fn is_task(&self) -> bool {
        self.spec.completed.is_some()
    }

    pub fn is_completed(&self) -> bool {
        self.spec.completed.as_ref().is_some_and(|c| c.is_done())
    }

    /// The event as reported (a series unexpanded), for note `path` of
    /// `source` (`""`: a feed, no file).
    pub fn event(&self, source: &SourceConfig, path: &str) -> Event {
        let mut event = self
            .spec
            .to_event(self.id.to_string(), &source.id, &source.name);
        // A feed's or CalDAV calendar's "notes" are its resources, no files.
        event.file_path = source
            .dir()
            .and(Some(path))
            .filter(|p| !p.is_empty())
            .map(str::to_string);
        if let Timing::Once(occurrence) = &self.timing {
            event.start_millis = occurrence.span.start_millis;
            event.end_millis = occurrence.span.end_millis;
        }
        event
    }

    /// The event of one occurrence of this entry.
    pub(in crate::calendar) fn occurrence_event(
        &self,
        source: &SourceConfig,
        path: &str,
        occurrence: &Occurrence,
    ) -> Event {
        let mut event = self.event(source, path);
        if self.timing.is_series() {
            event.date = format_date(occurrence.date);
            let days = self.days_past_first();
            event.end_date =
                (days > 0).then(|| format_date(occurrence.date + chrono::Duration::days(days)));
            if event.start_time.is_some() {
                event.start_time = Some(format_time(occurrence.start.time()));
            }
            event.start_millis = occurrence.span.start_millis;
            event.end_millis = occurrence.span.end_millis;
            event.instance_date = Some(format_date(occurrence.date));
        }
        event
    }

    /// Appends the JSON of [`Indexed::occurrence_event`] (of
    /// [`Indexed::event`] without an occurrence), from bytes kept with the
    /// entry.
    pub(in crate::calendar) fn write_json(
        &self,
        out: &mut Vec<u8>,
        source: &SourceConfig,
        path: &str,
        occurrence: Option<&Occurrence>,
    ) {
        let series = self.timing.is_series();
        let json = self.json.get_or_init(series, || self.event(source, path));
        let timed = self.spec.start_time.is_some();
        let occurrence = occurrence.filter(|_| series);
        if !json.write(out, occurrence, self.days_past_first(), timed) {
            // The series unexpanded, as `Indexed::event` reports it.
            out.extend_from_slice(&event_json::to_json(&self.event(source, path)));
        }
    }

    /// How many days an all-day event spans past its first.
    pub(in crate::calendar) fn days_past_first(&self) -> i64 {
        match (self.spec.end_date, self.spec.first_day()) {
            (Some(end), Some(first)) if self.spec.all_day => (end - first).num_days().max(0),
            _ => 0,
        }
    }
}

/// ICS feed status shown by `GET /calendars`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeedStatus {
    pub last_fetched: Option<String>,
    pub last_error: Option<String>,
    /// The items of the feed's current body that could not be read: named
    /// in `last_error` until a new body reads whole, whatever the fetches.
    pub set_aside: Option<String>,
}

/// The cached events of one source.
#[derive(Debug, Clone)]
pub struct SourceCache {
    pub config: SourceConfig,
    /// Shared with the occurrence index's slots, which so reach an entry
    /// without a lookup by path.
    pub notes: HashMap<String, Vec<Arc<Indexed>>>,
    pub feed: FeedStatus,
}

impl SourceCache {
    pub fn new(config: SourceConfig) -> Self {
        Self {
            config,
            notes: HashMap::new(),
            feed: FeedStatus::default(),
        }
    }
}

/// The whole cache.
#[derive(Debug, Clone)]
pub struct Cache {
    pub sources: Vec<SourceCache>,
    pub display_tz: Tz,
    /// Currently invalid notes: `(source id, path)` → what was skipped.
    pub(in crate::calendar) invalid: HashMap<(String, String), Vec<SkippedNote>>,
    recent_skips: VecDeque<SkippedNote>,
    pub last_scan: Duration,
    /// Expanded series years, shared by every query.
    pub(in crate::calendar) memo: Arc<YearMemo>,
    /// What range reads are answered from (see [`super::occurrence_index`]).
    pub(in crate::calendar) index: OccurrenceIndex,
    /// Which notes changed, for followers (see [`super::journal`]).
    pub journal: Journal,
}

/// How a query meets its cost ceiling (see [`almanac_model::query`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ceiling {
    /// One allowance for the whole answer; running out refuses the query.
    PerAnswer,
    /// One allowance per series; running out cuts that series short.
    PerSeries,
}

impl Cache {
    pub fn new(sources: Vec<SourceConfig>, display_tz: Tz) -> Cache {
        Cache {
            index: OccurrenceIndex::new(sources.len()),
            sources: sources.into_iter().map(SourceCache::new).collect(),
            display_tz,
            invalid: HashMap::new(),
            recent_skips: VecDeque::new(),
            last_scan: Duration::ZERO,
            memo: Arc::default(),
            journal: Journal::default(),
        }
    }

    pub fn source(&self, id: &str) -> Option<&SourceCache> {
        self.sources.iter().find(|s| s.config.id == id)
    }

    /// Replaces what note `path` of source `index` contributes. Returns
    /// whether anything visible changed.
    pub fn put_note(&mut self, index: usize, path: &str, parsed: ParsedNote) -> bool {
        let Some(source) = self.sources.get_mut(index) else {
            return false;
        };
        let key = (source.config.id.clone(), path.to_string());
        for skip in &parsed.skipped {
            tracing::warn!(source = %source.config.id, note = %skip.path, reason = %skip.reason, "skipped invalid event");
            if self.recent_skips.len() == RECENT_SKIPS {
                self.recent_skips.pop_front();
            }
            self.recent_skips.push_back(skip.clone());
        }
        let skips_changed = if parsed.skipped.is_empty() {
            self.invalid.remove(&key).is_some()
        } else {
            self.invalid.insert(key, parsed.skipped.clone()).as_ref() != Some(&parsed.skipped)
        };
        let changed = match source.notes.get(path) {
            Some(old) => !same_events(old, &parsed.entries),
            None => !parsed.entries.is_empty(),
        };
        if parsed.entries.is_empty() {
            source.notes.remove(path);
        } else if changed {
            source.notes.insert(path.to_string(), parsed.entries);
        }
        if changed {
            self.journal.touch(&source.config.id, path);
            let entries = source.notes.get(path).map_or(&[][..], Vec::as_slice);
            self.index.note_changed(index, path, entries, &self.memo);
        }
        changed || skips_changed
    }

    /// Forgets note `path` of source `index`.
    pub fn remove_note(&mut self, index: usize, path: &str) -> bool {
        let Some(source) = self.sources.get_mut(index) else {
            return false;
        };
        let skips = self
            .invalid
            .remove(&(source.config.id.clone(), path.to_string()))
            .is_some();
        let removed = source.notes.remove(path).is_some();
        if removed {
            self.journal.touch(&source.config.id, path);
            self.index.note_changed(index, path, &[], &self.memo);
        }
        removed || skips
    }

    /// Whether note `path` of source `index` is cached (valid or invalid).
    pub fn has_note(&self, index: usize, path: &str) -> bool {
        self.sources.get(index).is_some_and(|source| {
            source.notes.contains_key(path)
                || self
                    .invalid
                    .contains_key(&(source.config.id.clone(), path.to_string()))
        })
    }

    /// Paths of source `index` at or under `prefix`.
    pub fn paths_under(&self, index: usize, prefix: &str) -> Vec<String> {
        let Some(source) = self.sources.get(index) else {
            return vec![];
        };
        let nested = format!("{prefix}/");
        let invalid = self
            .invalid
            .keys()
            .filter(|(id, _)| *id == source.config.id)
            .map(|(_, p)| p);
        source
            .notes
            .keys()
            .chain(invalid)
            .filter(|p| prefix.is_empty() || *p == prefix || p.starts_with(&nested))
            .cloned()
            .collect()
    }

    /// Drops every note of source `index` (before a rescan).
    pub fn clear_source(&mut self, index: usize) {
        if let Some(source) = self.sources.get_mut(index) {
            source.notes.clear();
            let id = source.config.id.clone();
            self.invalid.retain(|(s, _), _| *s != id);
            self.journal.reset();
            self.index.source_cleared(index);
        }
    }

    /// Every source's configuration, in settings order.
    pub fn configs(&self) -> Vec<SourceConfig> {
        self.sources.iter().map(|s| s.config.clone()).collect()
    }

    /// The configuration of source `index`.
    pub fn config(&self, index: usize) -> Option<&SourceConfig> {
        self.sources.get(index).map(|s| &s.config)
    }

    /// The cached entries of note `path` of source `index`, with the
    /// source's configuration (to turn them into events).
    pub fn note_entries(
        &self,
        index: usize,
        path: &str,
    ) -> Option<(&SourceConfig, &[Arc<Indexed>])> {
        let source = self.sources.get(index)?;
        Some((&source.config, source.notes.get(path)?.as_slice()))
    }

    /// The last event (by line) of note `path` of source `index`: what a
    /// write just appended.
    pub fn last_in_note(&self, index: usize, path: &str) -> Option<Event> {
        let (config, entries) = self.note_entries(index, path)?;
        let entry = entries.iter().max_by_key(|e| e.line_number)?;
        Some(entry.event(config, path))
    }

    /// The index of source `id`.
    pub fn source_index(&self, id: &str) -> Option<usize> {
        self.sources.iter().position(|s| s.config.id == id)
    }

    /// The existing daily note of `date` in daily-note source `source_id`
    /// (the first by name if several match), if any.
    pub fn daily_note_of(&self, source_id: &str, date: NaiveDate) -> Option<String> {
        let source = self.source(source_id)?;
        let Some(NoteCalendar::DailyNote {
            format: Ok(format), ..
        }) = source.config.kind.note_calendar()
        else {
            return None;
        };
        source
            .notes
            .keys()
            .filter(|p| format.date_of(p) == Some(date))
            .min()
            .cloned()
    }

    /// Records a successful fetch (or revalidation) of feed `index`.
    pub fn feed_fetched(&mut self, index: usize, last_fetched: Option<String>) {
        if let Some(source) = self.sources.get_mut(index) {
            let set_aside = source.feed.set_aside.take();
            source.feed = FeedStatus {
                last_fetched,
                last_error: set_aside.clone(),
                set_aside,
            };
        }
    }

    /// Records a failed fetch of feed `index`; its events stay.
    pub fn feed_failed(&mut self, index: usize, error: String) {
        if let Some(source) = self.sources.get_mut(index) {
            source.feed.last_error = Some(match &source.feed.set_aside {
                Some(set_aside) => format!("{error}; {set_aside}"),
                None => error,
            });
        }
    }

    /// Records which items of feed `index`'s new body were set aside
    /// (`None`: it read whole).
    pub fn feed_set_aside(&mut self, index: usize, set_aside: Option<String>) {
        if let Some(source) = self.sources.get_mut(index) {
            source.feed.set_aside = set_aside;
        }
    }

    /// Takes over the cached events and status of `old`'s feeds whose
    /// configuration is unchanged (a feed is only re-read when fetched),
    /// unless the display zone changed.
    pub fn keep_feeds_of(&mut self, old: &Cache) {
        if self.display_tz != old.display_tz {
            return;
        }
        for (index, source) in self.sources.iter_mut().enumerate() {
            if let Some(previous) = old.source(&source.config.id)
                && source.config.reads_same_feed_as(&previous.config)
            {
                // Copies, not shared: an entry keeps its JSON, which names
                // the calendar as the old settings did.
                source.notes = previous
                    .notes
                    .iter()
                    .map(|(path, entries)| {
                        let copies = entries.iter().map(|e| Arc::new(Indexed::clone(e)));
                        (path.clone(), copies.collect())
                    })
                    .collect();
                source.feed = previous.feed.clone();
                self.index.source_replaced(index, source);
            }
        }
    }

    /// Finds an event by id: `(source index, note path, entry)`.
    pub fn find(&self, id: &str) -> Option<(usize, &str, &Indexed)> {
        self.sources.iter().enumerate().find_map(|(index, source)| {
            source.notes.iter().find_map(|(path, entries)| {
                entries
                    .iter()
                    .find(|e| &*e.id == id)
                    .map(|e| (index, path.as_str(), &**e))
            })
        })
    }

    /// Finds an event by id within one note, without scanning the others.
    pub fn find_in_note(&self, path: &str, id: &str) -> Option<(usize, &Indexed)> {
        self.sources.iter().enumerate().find_map(|(index, source)| {
            source
                .notes
                .get(path)?
                .iter()
                .find(|e| &*e.id == id)
                .map(|e| (index, &**e))
        })
    }

    pub fn stats(&self, watcher_alive: bool, generation: u64) -> CacheStats {
        let notes_indexed = self.sources.iter().map(|s| s.notes.len()).sum();
        let events = self
            .sources
            .iter()
            .flat_map(|s| s.notes.values())
            .map(Vec::len)
            .sum();
        CacheStats {
            notes_indexed,
            events,
            skipped: self.invalid.values().map(Vec::len).sum(),
            recent_skips: self.recent_skips.iter().cloned().collect(),
            last_scan_millis: u64::try_from(self.last_scan.as_millis()).unwrap_or(u64::MAX),
            watcher_alive,
            generation,
        }
    }
}

fn same_events(a: &[Arc<Indexed>], b: &[Arc<Indexed>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.id == y.id
                && x.spec == y.spec
                && x.line_number == y.line_number
                && x.haystack == y.haystack
        })
}
