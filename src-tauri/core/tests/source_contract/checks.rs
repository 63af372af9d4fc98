//! The checks every kind runs through the engine, on a temp vault with the
//! kind's calendar and a Full Note calendar `local` (the other calendar of
//! a move).

use std::time::{Duration, Instant};

use almanac_core::calendar::kinds::Writes;
use almanac_core::calendar::{Calendar, CalendarError, Event, EventFields, EventQuery};
use chrono::NaiveDate;
use serde_json::json;

use crate::common::{TestVault, fields, wait_until};
use crate::fixtures::{Broken, KindFixture};

/// The title of the event each check puts into the kind.
pub const TITLE: &str = "Contract review";

/// The other calendar of the vault: Full Note, in `events/`.
const LOCAL: &str = "local";

/// The event's day: soon, so that it is inside the reminders' horizon.
pub fn day() -> NaiveDate {
    chrono::Utc::now().date_naive() + chrono::Duration::days(2)
}

/// A vault with the kind's calendar (its event in it) and `local`.
pub fn setup<F: KindFixture>() -> (F, TestVault) {
    let fixture = F::start();
    let vault = TestVault::new().with_source(&fixture.id(), fixture.source());
    fixture.put_event(&vault.vault(), TITLE, day());
    (fixture, vault)
}

/// The events of calendar `id` titled [`TITLE`], over the next weeks.
pub fn events_of(calendar: &Calendar, id: &str) -> Vec<Event> {
    let from = chrono::Utc::now() - chrono::Duration::days(7);
    let to = from + chrono::Duration::days(60);
    calendar
        .query(&EventQuery {
            start_millis: Some(from.timestamp_millis()),
            end_millis: Some(to.timestamp_millis()),
            calendars: Some(vec![id.to_string()]),
            ..EventQuery::default()
        })
        .into_iter()
        .filter(|event| event.title == TITLE)
        .collect()
}

/// Opens the vault's engine and waits until the kind's event is read
/// (fetched, for a remote kind).
pub fn open_until_read<F: KindFixture>(fixture: &F, vault: &TestVault) -> Calendar {
    let calendar = vault.open();
    calendar.revalidate(true);
    wait_until(&calendar, "the kind's event", |c| {
        !events_of(c, &fixture.id()).is_empty()
    });
    calendar
}

fn the_event(calendar: &Calendar, id: &str) -> Event {
    let mut events = events_of(calendar, id);
    assert_eq!(events.len(), 1, "one event in {id}: {events:?}");
    events.remove(0)
}

/// Re-checks `done` until it holds: for a server's state, which announces
/// no change to wait for.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + almanac_testkit::PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn ids_are_stable<F: KindFixture>() {
    let (fixture, vault) = setup::<F>();
    let first = open_until_read(&fixture, &vault);
    let before: Vec<String> = events_of(&first, &fixture.id())
        .into_iter()
        .map(|e| e.id)
        .collect();
    drop(first);
    let second = open_until_read(&fixture, &vault);
    let after: Vec<String> = events_of(&second, &fixture.id())
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before, after, "the same ids after a restart");
}

pub fn read_only_refuses<F: KindFixture>() {
    let (fixture, vault) = setup::<F>();
    let id = fixture.id();
    if !fixture.source().kind().read_only() {
        return;
    }
    let local_note = format!("events/{} Local.md", day());
    vault.write(
        &local_note,
        &format!("---\ntitle: Local\nallDay: true\ndate: {}\n---\n", day()),
    );
    let calendar = open_until_read(&fixture, &vault);
    let event = the_event(&calendar, &id);
    let local = crate::common::all(&calendar)
        .into_iter()
        .find(|e| e.title == "Local")
        .expect("the local event");
    let refusals = [
        calendar
            .create(
                &id,
                fields(json!({"title": "New", "date": day().to_string(), "allDay": true})),
            )
            .unwrap_err(),
        calendar
            .update(&event.id, fields(json!({"title": "Renamed"})))
            .unwrap_err(),
        calendar.delete(&event.id, None).unwrap_err(),
        calendar
            .move_to(&event.id, LOCAL, EventFields::default())
            .unwrap_err(),
        calendar
            .move_to(&local.id, &id, EventFields::default())
            .unwrap_err(),
    ];
    for refusal in refusals {
        assert!(
            matches!(&refusal, CalendarError::ReadOnly(calendar) if *calendar == id),
            "{refusal:?}"
        );
        assert_eq!(refusal.code(), "read_only");
    }
    assert_eq!(the_event(&calendar, &id).id, event.id, "nothing changed");
    assert!(vault.exists(&local_note));
}

