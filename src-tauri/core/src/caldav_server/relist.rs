//! A calendar's listing made again after a change, from the one before.
//!
//! Every change to the vault moves the cache to a new generation, and the
//! listing of each calendar with it. Made from nothing, a listing builds,
//! serializes and hashes every event of the calendar: some 100 ms for
//! 10,000 notes, paid by the first request after each edit. But the cache's
//! entries of unchanged notes are the same, shared entries from one
//! generation to the next ([`HeldEntry`]). So a listing remembers which
//! entries each resource was made of, and the next one carries a resource
//! over whole (its ETag, and its text if kept) when its entries are
//! exactly the same; only the resources of changed notes are built.
//!
//! Nothing is carried over when the calendar's configuration or the
//! display zone changed: both are part of what is served.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

use super::collection::{ServedResource, served_uid};
use super::kept::Collection;
use crate::calendar::{Calendar, EntryMemo, Event, MatchedEntry, Remembered};

/// What a listing was made of: each entry of the calendar with its
/// resource's `UID`, and each resource's entries.
#[derive(Debug)]
pub struct Made {
    entries: EntryMemo<Uid>,
    /// A resource's `UID` → its index in the listing, and where its
    /// entries' addresses are in `addresses` (ascending).
    by_uid: HashMap<Arc<str>, (usize, Range<usize>)>,
    addresses: Vec<usize>,
}

impl Made {
    /// The index of the resource holding `matched`, an entry of this
    /// listing's calendar (`None` for one it does not list).
    pub(crate) fn holding(&self, matched: &MatchedEntry) -> Option<usize> {
        let uid = &self.entries.get(matched.address())?.value.text;
        self.by_uid.get(uid).map(|(index, _)| *index)
    }

    /// The event of an entry this listing does not hold, as this
    /// listing's calendar shows it.
    pub(crate) fn event_of(&self, matched: &MatchedEntry) -> Event {
        matched.entry.event(self.entries.source(), &matched.path)
    }
}

/// A resource's `UID`, ordered by its hash first: what groups the
/// entries of one resource together without comparing long texts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Uid {
    hash: u64,
    text: Arc<str>,
}

impl Uid {
    fn new(text: String) -> Uid {
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        Uid {
            hash: hasher.finish(),
            text: text.into(),
        }
    }
}

/// The first eight bytes of `name` as a number in the same order: most
/// names are told apart by it alone.
fn leading(name: &str) -> u64 {
    let mut bytes = [0; 8];
    let head = &name.as_bytes()[..name.len().min(8)];
    bytes[..head.len()].copy_from_slice(head);
    u64::from_be_bytes(bytes)
}

