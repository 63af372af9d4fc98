//! Filling the feed: a thread that follows the calendar engine's generation
//! and, at each change, compares every calendar's events (series
//! unexpanded, by id and content) and status with what it saw before.
//!
//! Comparing snapshots rather than hooking each writer means every path
//! that changes the calendar is covered, the ones added later included.
//! Each snapshot is made from the one before ([`EntryMemo`]): only the
//! events of notes that changed are built and hashed again, so a change
//! costs a pass over the cached entries, not the serializing of every event.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use tokio::sync::watch;

use super::feed::{About, ChangeFeed, ChangeKind};
use crate::calendar::{Calendar, EntryMemo, SourceInfo, WeakCalendar};

/// Follows `calendar` on a thread of its own (ending when the engine is
/// dropped) and returns the feed it fills.
pub fn follow(calendar: &Calendar) -> ChangeFeed {
    let feed = ChangeFeed::default();
    // Subscribe before the first snapshot, so no change falls in between.
    let generations = calendar.subscribe();
    let seen = Snapshot::of(calendar, &Snapshot::default());
    let engine = calendar.downgrade();
    let filling = feed.clone();
    let spawned = std::thread::Builder::new()
        .name("almanac-changes".into())
        .spawn(
            move || match tokio::runtime::Builder::new_current_thread().build() {
                Ok(runtime) => runtime.block_on(fill(filling, engine, generations, seen)),
                Err(error) => tracing::error!(%error, "cannot follow calendar changes"),
            },
        );
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start following calendar changes");
    }
    feed
}

async fn fill(
    feed: ChangeFeed,
    engine: WeakCalendar,
    mut generations: watch::Receiver<u64>,
    mut seen: Snapshot,
) {
    while generations.changed().await.is_ok() {
        let Some(calendar) = engine.upgrade() else {
            return;
        };
        let now = Snapshot::of(&calendar, &seen);
        feed.push(seen.changes_to(&now));
        seen = now;
    }
}

/// What the feed compares: per calendar, its status and each event's
/// content hash.
#[derive(Debug, Default)]
struct Snapshot {
    calendars: BTreeMap<String, Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    status: u64,
    events: HashMap<Arc<str>, u64>,
    /// Each entry's event id and hash, for the next snapshot.
    read: Option<EntryMemo<(Arc<str>, u64)>>,
}

impl Snapshot {
    /// The calendar as it is now, read from what `before` read.
    fn of(calendar: &Calendar, before: &Snapshot) -> Self {
        let calendars = calendar
            .sources()
            .into_iter()
            .map(|source| {
                let read_before = before
                    .calendars
                    .get(&source.id)
                    .and_then(|seen| seen.read.as_ref());
                let read = calendar.remember_entries(&source.id, read_before, |event| {
                    let text = serde_json::to_vec(event).unwrap_or_default();
                    (Arc::<str>::from(event.id.as_str()), hash(&text))
                });
                let events = read
                    .iter()
                    .flat_map(|read| read.iter())
                    .map(|(_, entry)| entry.value.clone())
                    .collect();
                let seen = Seen {
                    status: status_hash(&source),
                    events,
                    read,
                };
                (source.id, seen)
            })
            .collect();
        Self { calendars }
    }

    /// The entries that take `self` to `now`: per calendar, its status, then
    /// its events created, updated and deleted (each sorted by id).
    fn changes_to(&self, now: &Snapshot) -> Vec<About> {
        let empty = Seen::default();
        let mut changes = Vec::new();
        let ids: std::collections::BTreeSet<&String> =
            self.calendars.keys().chain(now.calendars.keys()).collect();
        for id in ids {
            let before = self.calendars.get(id);
            let after = now.calendars.get(id);
            if before.map(|s| s.status) != after.map(|s| s.status) {
                changes.push(About::calendar(ChangeKind::CalendarStatus, id, None));
            }
            let (before, after) = (before.unwrap_or(&empty), after.unwrap_or(&empty));
            let mut events: Vec<(ChangeKind, &Arc<str>)> = Vec::new();
            for (event, content) in &after.events {
                match before.events.get(event) {
                    None => events.push((ChangeKind::EventCreated, event)),
                    Some(old) if old != content => events.push((ChangeKind::EventUpdated, event)),
                    Some(_) => {}
                }
            }
            for event in before.events.keys() {
                if !after.events.contains_key(event) {
                    events.push((ChangeKind::EventDeleted, event));
                }
            }
            events.sort_by(|a, b| a.1.cmp(b.1));
            changes.extend(
                events
                    .into_iter()
                    .map(|(kind, event)| About::calendar(kind, id, Some(event))),
            );
        }
        changes
    }
}

/// What makes a calendar's status: how it shows and whether it can be read.
fn status_hash(source: &SourceInfo) -> u64 {
    let mut hasher = DefaultHasher::new();
    (
        &source.name,
        &source.color,
        source.editable,
        &source.last_error,
    )
        .hash(&mut hasher);
    hasher.finish()
}

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A calendar's id, status hash, and its events' ids and hashes.
    type Calendar<'a> = (&'a str, u64, &'a [(&'a str, u64)]);

    fn snapshot(calendars: &[Calendar<'_>]) -> Snapshot {
        Snapshot {
            calendars: calendars
                .iter()
                .map(|(id, status, events)| {
                    let events = events.iter().map(|(e, h)| ((*e).into(), *h)).collect();
                    (
                        id.to_string(),
                        Seen {
                            status: *status,
                            events,
                            read: None,
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn created_updated_deleted_and_status_are_told_apart() {
        let before = snapshot(&[("a", 1, &[("x", 1), ("y", 1)]), ("gone", 1, &[("z", 1)])]);
        let after = snapshot(&[("a", 2, &[("x", 2), ("w", 1)]), ("new", 1, &[])]);
        let changes = before.changes_to(&after);
        let kinds: Vec<(ChangeKind, &str, Option<&str>)> = changes
            .iter()
            .map(|a| {
                let calendar = a.calendar_id.as_deref().unwrap_or_default();
                (a.kind, calendar, a.event_id.as_deref())
            })
            .collect();
        use ChangeKind::*;
        assert_eq!(
            kinds,
            [
                (CalendarStatus, "a", None),
                (EventCreated, "a", Some("w")),
                (EventUpdated, "a", Some("x")),
                (EventDeleted, "a", Some("y")),
                (CalendarStatus, "gone", None),
                (EventDeleted, "gone", Some("z")),
                (CalendarStatus, "new", None),
            ]
        );
        assert!(after.changes_to(&after).is_empty());
    }
}
