//! The checks every kind runs through the engine, on a temp vault with the
//! kind's calendar and a Full Note calendar `local` (the other calendar of
//! a move).

use std::time::{Duration, Instant};

use almanac_core::calendar::{Calendar, CalendarError, Event, EventFields, EventQuery};
use almanac_core::kinds::Writes;
use almanac_core::settings::SettingsStore;
use almanac_core::settings::class::Actor;
use chrono::NaiveDate;
use serde_json::json;

use crate::source_contract::common::{TestVault, fields, wait_until};
use crate::source_contract::fixtures::{Broken, KindFixture, Placed};

/// The title of the event each check puts into the kind.
pub const TITLE: &str = "Contract review";

/// The other calendar of the vault: Full Note, in `events/`.
const LOCAL: &str = "local";

/// The event's day: soon, so that it is inside the reminders' horizon.
pub fn day() -> NaiveDate {
    chrono::Utc::now().date_naive() + chrono::Duration::days(2)
}

/// A vault with the kind's calendar (its event in it, where the fixture
/// says) and `local`.
pub fn setup<F: KindFixture>() -> (F, TestVault, Placed) {
    let fixture = F::start();
    let vault = TestVault::new().with_source(&fixture.id(), fixture.source());
    let placed = fixture.put_event(&vault.vault(), TITLE, day());
    (fixture, vault, placed)
}

/// The events of calendar `id` titled as the contract's event, for a month
/// either side of its day.
pub fn events_of(calendar: &Calendar, id: &str, placed: &Placed) -> Vec<Event> {
    let day = placed.date.and_time(chrono::NaiveTime::MIN).and_utc();
    let from = day - chrono::Duration::days(30);
    let to = day + chrono::Duration::days(30);
    calendar
        .query(&EventQuery {
            start_millis: Some(from.timestamp_millis()),
            end_millis: Some(to.timestamp_millis()),
            calendars: Some(vec![id.to_string()]),
            ..EventQuery::default()
        })
        .into_iter()
        .filter(|event| event.title == placed.title)
        .collect()
}

/// Opens the vault's engine and waits until the kind's event is read
/// (fetched, for a remote kind).
pub fn open_until_read<F: KindFixture>(
    fixture: &F,
    vault: &TestVault,
    placed: &Placed,
) -> Calendar {
    let calendar = vault.open();
    calendar.revalidate(true);
    wait_until(&calendar, "the kind's event", |c| {
        !events_of(c, &fixture.id(), placed).is_empty()
    });
    calendar
}

fn the_event(calendar: &Calendar, id: &str, placed: &Placed) -> Event {
    let mut events = events_of(calendar, id, placed);
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
    let (fixture, vault, placed) = setup::<F>();
    let first = open_until_read(&fixture, &vault, &placed);
    let before: Vec<String> = events_of(&first, &fixture.id(), &placed)
        .into_iter()
        .map(|e| e.id)
        .collect();
    drop(first);
    let second = open_until_read(&fixture, &vault, &placed);
    let after: Vec<String> = events_of(&second, &fixture.id(), &placed)
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before, after, "the same ids after a restart");
}

pub fn read_only_refuses<F: KindFixture>() {
    let (fixture, vault, placed) = setup::<F>();
    let id = fixture.id();
    if !fixture.source().kind().read_only() {
        // A writable kind: its edit is not refused as read-only.
        let calendar = open_until_read(&fixture, &vault, &placed);
        let event = the_event(&calendar, &id, &placed);
        let edited = calendar.update(&event.id, fields(fixture.edit().0));
        assert!(
            !matches!(edited, Err(CalendarError::ReadOnly(_))),
            "a writable kind refused an edit as read-only: {edited:?}"
        );
        return;
    }
    let local_note = format!("events/{} Local.md", day());
    vault.write(
        &local_note,
        &format!("---\ntitle: Local\nallDay: true\ndate: {}\n---\n", day()),
    );
    let calendar = open_until_read(&fixture, &vault, &placed);
    let event = the_event(&calendar, &id, &placed);
    let local = crate::source_contract::common::all(&calendar)
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
    assert_eq!(
        the_event(&calendar, &id, &placed).id,
        event.id,
        "nothing changed"
    );
    assert!(vault.exists(&local_note));
}

