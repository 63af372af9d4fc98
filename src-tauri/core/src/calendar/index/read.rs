//! Range reads of the cache, answered from the occurrence index (see
//! [`super::occurrence_index`]): the one path every reader's occurrences
//! come from.

use std::sync::Arc;

use super::cache::{Cache, Ceiling, Indexed};
use super::listing::{HeldEntry, MatchedEntry};
use super::occurrence_index::{NoteRef, SeriesNotes};
use crate::calendar::sources::SourceConfig;
use almanac_model::budget::{Exhausted, spend};
use almanac_model::event::Event;
use almanac_model::query::{
    EventClock, EventMembers, EventQuery, JsonAnswer, MAX_EVENTS_PER_ANSWER, MAX_EXPANSION_STEPS,
    MAX_PAGE_STEPS, UNBOUNDED_HORIZON_DAYS,
};
use almanac_model::series::recurrence::{Occurrence, Timing, Window};
use almanac_model::status::SeriesLeftOut;

/// One match, before it becomes an [`Event`] (only once the answer is known
/// to fit, and only if the reader keeps it).
pub(in crate::calendar) struct Hit<'a> {
    start: i64,
    source: &'a SourceConfig,
    /// The note's path and the entry, as the index holds them (shared with
    /// the cache, reached without a lookup).
    path: Arc<str>,
    entry: Arc<Indexed>,
    occurrence: Option<Occurrence>,
}

impl Hit<'_> {
    /// The event (of this occurrence, for a series).
    pub(in crate::calendar) fn event(&self) -> Event {
        match &self.occurrence {
            Some(o) => self.entry.occurrence_event(self.source, &self.path, o),
            None => self.entry.event(self.source, &self.path),
        }
    }

    /// Appends [`Hit::event`]'s JSON.
    fn write_json(&self, out: &mut Vec<u8>) {
        self.entry
            .write_json(out, self.source, &self.path, self.occurrence.as_ref());
    }

    /// Where its event sits in time (see [`EventClock`]).
    fn clock(&self) -> EventClock {
        let spec = &self.entry.spec;
        if !spec.all_day {
            let (start_millis, end_millis) = self.millis();
            return EventClock::Timed {
                own_zone: spec.timezone.is_some(),
                start_millis,
                end_millis,
            };
        }
        // As `Indexed::occurrence_event` writes `date` and `endDate`.
        let first = match &self.occurrence {
            Some(o) if self.entry.timing.is_series() => Some(o.date),
            _ => spec.first_day(),
        };
        let last = first.map(|day| day + chrono::Duration::days(self.entry.days_past_first()));
        EventClock::AllDay { first, last }
    }

    pub(in crate::calendar) fn all_day(&self) -> bool {
        self.entry.spec.all_day
    }

    /// Where the match starts (epoch milliseconds): what answers sort by.
    pub(in crate::calendar) fn start(&self) -> i64 {
        self.start
    }

    /// The cached entry matched, the same for every occurrence of a series.
    pub(in crate::calendar) fn entry(&self) -> *const Indexed {
        Arc::as_ptr(&self.entry)
    }

    /// The `startMillis` / `endMillis` its event reports.
    pub(in crate::calendar) fn millis(&self) -> (Option<i64>, Option<i64>) {
        let span = match (&self.occurrence, &self.entry.timing) {
            (Some(o), _) | (None, Timing::Once(o)) => o.span,
            (None, _) => return (None, None),
        };
        (span.start_millis, span.end_millis)
    }
}

impl Cache {
    /// Runs a query (see [`almanac_model::query`] for the semantics and the
    /// ceiling), with the series left out of the answer. Only
    /// [`Ceiling::PerAnswer`] returns an error.
    pub fn query(
        &self,
        query: &EventQuery,
        now_millis: i64,
        ceiling: Ceiling,
    ) -> Result<(Vec<Event>, Vec<SeriesLeftOut>), Exhausted> {
        let (hits, left_out) = self.hits(query, now_millis, ceiling)?;
        Ok((hits.iter().map(Hit::event).collect(), left_out))
    }

