//! What a calendar's listing keeps for the requests after the first while
//! the calendar is unchanged. A listing belongs to one cache generation
//! (every change moves it on, see `collection::Listings`), so all of this
//! is dropped with it: nothing here can outlive the data it was made from.
//!
//! Kept: each resource's `calendar-data` (its iCalendar text, XML-escaped)
//! once a request asks for it, within [`MAX_KEPT_TEXT_BYTES`] per listing;
//! what it was made of (`relist`), which also says which resource holds
//! each entry a range query matches; and the resources the last few
//! `calendar-query` time-ranges selected. A client polling the month it
//! shows (Thunderbird, DAVx⁵ do, every few minutes) then costs a copy of
//! bytes rather than a range query and the writing of a thousand texts.

use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{Datelike, Utc};
use chrono_tz::Tz;
use quick_xml::escape::escape;

use super::collection::{ServedResource, resource_name, served_uid};
use super::href;
use super::relist::Made;
use crate::calendar::{Event, MatchedEntry};

/// The `calendar-data` bytes one listing keeps. The 10,000-note vault's
/// whole calendar is about 12 MB of text; a month of it about 1.3 MB. Past
/// the budget a text is written for each request, as it was before anything
/// was kept, so a full sync cannot grow the process past it.
pub const MAX_KEPT_TEXT_BYTES: usize = 8 * 1024 * 1024;

/// How many `calendar-query` time-ranges a listing remembers the answer of.
const KEPT_RANGES: usize = 8;

/// A calendar's resources as of one cache generation, sorted by name, with
/// what requests found out about them.
#[derive(Debug, Default)]
pub struct Collection {
    resources: Vec<ServedResource>,
    ranges: Mutex<VecDeque<(RangeKey, Arc<Vec<usize>>)>>,
    /// The calendar id and the sync token, once worked out.
    token: OnceLock<(String, String)>,
    /// What it was made of, for the listing after the next change.
    made: Option<Made>,
}

/// What decides which resources a `calendar-query` time-range selects:
/// its bounds (epoch milliseconds) and whether it asks for tasks only,
/// events only, or both.
pub type RangeKey = (Option<i64>, Option<i64>, Option<bool>);

impl Collection {
    /// `resources`, sorted by name, whose texts share one budget.
    pub fn new(mut resources: Vec<ServedResource>) -> Self {
        let budget = Arc::new(Budget(AtomicUsize::new(MAX_KEPT_TEXT_BYTES)));
        for resource in &mut resources {
            resource.kept.rehome(&budget);
        }
        Self {
            resources,
            ..Self::default()
        }
    }

    /// This listing, made of `made`.
    pub fn made_of(self, made: Made) -> Self {
        Self {
            made: Some(made),
            ..self
        }
    }

    pub fn made(&self) -> Option<&Made> {
        self.made.as_ref()
    }

    /// The index of the resource holding `matched`, an entry of this
    /// listing's calendar.
    pub(crate) fn holding(&self, matched: &MatchedEntry) -> Option<usize> {
        let made = self.made()?;
        made.holding(matched).or_else(|| {
            // An entry newer than this listing (the calendar changed since
            // it was made): the resource of its name, if listed.
            self.named(&made.event_of(matched))
        })
    }

    /// The index of the resource `event` belongs in (an occurrence of a
    /// series: the series'), by its name.
    pub fn named(&self, event: &Event) -> Option<usize> {
        let name = resource_name(&served_uid(event));
        self.resources
            .binary_search_by(|r| (*r.name).cmp(&name))
            .ok()
    }

    /// The sync token of this listing as calendar `id`: as worked out
    /// before, else by `work_out`.
    pub fn token(&self, id: &str, work_out: impl FnOnce() -> String) -> String {
        if let Some((kept_for, token)) = self.token.get()
            && kept_for == id
        {
            return token.clone();
        }
        let token = work_out();
        let _ = self.token.set((id.to_string(), token.clone()));
        token
    }

    /// The resources (indices, ascending) time-range `key` selects: as
    /// remembered, else as `select` finds them (remembered if it succeeds).
    pub fn in_range<E>(
        &self,
        key: RangeKey,
        select: impl FnOnce() -> Result<Vec<usize>, E>,
    ) -> Result<Arc<Vec<usize>>, E> {
        let ranges = || self.ranges.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, found)) = ranges().iter().find(|(k, _)| *k == key) {
            return Ok(found.clone());
        }
        let mut found = select()?;
        found.sort_unstable();
        found.dedup();
        let found = Arc::new(found);
        let mut ranges = ranges();
        if !ranges.iter().any(|(k, _)| *k == key) {
            ranges.push_back((key, found.clone()));
            if ranges.len() > KEPT_RANGES {
                ranges.pop_front();
            }
        }
        Ok(found)
    }
}

impl Deref for Collection {
    type Target = Vec<ServedResource>;

    fn deref(&self) -> &Vec<ServedResource> {
        &self.resources
    }
}

/// The bytes of text a listing may still keep.
#[derive(Debug)]
struct Budget(AtomicUsize);

impl Budget {
    /// Takes `bytes` from the budget if they are left.
    fn take(&self, bytes: usize) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(bytes)
            })
            .is_ok()
    }
}

/// What a resource keeps once written: its `calendar-data` if its listing's
/// budget allows (a resource outside a listing, an `expand`ed one, keeps
/// no text), and its href (a hundred bytes, however many resources).
#[derive(Debug, Clone, Default)]
pub struct Kept {
    text: OnceLock<Written>,
    /// The calendar id it was written for, and the href.
    href: OnceLock<(Arc<str>, Arc<str>)>,
    budget: Option<Arc<Budget>>,
}

