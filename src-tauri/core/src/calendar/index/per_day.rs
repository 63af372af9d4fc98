//! A calendar view's answer for a range of days: at most `per_day` events on
//! each day (in the display zone) and, per day, how many more it holds.
//!
//! A month of the 10 000-note generated vault holds over 10 000 occurrences
//! (hundreds of daily series): more than a checked query may answer, and far
//! more than a month grid can draw, or than is worth sending to it. A month
//! cell shows a few events and "+N more" anyway, so the window asks for that
//! and nothing else; the day itself is then a small range, fetched whole.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate};
use chrono_tz::Tz;
use serde::Serialize;

use super::cache::Ceiling;
use super::read::Hit;
use crate::calendar::engine::Calendar;
use almanac_model::error::CalendarError;
use almanac_model::event::Event;
use almanac_model::query::{EventQuery, validate_range};

/// Longest range a per-day query covers, in days: a month grid's six weeks
/// with room to spare. Bounds the answer at `per_day` × this many events.
pub const MAX_DAYS: i64 = 62;

/// The events kept, and how many more each day holds.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerDay {
    pub events: Vec<Event>,
    pub more: Vec<MoreOnDay>,
}

/// `count` events of `date` left out of a [`PerDay`] answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoreOnDay {
    pub date: NaiveDate,
    pub count: usize,
}

impl Calendar {
    /// The events overlapping `query`'s range, at most `per_day` on each day
    /// of the display zone (all-day events first, then by start; an event
    /// spanning days is kept only where every one of its days has room).
    /// The range must be bounded and at most [`MAX_DAYS`] long. Series are
    /// expanded with each one's own ceiling, as for internal readers: the
    /// answer's size is bounded by the cap, not by refusing dense ranges.
    pub fn query_per_day(
        &self,
        query: &EventQuery,
        per_day: usize,
    ) -> Result<PerDay, CalendarError> {
        validate_range(query)?;
        let (Some(start), Some(end)) = (query.start_millis, query.end_millis) else {
            return Err(CalendarError::invalid(
                "start",
                "a per-day query needs a start and an end",
            ));
        };
        if end - start > MAX_DAYS * 86_400_000 {
            return Err(CalendarError::invalid(
                "end",
                format!("a per-day query covers at most {MAX_DAYS} days"),
            ));
        }
        let zone = self.display_timezone();
        let first = day_of(start, zone);
        let last = day_of(end, zone);
        // Capped before any event is built: six weeks of a busy vault hold
        // some 10,000 occurrences, of which a month grid keeps a few a day.
        let state = self.inner.read();
        let now = chrono::Utc::now().timestamp_millis();
        let (hits, _) = state
            .cache
            .hits(query, now, Ceiling::PerSeries)
            .unwrap_or_default();
        let (kept, more) = cap(hits, per_day, first..=last, zone);
        Ok(PerDay {
            events: kept.iter().map(Hit::event).collect(),
            more,
        })
    }
}

fn day_of(millis: i64, zone: Tz) -> NaiveDate {
    DateTime::from_timestamp_millis(millis)
        .unwrap_or_default()
        .with_timezone(&zone)
        .date_naive()
}

/// What the cap needs to know of an event: an [`Event`], or a match not
/// yet built into one.
pub(in crate::calendar) trait Placed {
    fn all_day(&self) -> bool;
    /// `startMillis` and `endMillis`.
    fn millis(&self) -> (Option<i64>, Option<i64>);
    /// The days it covers in `zone`, as an inclusive range.
    fn days(&self, zone: Tz) -> Option<(NaiveDate, NaiveDate)>;
}

impl Placed for Event {
    fn all_day(&self) -> bool {
        self.all_day
    }

    fn millis(&self) -> (Option<i64>, Option<i64>) {
        (self.start_millis, self.end_millis)
    }

    fn days(&self, zone: Tz) -> Option<(NaiveDate, NaiveDate)> {
        days(self, zone)
    }
}

impl Placed for Hit<'_> {
    fn all_day(&self) -> bool {
        Hit::all_day(self)
    }

    fn millis(&self) -> (Option<i64>, Option<i64>) {
        Hit::millis(self)
    }

    fn days(&self, zone: Tz) -> Option<(NaiveDate, NaiveDate)> {
        match (self.all_day(), self.millis()) {
            (false, (Some(start), end)) => Some(timed_days(start, end, zone)),
            // All-day dates are the event's own: built for the few of them.
            _ => days(&self.event(), zone),
        }
    }
}

