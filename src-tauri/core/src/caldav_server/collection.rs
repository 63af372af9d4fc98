//! A calendar as a CalDAV collection: its events grouped into `.ics`
//! resources, each with an ETag, and the collection's sync token.
//!
//! A resource is one `UID`: the event's own `uid` (what a client sent when
//! it created it), else its Almanac id — for a feed, the feed's `UID`, with
//! its modified occurrences in the same resource; for a Full Note series,
//! the notes detached from it (`recurrenceId`, see `calendar::write::detach`),
//! each as a modified occurrence, and the series without their dates among
//! its `EXDATE`s. The resource is named
//! after the `UID` when that is a safe file name (so a client that PUTs
//! `<UID>.ics`, as the `caldav` library, vdirsyncer and Thunderbird do,
//! finds it there), else after its SHA-256.
//!
//! ETags and tokens are digests of what is served: the events' JSON, the
//! display zone (which places zone-less times) and the form they are served
//! in, so they change exactly when the served data does, and survive
//! restarts.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;
use sha2::{Digest, Sha256};

use super::kept::{Collection, Kept};
use super::relist;
use crate::calendar::{Calendar, Event, EventId, EventType};
use crate::ics::write::{Component, calendar_with_todos};

/// One `.ics` resource.
#[derive(Debug, Clone)]
pub struct ServedResource {
    /// The last path segment, decoded (`<UID>.ics`).
    pub name: Arc<str>,
    /// Quoted, as sent in `ETag` and `getetag`.
    pub etag: Arc<str>,
    pub uid: Arc<str>,
    /// The master (or only) event first, then modified occurrences.
    /// Shared: a listing made after a change carries unchanged resources
    /// over (`relist`).
    pub events: Arc<[Event]>,
    /// The events' `RECURRENCE-ID`s when they are occurrences of an
    /// expanded series (`caldav::expand`), else worked out from the events.
    pub expanded: Option<Vec<Option<String>>>,
    /// Its `calendar-data` and href once written (see [`Kept`]).
    pub kept: Kept,
}

impl ServedResource {
    /// The resource of `uid` holding `events` (sorted by id).
    pub fn of(uid: Arc<str>, mut events: Vec<Event>, display_tz: Tz) -> ServedResource {
        // The master first: the event without a RECURRENCE-ID.
        events.sort_by_key(|e| recurrence_id(e).is_some());
        let events = with_detached(events);
        ServedResource {
            name: resource_name(&uid).into(),
            etag: etag(&events, display_tz).into(),
            uid,
            events: events.into(),
            expanded: None,
            kept: Kept::default(),
        }
    }

    /// The resource's iCalendar text.
    pub fn ics(&self, display_tz: Tz) -> String {
        let recurrences = self.recurrence_ids();
        calendar_with_todos(
            &self.components(&recurrences),
            display_tz,
            stamp(&self.events[0]),
        )
    }

    /// [`ServedResource::ics`] XML-escaped, as `calendar-data` holds it: kept
    /// with the listing once written (see [`super::kept`]).
    pub fn calendar_data(&self, display_tz: Tz) -> Arc<str> {
        Kept::of(self, display_tz)
    }

    /// Its path in calendar `id`, percent-encoded: kept with the listing
    /// once written.
    pub fn href(&self, id: &str) -> String {
        Kept::href(self, id)
    }

    /// Each event's `RECURRENCE-ID`, for [`ServedResource::components`].
    pub fn recurrence_ids(&self) -> Vec<Option<String>> {
        if let Some(expanded) = &self.expanded {
            return expanded.clone();
        }
        let series = &self.events[0];
        self.events
            .iter()
            .enumerate()
            .map(|(i, event)| {
                recurrence_id(event).or_else(|| (i > 0).then(|| detached_at(series, event))?)
            })
            .collect()
    }

    /// The `VEVENT`s to write, given [`ServedResource::recurrence_ids`].
    pub fn components<'a>(&'a self, recurrence_ids: &'a [Option<String>]) -> Vec<Component<'a>> {
        self.events
            .iter()
            .zip(recurrence_ids)
            .map(|(event, rid)| Component {
                uid: &self.uid,
                event,
                recurrence_id: rid.as_deref(),
            })
            .collect()
    }
}

/// A `DTSTAMP` that depends only on the event, so the text served under one
/// ETag is always the same bytes: the event's start (UTC midnight of its
/// first day for an all-day event).
fn stamp(event: &Event) -> DateTime<Utc> {
    event
        .start_millis
        .and_then(DateTime::from_timestamp_millis)
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(&event.date, "%Y-%m-%d")
                .ok()
                .map(|d| d.and_time(chrono::NaiveTime::MIN).and_utc())
        })
        .unwrap_or_default()
}