pub fn edit_keeps_bytes<F: KindFixture>() {
    let (fixture, vault) = setup::<F>();
    if fixture.source().kind().read_only() {
        return;
    }
    let calendar = open_until_read(&fixture, &vault);
    let event = the_event(&calendar, &fixture.id());
    let before = fixture.stored(&vault.vault(), TITLE, day());
    let (patch, may_change) = fixture.edit();
    calendar.update(&event.id, fields(patch)).unwrap();
    let mut after = String::new();
    eventually("the stored event to change", || {
        after = fixture.stored(&vault.vault(), TITLE, day());
        after != before
    });
    let gone: Vec<&str> = before
        .lines()
        .filter(|l| !after.lines().any(|a| a == *l))
        .collect();
    let new: Vec<&str> = after
        .lines()
        .filter(|l| !before.lines().any(|b| b == *l))
        .collect();
    for line in gone.iter().chain(&new) {
        assert!(
            may_change(line),
            "line `{line}` changed; before:\n{before}\nafter:\n{after}"
        );
    }
    let unchanged = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !may_change(l))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(unchanged(&before), unchanged(&after), "in the same order");
}

pub fn moves<F: KindFixture>() {
    let (fixture, vault) = setup::<F>();
    let id = fixture.id();
    let calendar = open_until_read(&fixture, &vault);
    let event = the_event(&calendar, &id);
    let moved = calendar.move_to(&event.id, LOCAL, EventFields::default());
    match fixture.source().kind().writes() {
        Writes::ReadOnly => {
            assert!(
                matches!(moved, Err(CalendarError::ReadOnly(_))),
                "{moved:?}"
            );
        }
        Writes::TaskLines => {
            let refusal = moved.unwrap_err();
            assert!(
                matches!(&refusal, CalendarError::InvalidInput { field, .. } if field == "calendarId"),
                "{refusal:?}"
            );
            assert_eq!(the_event(&calendar, &id).id, event.id, "nothing changed");
        }
        Writes::Notes | Writes::Server => {
            let moved = moved.unwrap();
            assert_eq!(
                (moved.calendar_id.as_str(), moved.title.as_str()),
                (LOCAL, TITLE)
            );
            wait_until(&calendar, "the event gone from its calendar", |c| {
                events_of(c, &id).is_empty()
            });
            let back = calendar
                .move_to(&moved.id, &id, EventFields::default())
                .unwrap();
            assert_eq!(back.calendar_id, id);
            wait_until(&calendar, "the event back in its calendar", |c| {
                events_of(c, LOCAL).is_empty() && events_of(c, &id).len() == 1
            });
        }
    }
}

pub fn broken<F: KindFixture>() {
    let (mut fixture, vault) = setup::<F>();
    let id = fixture.id();
    let calendar = open_until_read(&fixture, &vault);
    let broken = fixture.break_source(&vault.vault(), day());
    calendar.revalidate(true);
    let info = |c: &Calendar| c.sources().into_iter().find(|s| s.id == id).unwrap();
    match &broken {
        Broken::LastError => wait_until(&calendar, "the status to name the problem", |c| {
            info(c).last_error.is_some()
        }),
        Broken::Skipped(path) => wait_until(&calendar, "the broken note skipped", |c| {
            c.stats()
                .recent_skips
                .iter()
                .any(|s| s.path.starts_with(path))
        }),
    }
    assert_eq!(events_of(&calendar, &id).len(), 1, "what it had is kept");
    let local = info_of(&calendar, LOCAL);
    assert_eq!(local.last_error, None, "the other calendar is fine");
}

fn info_of(calendar: &Calendar, id: &str) -> almanac_core::calendar::status::SourceInfo {
    calendar.sources().into_iter().find(|s| s.id == id).unwrap()
}