/// The days a timed event from `start` to `end` covers in `zone`.
fn timed_days(start: i64, end: Option<i64>, zone: Tz) -> (NaiveDate, NaiveDate) {
    // An end at midnight does not reach into the next day.
    let end = end.filter(|&end| end > start).map_or(start, |end| end - 1);
    (day_of(start, zone), day_of(end, zone))
}

/// The days `event` covers in `zone`, as an inclusive range.
fn days(event: &Event, zone: Tz) -> Option<(NaiveDate, NaiveDate)> {
    match (event.all_day, event.start_millis) {
        (false, Some(start)) => Some(timed_days(start, event.end_millis, zone)),
        _ => {
            let first: NaiveDate = event.date.parse().ok()?;
            let last = event
                .end_date
                .as_deref()
                .and_then(|d| d.parse().ok())
                .filter(|&last| last >= first)
                .unwrap_or(first);
            Some((first, last))
        }
    }
}

/// Keeps at most `per_day` of `events` on each day of `range`, and counts
/// the rest per day.
pub(in crate::calendar) fn cap<T: Placed>(
    mut events: Vec<T>,
    per_day: usize,
    range: std::ops::RangeInclusive<NaiveDate>,
    zone: Tz,
) -> (Vec<T>, Vec<MoreOnDay>) {
    // All-day first (a month cell draws them on top), then by start.
    events.sort_by_key(|e| (!e.all_day(), e.millis().0.unwrap_or(i64::MIN)));
    let mut shown: BTreeMap<NaiveDate, usize> = BTreeMap::new();
    let mut more: BTreeMap<NaiveDate, usize> = BTreeMap::new();
    let mut kept = Vec::new();
    for event in events {
        let Some((first, last)) = event.days(zone) else {
            continue;
        };
        let covered: Vec<NaiveDate> = first
            .max(*range.start())
            .iter_days()
            .take_while(|day| *day <= last.min(*range.end()))
            .collect();
        if covered
            .iter()
            .all(|day| shown.get(day).copied().unwrap_or(0) < per_day)
        {
            for day in covered {
                *shown.entry(day).or_default() += 1;
            }
            kept.push(event);
        } else {
            for day in covered {
                *more.entry(day).or_default() += 1;
            }
        }
    }
    let more = more
        .into_iter()
        .map(|(date, count)| MoreOnDay { date, count })
        .collect();
    (kept, more)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(title: &str, start: &str, end: &str) -> Event {
        let millis = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis();
        Event {
            title: title.to_string(),
            date: start[..10].to_string(),
            start_millis: Some(millis(start)),
            end_millis: Some(millis(end)),
            ..Event::default()
        }
    }

    fn all_day(title: &str, date: &str, end_date: Option<&str>) -> Event {
        Event {
            title: title.to_string(),
            date: date.to_string(),
            end_date: end_date.map(str::to_string),
            all_day: true,
            ..Event::default()
        }
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn keeps_per_day_events_and_counts_the_rest_on_their_days_in_the_zone() {
        let events = vec![
            timed("a", "2026-11-02T08:00:00Z", "2026-11-02T09:00:00Z"),
            timed("b", "2026-11-02T10:00:00Z", "2026-11-02T11:00:00Z"),
            // 23:30 UTC is the next day in Berlin.
            timed("c", "2026-11-02T23:30:00Z", "2026-11-03T00:30:00Z"),
            timed("d", "2026-11-02T12:00:00Z", "2026-11-02T13:00:00Z"),
            all_day("trip", "2026-11-02", Some("2026-11-04")),
        ];
        let (kept, more) = cap(
            events,
            2,
            day("2026-11-01")..=day("2026-11-30"),
            Tz::Europe__Berlin,
        );
        let titles: Vec<&str> = kept.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(titles, ["trip", "a", "c"]);
        assert_eq!(
            more,
            [MoreOnDay {
                date: day("2026-11-02"),
                count: 2
            }]
        );
    }

    #[test]
    fn a_long_event_counts_only_inside_the_range_and_needs_room_on_each_day() {
        let events = vec![
            timed("x", "2026-11-03T08:00:00Z", "2026-11-03T09:00:00Z"),
            all_day("year", "2026-01-01", Some("2026-12-31")),
        ];
        let (kept, more) = cap(events, 1, day("2026-11-02")..=day("2026-11-04"), Tz::UTC);
        let titles: Vec<&str> = kept.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(titles, ["year"]);
        assert_eq!(
            more,
            [MoreOnDay {
                date: day("2026-11-03"),
                count: 1
            }]
        );
    }
}