/// The UID a client sees for `event`.
pub fn served_uid(event: &Event) -> String {
    if let Some(uid) = event.uid.as_deref().filter(|u| !u.is_empty()) {
        return uid.to_string();
    }
    match ical_parts(event) {
        Some((uid, _)) => uid,
        None => event.id.clone(),
    }
}

/// A feed event's `(UID, RECURRENCE-ID)` from its id.
fn ical_parts(event: &Event) -> Option<(String, Option<String>)> {
    let EventId::Ical { event: rest, .. } = event.id.parse().ok()? else {
        return None;
    };
    match rest.rsplit_once("::") {
        Some((uid, rid)) if is_local_stamp(rid) => Some((uid.to_string(), Some(rid.to_string()))),
        _ => Some((rest, None)),
    }
}

pub(super) fn recurrence_id(event: &Event) -> Option<String> {
    ical_parts(event).and_then(|(_, rid)| rid)
}

/// The `RECURRENCE-ID` of a note detached from note `series`: the date of
/// the occurrence it replaces, at the series' start time.
pub(super) fn detached_at(series: &Event, detached: &Event) -> Option<String> {
    if series.kind == EventType::Single {
        return None;
    }
    let date = NaiveDate::parse_from_str(detached.recurrence_id.as_deref()?, "%Y-%m-%d").ok()?;
    let time = series
        .start_time
        .as_deref()
        .filter(|_| !series.all_day)
        .and_then(|t| NaiveTime::parse_from_str(t, "%H:%M").ok())
        .unwrap_or(NaiveTime::MIN);
    Some(date.and_time(time).format("%Y%m%dT%H%M%S").to_string())
}

/// Whether `event` is a note series (which notes may be detached from).
pub(super) fn is_note_series(event: &Event) -> bool {
    event.kind != EventType::Single && event.recurrence_id.is_none() && ical_parts(event).is_none()
}

/// A note series and the notes detached from it, as one resource: the
/// series first, without the detached dates among its skipped ones (the
/// modified occurrences stand there instead of `EXDATE`s).
fn with_detached(mut events: Vec<Event>) -> Vec<Event> {
    let Some(at) = events.iter().position(is_note_series) else {
        return events;
    };
    let mut series = events.remove(at);
    let detached: Vec<String> = events
        .iter()
        .filter_map(|e| e.recurrence_id.clone())
        .collect();
    series.skip_dates.retain(|d| !detached.contains(d));
    events.sort_by_key(|e| e.recurrence_id.is_none());
    events.insert(0, series);
    events
}

/// `YYYYMMDDTHHMMSS`, the form feed ids give a `RECURRENCE-ID`.
fn is_local_stamp(text: &str) -> bool {
    text.len() == 15
        && text.bytes().enumerate().all(|(i, b)| {
            if i == 8 {
                b == b'T'
            } else {
                b.is_ascii_digit()
            }
        })
}

/// Characters vdirsyncer also treats as safe in a UID-derived file name.
fn is_safe_name(uid: &str) -> bool {
    !uid.is_empty()
        && uid.len() <= 200
        && uid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+' | b'@'))
}