/// The resources of calendar `id`, sorted by name, reusing what `before`
/// (its listing of an earlier generation) holds; `None` if it does not
/// exist.
pub fn list(calendar: &Calendar, id: &str, before: Option<&Collection>) -> Option<Collection> {
    let made_before = before.and_then(Collection::made);
    let entries = calendar.remember_entries(id, made_before.map(|m| &m.entries), |event| {
        Uid::new(served_uid(event))
    })?;
    let before = before
        .zip(made_before)
        .filter(|(_, made)| entries.continues(&made.entries));
    // Grouped by UID (compared by its hash first), each group's entries
    // in address order.
    let mut listed: Vec<(&Uid, usize, &Remembered<Uid>)> = entries
        .iter()
        .map(|(address, r)| (&r.value, address, r))
        .collect();
    listed.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let addresses: Vec<usize> = listed.iter().map(|(_, address, _)| *address).collect();
    let mut resources: Vec<(ServedResource, Range<usize>)> = Vec::new();
    let mut start = 0;
    for group in listed.chunk_by(|a, b| a.0 == b.0) {
        let range = start..start + group.len();
        start = range.end;
        let uid = &group[0].0.text;
        let same = before.and_then(|(collection, made)| {
            let (index, was) = made.by_uid.get(uid)?;
            (made.addresses[was.clone()] == addresses[range.clone()])
                .then(|| collection[*index].clone())
        });
        let resource = same.unwrap_or_else(|| {
            let mut events: Vec<Event> = group
                .iter()
                .map(|(_, _, remembered)| entries.event(remembered))
                .collect();
            events.sort_by(|a, b| a.id.cmp(&b.id));
            ServedResource::of(uid.clone(), events, entries.display_tz())
        });
        resources.push((resource, range));
    }
    // Sorted by name (each key worked out once, then each resource moved once).
    resources.sort_by_cached_key(|(r, _)| (leading(&r.name), r.name.clone()));
    let mut by_uid = HashMap::with_capacity(resources.len());
    let resources = resources
        .into_iter()
        .enumerate()
        .map(|(index, (resource, range))| {
            by_uid.insert(resource.uid.clone(), (index, range));
            resource
        })
        .collect();
    let made = Made {
        entries,
        by_uid,
        addresses,
    };
    Some(Collection::new(resources).made_of(made))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use chrono::NaiveDate;
    use chrono_tz::Tz;
    use serde_json::json;

    use super::*;
    use crate::calendar::EventFields;
    use crate::paths::Paths;
    use crate::settings::{CalendarSource, KindSettings, Settings};

    const NOTES: &[(&str, &str)] = &[
        (
            "2026-01-05 Standup.md",
            "---\ntitle: Standup\nallDay: false\ndate: 2026-01-05\nstartTime: \"09:00\"\nendTime: \"09:15\"\n---\n",
        ),
        (
            "2026-01-05 Gym.md",
            "---\ntitle: Gym\ntype: recurring\ndaysOfWeek: [M, R]\nstartRecur: 2026-01-01\n\
             allDay: false\nstartTime: \"07:00\"\nendTime: \"08:00\"\n---\n",
        ),
        (
            "2026-01-20 Offsite.md",
            "---\ntitle: Offsite\nallDay: true\ndate: 2026-01-20\nendDate: 2026-01-21\n---\n",
        ),
        (
            "2026-01-22 Review.md",
            "---\ntitle: Review\nallDay: false\ndate: 2026-01-22\nstartTime: \"14:00\"\nendTime: \"15:00\"\nuid: review@example.org\n---\n",
        ),
    ];

    fn fields(value: serde_json::Value) -> EventFields {
        serde_json::from_value(value).unwrap()
    }

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    /// Each resource as a client gets it: name, ETag and text.
    fn served(listing: &Collection, tz: Tz) -> Vec<(String, String, String)> {
        listing
            .iter()
            .map(|r| (r.name.to_string(), r.etag.to_string(), r.ics(tz)))
            .collect()
    }

    fn january() -> crate::calendar::EventQuery {
        crate::calendar::EventQuery {
            start_millis: Some(1_767_225_600_000),
            end_millis: Some(1_769_903_999_999),
            ..Default::default()
        }
    }

    /// The names of the resources January's entries are in.
    fn selected(calendar: &Calendar, listing: &Collection) -> BTreeSet<Arc<str>> {
        let entries = calendar.query_entries(&january()).unwrap();
        let holding = entries.iter().map(|m| listing.holding(m).unwrap());
        holding.map(|at| listing[at].name.clone()).collect()
    }

    /// The same, found from January's events.
    fn selected_by_events(calendar: &Calendar, listing: &Collection) -> BTreeSet<Arc<str>> {
        let events = calendar.query_checked(&january()).unwrap();
        let holding = events.iter().map(|e| listing.named(e).unwrap());
        holding.map(|at| listing[at].name.clone()).collect()
    }

    /// How many of `now`'s resources are `before`'s, carried over.
    fn carried(before: &Collection, now: &Collection) -> usize {
        now.iter()
            .filter(|r| before.iter().any(|b| Arc::ptr_eq(&b.events, &r.events)))
            .count()
    }

    /// After each kind of change (an edit, a detached occurrence, a deleted
    /// note and occurrence, a new note, an edit on disk, a renamed calendar),
    /// the listing made from the one before serves exactly what a listing
    /// made afresh serves, and the resources nothing touched are carried
    /// over with their kept texts.
    #[test]
    fn a_listing_made_from_the_one_before_serves_what_one_made_afresh_does() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        std::fs::create_dir_all(vault.join("events")).unwrap();
        for (name, text) in NOTES {
            std::fs::write(vault.join("events").join(name), text).unwrap();
        }
        let mut settings = Settings {
            vault_path: vault.clone(),
            display_timezone: "Europe/Berlin".into(),
            calendar_sources: vec![CalendarSource {
                id: "local".into(),
                name: "Local".into(),
                color: "#123456".into(),
                kind: KindSettings::FullNote {
                    directory: "events".into(),
                },
                order: None,
                components: None,
            }],
            ..Settings::default()
        };
        let calendar = Calendar::open(
            &settings,
            &Paths::new(dir.path().join("config"), dir.path().join("data")),
        );
        let tz = calendar.display_timezone();
        let series = "fullnote:events/2026-01-05 Gym.md";
        let edit_on_disk = vault.join("events/2026-01-20 Offsite.md");
        type Change<'a> = (&'a str, usize, Box<dyn Fn(&Calendar) + 'a>);
        let changes: Vec<Change> = vec![
            (
                "an edited title",
                1,
                Box::new(|c: &Calendar| {
                    c.update(
                        "fullnote:events/2026-01-05 Standup.md",
                        fields(json!({"title": "Standup (moved)"})),
                    )
                    .unwrap();
                }),
            ),
            (
                "a detached occurrence",
                1,
                Box::new(|c: &Calendar| {
                    c.update_occurrence(
                        series,
                        day("2026-01-08"),
                        fields(json!({"startTime": "18:00", "endTime": "19:00"})),
                    )
                    .unwrap();
                }),
            ),
            (
                "a deleted occurrence",
                1,
                Box::new(|c: &Calendar| {
                    c.delete(series, Some(day("2026-01-12"))).unwrap();
                }),
            ),
            (
                "a new note",
                1,
                Box::new(|c: &Calendar| {
                    c.create(
                        "local",
                        fields(json!({"title": "Lunch", "date": "2026-01-06", "allDay": true})),
                    )
                    .unwrap();
                }),
            ),
            (
                "a deleted note",
                1,
                Box::new(|c: &Calendar| {
                    c.delete("fullnote:events/2026-01-22 Review.md", None)
                        .unwrap();
                }),
            ),
            (
                "an edit on disk",
                1,
                Box::new(|c: &Calendar| {
                    let text = std::fs::read_to_string(&edit_on_disk).unwrap();
                    std::fs::write(&edit_on_disk, text.replace("Offsite", "Offsite (Lisbon)"))
                        .unwrap();
                    c.refresh_path(&edit_on_disk);
                }),
            ),
        ];
        let mut before = list(&calendar, "local", None).unwrap();
        for (change, touched, apply) in changes {
            // What requests would have written and kept.
            before.iter().for_each(|r| drop(r.calendar_data(tz)));
            apply(&calendar);
            let relisted = list(&calendar, "local", Some(&before)).unwrap();
            let afresh = list(&calendar, "local", None).unwrap();
            assert_eq!(served(&relisted, tz), served(&afresh, tz), "after {change}");
            for (carried, fresh) in relisted.iter().zip(afresh.iter()) {
                assert_eq!(carried.events, fresh.events, "after {change}");
                assert_eq!(carried.calendar_data(tz), fresh.calendar_data(tz));
            }
            assert_eq!(
                selected(&calendar, &relisted),
                selected_by_events(&calendar, &afresh),
                "after {change}"
            );
            let untouched = before.len().min(relisted.len()) - touched;
            assert!(
                carried(&before, &relisted) >= untouched,
                "after {change}: {} of {} carried over",
                carried(&before, &relisted),
                relisted.len()
            );
            assert!(
                relisted.iter().filter(|r| r.kept.is_kept()).count() >= untouched,
                "after {change}: kept texts carried over"
            );
            before = relisted;
        }

        // Renamed: the name is in every event, so nothing is carried over.
        settings.calendar_sources[0].name = "Renamed".into();
        calendar.apply_settings(&settings);
        let relisted = list(&calendar, "local", Some(&before)).unwrap();
        let afresh = list(&calendar, "local", None).unwrap();
        assert_eq!(served(&relisted, tz), served(&afresh, tz));
        assert_eq!(carried(&before, &relisted), 0);
        assert!(
            relisted
                .iter()
                .all(|r| r.events[0].calendar_name == "Renamed")
        );
    }
}