    /// [`Cache::query`] with the events written as one JSON array (what
    /// serializing them would write), from bytes kept per entry, and
    /// `members` writing the reader's own members into each event object.
    pub fn query_json_with(
        &self,
        query: &EventQuery,
        now_millis: i64,
        ceiling: Ceiling,
        members: EventMembers,
    ) -> Result<JsonAnswer, Exhausted> {
        let (hits, left_out) = self.hits(query, now_millis, ceiling)?;
        let mut events = Vec::with_capacity(hits.len() * 512 + 2);
        events.push(b'[');
        for (n, hit) in hits.iter().enumerate() {
            if n > 0 {
                events.push(b',');
            }
            hit.write_json(&mut events);
            // Every event is written as one JSON object: its closing brace
            // goes back after the reader's members.
            events.pop();
            members(&mut events, hit.clock(), self.display_tz);
            events.push(b'}');
        }
        events.push(b']');
        Ok(JsonAnswer {
            count: hits.len(),
            events,
            left_out,
        })
    }

    /// The note and entry of each of [`Cache::query`]'s matches, each
    /// entry once (a series for all its occurrences), no [`Event`] built.
    pub(in crate::calendar) fn matched_entries(
        &self,
        query: &EventQuery,
        now_millis: i64,
        ceiling: Ceiling,
    ) -> Result<Vec<MatchedEntry>, Exhausted> {
        let (hits, _) = self.hits(query, now_millis, ceiling)?;
        let mut seen = std::collections::HashSet::with_capacity(hits.len());
        Ok(hits
            .into_iter()
            .filter(|hit| seen.insert(Arc::as_ptr(&hit.entry)))
            .map(|hit| MatchedEntry {
                entry: HeldEntry(hit.entry),
                path: hit.path,
            })
            .collect())
    }

    /// [`Cache::query`]'s matches in answer order, before any [`Event`] is
    /// built.
    pub(in crate::calendar) fn hits(
        &self,
        query: &EventQuery,
        now_millis: i64,
        ceiling: Ceiling,
    ) -> Result<(Vec<Hit<'_>>, Vec<SeriesLeftOut>), Exhausted> {
        let needle = query
            .text
            .as_deref()
            .map(str::to_lowercase)
            .filter(|n| !n.is_empty());
        // The calendars asked for, by source position: checked before an
        // occurrence's entry is even looked up.
        let in_calendars: Option<Vec<bool>> = query.calendars.as_ref().map(|ids| {
            self.sources
                .iter()
                .map(|s| ids.contains(&s.config.id))
                .collect()
        });
        let by_entry = needle.is_some() || query.is_task.is_some() || query.is_completed.is_some();
        let wanted = |entry: &Indexed| {
            query.is_task.is_none_or(|t| t == entry.is_task())
                && query.is_completed.is_none_or(|c| c == entry.is_completed())
                && needle.as_deref().is_none_or(|n| entry.haystack.contains(n))
        };
        // With a filter, the notes whose series it keeps: an open range
        // reads a year of every series, and the others' occurrences are
        // passed over by the address of their shared path, without a
        // lookup (and a page not built yet may expand only these).
        let kept_notes: Option<SeriesNotes> = (by_entry || in_calendars.is_some()).then(|| {
            self.index
                .series_notes()
                .iter()
                .enumerate()
                .map(|(source, paths)| {
                    let in_calendar = in_calendars
                        .as_ref()
                        .is_none_or(|wanted| wanted.get(source).is_some_and(|w| *w));
                    paths
                        .iter()
                        .filter(|path| {
                            in_calendar
                                && self.sources[source]
                                    .notes
                                    .get(&***path)
                                    .is_some_and(|entries| {
                                        entries.iter().any(|e| e.timing.is_series() && wanted(e))
                                    })
                        })
                        .cloned()
                        .collect()
                })
                .collect()
        });
        let series_kept: Option<Vec<*const u8>> = kept_notes.as_ref().map(|notes| {
            let mut kept: Vec<*const u8> = notes
                .iter()
                .flatten()
                .map(|path| Arc::as_ptr(path).cast::<u8>())
                .collect();
            kept.sort_unstable();
            kept
        });
        let step_limit = match ceiling {
            Ceiling::PerAnswer => MAX_EXPANSION_STEPS,
            // Internal readers (the window's per-day view) are bounded by
            // their range and each page's own pool.
            Ceiling::PerSeries => usize::MAX,
        };
        let window = series_window(query, now_millis);
        let mut left = MAX_EVENTS_PER_ANSWER;
        let mut hits = Vec::new();
        // A filter no series passes reads no page (nor builds one).
        let series_range =
            (series_kept.as_ref().is_none_or(|kept| !kept.is_empty())).then_some(window);
        let left_out = self.index.read(
            &self.sources,
            &self.memo,
            (query.start_millis, query.end_millis),
            series_range,
            kept_notes.as_ref(),
            step_limit,
            |found| {
                if let Some(wanted_sources) = &in_calendars
                    && !wanted_sources
                        .get(found.note.source as usize)
                        .is_some_and(|wanted| *wanted)
                {
                    return Ok(());
                }
                if found.occurrence.is_some()
                    && let Some(kept) = &series_kept
                    && kept
                        .binary_search(&Arc::as_ptr(&found.note.path).cast::<u8>())
                        .is_err()
                {
                    return Ok(());
                }
                let Some(source) = self.sources.get(found.note.source as usize) else {
                    return Ok(());
                };
                if by_entry && !wanted(found.indexed) {
                    return Ok(());
                }
                if ceiling == Ceiling::PerAnswer {
                    spend(&mut left, Exhausted::Occurrences)?;
                }
                hits.push(Hit {
                    start: found.start,
                    source: &source.config,
                    path: found.note.path.clone(),
                    entry: found.indexed.clone(),
                    occurrence: found.occurrence,
                });
                Ok(())
            },
        )?;
        hits.sort_by(|a, b| {
            a.start
                .cmp(&b.start)
                .then_with(|| a.entry.id.cmp(&b.entry.id))
        });
        let mut left_out: Vec<SeriesLeftOut> = left_out
            .iter()
            .filter_map(|left| self.resolve(&left.note, left.entry))
            .filter(|(source, _, entry)| {
                wanted(entry)
                    && query
                        .calendars
                        .as_ref()
                        .is_none_or(|ids| ids.contains(&source.id))
            })
            .filter_map(|(source, _, entry)| entry.left_out(source))
            .collect();
        left_out.sort_by(|a, b| a.event_id.cmp(&b.event_id));
        left_out.dedup();
        Ok((hits, left_out))
    }