/// The resource name of `uid`.
pub fn resource_name(uid: &str) -> String {
    if is_safe_name(uid) {
        format!("{uid}.ics")
    } else {
        format!("{}.ics", &hex(uid.as_bytes())[..32])
    }
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Changed whenever the same events are served as different text (2: tasks
/// as `VTODO`s), so every ETag changes with it and syncing clients fetch
/// the new form instead of keeping the old one under an unchanged tag.
const SERVED_FORM: &str = "2";

/// The ETag of a resource holding `events`.
pub fn etag(events: &[Event], display_tz: Tz) -> String {
    let mut hasher = Sha256::new();
    hasher.update(SERVED_FORM);
    hasher.update(display_tz.name());
    for event in events {
        hasher.update(serde_json::to_vec(event).unwrap_or_default());
    }
    let digest = hasher.finalize();
    let hex: String = digest[..10].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// The sync token of `resources` in calendar `id`: a digest of their names
/// and ETags.
fn sync_token(id: &str, resources: &[ServedResource]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(id.as_bytes());
    for resource in resources {
        hasher.update([0]);
        hasher.update(resource.name.as_bytes());
        hasher.update(resource.etag.as_bytes());
    }
    let digest = hasher.finalize();
    format!(
        "urn:almanac:sync:{}",
        digest[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}

/// A calendar's resources as of one cache generation.
type Listing = (u64, Arc<Collection>);

/// What a collection held when a sync token was handed out: resource name →
/// ETag.
type Snapshot = Arc<HashMap<Arc<str>, Arc<str>>>;

/// How many snapshots are kept for `sync-collection` (tokens older than
/// that get `valid-sync-token` refused, and the client starts over).
const SNAPSHOTS: usize = 16;

/// The collections' resources, listed once per cache generation (a
/// listing of 10,000 notes costs tens of milliseconds: clients polling an
/// unchanged calendar should not pay it again), and the sync tokens handed
/// out with what each collection held then, so a `sync-collection` report
/// can name what changed and what went away.
#[derive(Default)]
pub struct Listings {
    /// Calendar id → its latest listing.
    current: Mutex<HashMap<String, Listing>>,
    snapshots: Mutex<VecDeque<(String, Snapshot)>>,
}

impl Listings {
    /// The resources of calendar `id`, sorted by name; `None` if it does not
    /// exist.
    pub fn resources(&self, calendar: &Calendar, id: &str) -> Option<Arc<Collection>> {
        // Read before listing: a change during the listing leaves the entry
        // stale under the older generation, and the next request lists again.
        let generation = *calendar.subscribe().borrow();
        let current = || self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, resources)) = current().get(id)
            && *at == generation
        {
            return Some(resources.clone());
        }
        let before = current().get(id).map(|(_, before)| before.clone());
        let Some(resources) = relist::list(calendar, id, before.as_deref()).map(Arc::new) else {
            current().remove(id);
            return None;
        };
        current().insert(id.to_string(), (generation, resources.clone()));
        Some(resources)
    }

    /// The token of `resources` in calendar `id`, remembered.
    pub fn token(&self, id: &str, resources: &Collection) -> String {
        let token = resources.token(id, || sync_token(id, resources));
        let mut snapshots = self.snapshots.lock().unwrap_or_else(|p| p.into_inner());
        if !snapshots.iter().any(|(t, _)| *t == token) {
            let snapshot = resources
                .iter()
                .map(|r| (r.name.clone(), r.etag.clone()))
                .collect();
            snapshots.push_back((token.clone(), Arc::new(snapshot)));
            if snapshots.len() > SNAPSHOTS {
                snapshots.pop_front();
            }
        }
        token
    }

    /// What the collection held at `token`, if it is still known.
    pub fn snapshot(&self, token: &str) -> Option<Snapshot> {
        let snapshots = self.snapshots.lock().unwrap_or_else(|p| p.into_inner());
        snapshots
            .iter()
            .find(|(t, _)| t == token)
            .map(|(_, s)| s.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_safe_uids_and_hash_the_others() {
        assert_eq!(resource_name("abc-1@x.org"), "abc-1@x.org.ics");
        let odd = resource_name("fullnote:events/2024-01-01 Meeting.md");
        assert_eq!(odd.len(), 36);
        assert!(odd.ends_with(".ics"));
    }

    #[test]
    fn detached_notes_are_their_series_overrides_not_its_exdates() {
        let series = Event {
            id: "fullnote:events/Gym.md".into(),
            kind: EventType::Recurring,
            start_time: Some("07:00".into()),
            skip_dates: vec!["2026-01-08".into(), "2026-01-12".into()],
            ..Event::default()
        };
        let moved = Event {
            id: "fullnote:events/2026-01-12 Gym.md".into(),
            start_time: Some("18:00".into()),
            recurrence_id: Some("2026-01-12".into()),
            ..Event::default()
        };
        let events = with_detached(vec![moved.clone(), series]);
        assert_eq!(events[0].skip_dates, ["2026-01-08"]);
        assert_eq!(events[1], moved);
        let resource = ServedResource {
            name: "gym.ics".into(),
            etag: "".into(),
            uid: "gym".into(),
            events: events.into(),
            expanded: None,
            kept: Kept::default(),
        };
        assert_eq!(
            resource.recurrence_ids(),
            [None, Some("20260112T070000".to_string())]
        );
        // Without its series, a detached note is an event like any other.
        assert_eq!(with_detached(vec![moved.clone()]), [moved]);
    }

    #[test]
    fn feed_overrides_share_their_series_uid() {
        let master = Event {
            id: "ical:work::abc".into(),
            ..Event::default()
        };
        let moved = Event {
            id: "ical:work::abc::20240105T090000".into(),
            ..Event::default()
        };
        assert_eq!(served_uid(&master), "abc");
        assert_eq!(served_uid(&moved), "abc");
        assert_eq!(recurrence_id(&moved).as_deref(), Some("20240105T090000"));
        assert_eq!(recurrence_id(&master), None);
    }
}