/// A text and what it was written for besides the events: the display zone
/// (which places zone-less times) and the year (how far ahead the
/// `VTIMEZONE` reaches).
#[derive(Debug, Clone)]
struct Written {
    zone: Tz,
    year: i32,
    xml: Arc<str>,
}

impl Kept {
    /// Puts the text under `budget`: a text kept already (carried over
    /// from the listing before, see `relist`) stays if it fits.
    fn rehome(&mut self, budget: &Arc<Budget>) {
        if let Some(written) = self.text.get()
            && !budget.take(written.xml.len())
        {
            self.text = OnceLock::new();
        }
        self.budget = Some(budget.clone());
    }

    /// `resource`'s path in calendar `id`.
    pub fn href(resource: &ServedResource, id: &str) -> String {
        let (kept_for, href) = resource
            .kept
            .href
            .get_or_init(|| (id.into(), href::resource(id, &resource.name).into()));
        if **kept_for == *id {
            href.to_string()
        } else {
            href::resource(id, &resource.name)
        }
    }

    /// `resource`'s text in `zone`, XML-escaped.
    pub fn of(resource: &ServedResource, zone: Tz) -> Arc<str> {
        let kept = &resource.kept;
        let year = Utc::now().year();
        if let Some(written) = kept.text.get()
            && written.zone == zone
            && written.year == year
        {
            return written.xml.clone();
        }
        let xml: Arc<str> = escape(resource.ics(zone).as_str()).into();
        if kept.text.get().is_none() && kept.budget.as_ref().is_some_and(|b| b.take(xml.len())) {
            let written = Written {
                zone,
                year,
                xml: xml.clone(),
            };
            // Another request may have kept it first: then these bytes were
            // taken for nothing, which only makes the budget stricter.
            let _ = kept.text.set(written);
        }
        xml
    }

    /// Whether the text is kept (for tests).
    #[cfg(test)]
    pub fn is_kept(&self) -> bool {
        self.text.get().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::EventType;

    fn resource(name: &str, ids: &[&str]) -> ServedResource {
        ServedResource {
            name: format!("{name}.ics").into(),
            etag: "\"1\"".into(),
            uid: name.into(),
            events: ids
                .iter()
                .map(|id| Event {
                    id: id.to_string(),
                    title: format!("Title of {id} & <more>"),
                    date: "2026-01-05".into(),
                    kind: EventType::Single,
                    ..Event::default()
                })
                .collect::<Vec<_>>()
                .into(),
            expanded: None,
            kept: Kept::default(),
        }
    }

    #[test]
    fn texts_are_kept_until_the_budget_is_spent_and_read_the_same() {
        let collection = Collection::new(vec![resource("a", &["x"]), resource("b", &["y"])]);
        let zone = chrono_tz::Europe::Berlin;
        let fresh = escape(collection[0].ics(zone).as_str()).into_owned();
        assert!(
            fresh.contains("&amp;") && fresh.contains("&#13;"),
            "{fresh}"
        );
        assert_eq!(&*Kept::of(&collection[0], zone), fresh);
        assert!(collection[0].kept.is_kept());
        assert_eq!(&*Kept::of(&collection[0], zone), fresh);
        // Another zone is written afresh, not served from the kept text.
        let other = chrono_tz::America::New_York;
        assert_eq!(
            &*Kept::of(&collection[0], other),
            escape(collection[0].ics(other).as_str())
        );
        // A spent budget keeps nothing more.
        let budget = collection[1].kept.budget.clone().unwrap();
        budget.0.store(fresh.len() - 1, Ordering::Relaxed);
        Kept::of(&collection[1], zone);
        assert!(!collection[1].kept.is_kept());
        // Hrefs are kept per calendar.
        assert_eq!(Kept::href(&collection[0], "a b"), "/calendars/a%20b/a.ics");
        assert_eq!(Kept::href(&collection[0], "a b"), "/calendars/a%20b/a.ics");
        assert_eq!(Kept::href(&collection[0], "c"), "/calendars/c/a.ics");
        // Outside a listing no text is kept.
        let alone = resource("c", &["z"]);
        Kept::of(&alone, zone);
        assert!(!alone.kept.is_kept());
    }

    #[test]
    fn events_are_found_by_the_name_of_their_uid() {
        let collection = Collection::new(vec![resource("a", &["x", "x2"]), resource("b", &["y"])]);
        let event = |id: &str, uid: Option<&str>| Event {
            id: id.into(),
            uid: uid.map(str::to_string),
            ..Event::default()
        };
        assert_eq!(collection.named(&event("a", None)), Some(0));
        assert_eq!(collection.named(&event("new", Some("b"))), Some(1));
        assert_eq!(collection.named(&event("new", None)), None);
    }

    #[test]
    fn ranges_are_remembered_only_when_found_and_only_the_last_few() {
        let collection = Collection::new(vec![resource("a", &["x"])]);
        let key = |n: i64| (Some(n), Some(n + 1), None);
        let refused: Result<_, &str> = collection.in_range(key(0), || Err("too large"));
        assert!(refused.is_err());
        let found = collection.in_range(key(0), || Ok::<_, ()>(vec![2, 0, 2]));
        assert_eq!(*found.unwrap(), [0, 2]);
        let again = collection.in_range(key(0), || -> Result<_, ()> { panic!("asked again") });
        assert_eq!(*again.unwrap(), [0, 2]);
        for n in 1..=KEPT_RANGES as i64 {
            collection.in_range(key(n), || Ok::<_, ()>(vec![])).unwrap();
        }
        let forgotten = collection.in_range(key(0), || Ok::<_, ()>(vec![1]));
        assert_eq!(*forgotten.unwrap(), [1]);
    }
}