    /// The occurrences of series `id` overlapping `window`, read from the
    /// index like every range (what a write to one occurrence checks its
    /// date against). A series left out of the index has none.
    pub(in crate::calendar) fn occurrences_of(&self, id: &str, window: Window) -> Vec<Occurrence> {
        let mut found = Vec::new();
        let _ = self.index.read(
            &self.sources,
            &self.memo,
            (Some(window.start), Some(window.end)),
            Some(window),
            None,
            MAX_PAGE_STEPS,
            |slot| {
                if let Some(occurrence) = slot.occurrence
                    && &*slot.indexed.id == id
                {
                    found.push(occurrence);
                }
                Ok(())
            },
        );
        found.sort_by_key(|occurrence| occurrence.span.start);
        found
    }

    /// The entry an index slot points at, with its source and note path.
    pub(in crate::calendar) fn resolve(
        &self,
        note: &NoteRef,
        entry: u32,
    ) -> Option<(&SourceConfig, &str, &Indexed)> {
        let source = self.sources.get(note.source as usize)?;
        let (path, entries) = source.notes.get_key_value(&*note.path)?;
        Some((&source.config, path, entries.get(entry as usize)?))
    }
}

/// The window series are expanded in: the query's bounds, with an open side
/// replaced by the horizon (see [`almanac_model::query`]).
pub(in crate::calendar) fn series_window(query: &EventQuery, now_millis: i64) -> Window {
    // Years 1 to 9999: beyond that there are no calendar dates to expand.
    const FIRST_MILLIS: i64 = -62_135_596_800_000;
    const LAST_MILLIS: i64 = 253_402_300_799_999;
    let horizon = UNBOUNDED_HORIZON_DAYS * 86_400_000;
    let window = match (query.start_millis, query.end_millis) {
        (Some(start), Some(end)) => Window { start, end },
        (Some(start), None) => Window {
            start,
            end: start.saturating_add(horizon),
        },
        (None, Some(end)) => Window {
            start: end.saturating_sub(horizon),
            end,
        },
        (None, None) => Window {
            start: now_millis - horizon,
            end: now_millis + horizon,
        },
    };
    Window {
        start: window.start.clamp(FIRST_MILLIS, LAST_MILLIS),
        end: window.end.clamp(FIRST_MILLIS, LAST_MILLIS),
    }
}