pub fn edit_keeps_bytes<F: KindFixture>() {
    let (fixture, vault, placed) = setup::<F>();
    let calendar = open_until_read(&fixture, &vault, &placed);
    let event = the_event(&calendar, &fixture.id(), &placed);
    if fixture.source().kind().read_only() {
        // Nothing to keep: the edit is refused, and the event is as it was.
        let refused = calendar.update(&event.id, fields(fixture.edit().0));
        assert!(
            matches!(refused, Err(CalendarError::ReadOnly(_))),
            "{refused:?}"
        );
        assert_eq!(the_event(&calendar, &fixture.id(), &placed), event);
        return;
    }
    let before = fixture.stored(&vault.vault(), &placed.title, placed.date);
    let (patch, may_change) = fixture.edit();
    calendar.update(&event.id, fields(patch)).unwrap();
    let mut after = String::new();
    eventually("the stored event to change", || {
        after = fixture.stored(&vault.vault(), &placed.title, placed.date);
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
    let (fixture, vault, placed) = setup::<F>();
    let id = fixture.id();
    let calendar = open_until_read(&fixture, &vault, &placed);
    let event = the_event(&calendar, &id, &placed);
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
            assert_eq!(
                the_event(&calendar, &id, &placed).id,
                event.id,
                "nothing changed"
            );
        }
        // The contract's remote event holds what a note cannot keep (an
        // `X-` property, an alarm relative to its end): refused, nothing
        // changed. Plain events go there and back in `caldav_source::moves`.
        Writes::Server => {
            let refusal = moved.unwrap_err();
            assert!(
                matches!(&refusal, CalendarError::Conflict(reason)
                    if reason.contains("X-CONTRACT-NOTE") && reason.contains("VALARM")),
                "{refusal:?}"
            );
            assert_eq!(
                the_event(&calendar, &id, &placed).id,
                event.id,
                "nothing changed"
            );
        }
        Writes::Notes => {
            let moved = moved.unwrap();
            assert_eq!(
                (moved.calendar_id.as_str(), moved.title.as_str()),
                (LOCAL, placed.title.as_str())
            );
            wait_until(&calendar, "the event gone from its calendar", |c| {
                events_of(c, &id, &placed).is_empty()
            });
            let back = calendar
                .move_to(&moved.id, &id, EventFields::default())
                .unwrap();
            assert_eq!(back.calendar_id, id);
            wait_until(&calendar, "the event back in its calendar", |c| {
                events_of(c, LOCAL, &placed).is_empty() && events_of(c, &id, &placed).len() == 1
            });
        }
    }
}

pub fn broken<F: KindFixture>() {
    let (mut fixture, vault, placed) = setup::<F>();
    let id = fixture.id();
    let calendar = open_until_read(&fixture, &vault, &placed);
    let broken = fixture.break_source(&vault.vault(), placed.date);
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
        Broken::Refused { source, field } => {
            refused_by_settings(&calendar, &vault, &id, &placed, source, field)
        }
    }
    assert_eq!(
        events_of(&calendar, &id, &placed).len(),
        1,
        "what it had is kept"
    );
    let local = info_of(&calendar, LOCAL);
    assert_eq!(local.last_error, None, "the other calendar is fine");
}

fn info_of(calendar: &Calendar, id: &str) -> almanac_core::calendar::SourceInfo {
    calendar.sources().into_iter().find(|s| s.id == id).unwrap()
}

/// A source that cannot break once configured: a change naming what would
/// break it is refused, naming the field, and it keeps its event. A
/// settings file already naming it (written before an update dropped it
/// from the shipped data) loads whole and untouched, and handed to the
/// engine, the status names the problem and nothing panics; the settings it
/// had bring the event back.
fn refused_by_settings(
    calendar: &Calendar,
    vault: &TestVault,
    id: &str,
    placed: &Placed,
    source: &almanac_core::settings::KindSettings,
    field: &str,
) {
    let mut settings = vault.settings.clone();
    let index = settings
        .calendar_sources
        .iter()
        .position(|s| s.id == id)
        .unwrap();
    settings.calendar_sources[index].kind = source.clone();
    let named = format!("calendarSources[{index}].{field}");
    let refusal = settings.validate().unwrap_err().to_string();
    assert!(
        refusal.contains(&named),
        "the settings name the field: {refusal}"
    );

    let config = tempfile::tempdir().unwrap();
    let file = config.path().join("settings.json");
    let store = SettingsStore::open(&file).unwrap();
    store
        .replace(Actor::User, vault.settings.clone())
        .expect("the working settings are taken");
    let sources = serde_json::to_value(&settings.calendar_sources).unwrap();
    let refusal = store
        .update(Actor::User, &json!({ "calendarSources": sources }))
        .unwrap_err()
        .to_string();
    assert!(
        refusal.contains(&named),
        "a change names the field: {refusal}"
    );
    assert_eq!(
        *store.get(),
        vault.settings,
        "a refused change changes nothing"
    );
    assert_eq!(events_of(calendar, id, placed).len(), 1, "nothing changed");
    assert_eq!(info_of(calendar, id).last_error, None);

    let bytes = serde_json::to_vec_pretty(&settings).unwrap();
    std::fs::write(&file, &bytes).unwrap();
    let loaded = SettingsStore::open(&file).unwrap().get();
    assert_eq!(*loaded, settings, "a file naming it loads whole");
    assert_eq!(std::fs::read(&file).unwrap(), bytes, "and is not rewritten");
    calendar.apply_settings(&loaded);
    wait_until(calendar, "the status to name the problem", |c| {
        info_of(c, id).last_error.is_some()
    });
    calendar.apply_settings(&vault.settings);
    wait_until(calendar, "the event back with the settings it had", |c| {
        events_of(c, id, placed).len() == 1 && info_of(c, id).last_error.is_none()
    });
}
