//! Moves across CalDAV while the server does not answer: the source is
//! removed only once its copy is written where it goes. Into a CalDAV
//! calendar that takes the server, so the move is refused and nothing
//! changes; out of one, the note is written and the server's removal waits
//! in the queue.

use almanac_core::calendar::{CalendarError, EventFields};
use serde_json::json;

use crate::caldav_source::radicale::Radicale;
use crate::caldav_source::setup::{Setup, vevent};

const NOTE: &str = "---\ntitle: Review\ndate: 2026-02-04\nallDay: true\n---\n";

fn fields(value: serde_json::Value) -> EventFields {
    serde_json::from_value(value).unwrap()
}

#[test]
fn a_note_is_not_moved_to_a_caldav_calendar_the_server_cannot_take_it_now() {
    let mut server = Radicale::start();
    let setup = Setup::correct("move-offline", &server);
    setup.vault.write("events/2026-02-04 Review.md", NOTE);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the first sync", |c| {
        setup.info(c).last_fetched.is_some()
    });
    server.stop();

    let id = "fullnote:events/2026-02-04 Review.md";
    let refused = calendar
        .move_to(id, &setup.id, EventFields::default())
        .unwrap_err();
    assert!(
        matches!(&refused, CalendarError::Conflict(reason)
            if reason.contains("stays where it was") && reason.contains("cannot be reached")),
        "{refused:?}"
    );
    assert_eq!(setup.vault.read("events/2026-02-04 Review.md"), NOTE);
    assert!(setup.events(&calendar).is_empty(), "no copy is shown");

    // Behind a change that waits for the server, it is not sent either:
    // the replay could undo it.
    calendar
        .create(
            &setup.id,
            fields(json!({"title": "Offline", "date": "2026-02-05", "allDay": true})),
        )
        .unwrap();
    let refused = calendar
        .move_to(id, &setup.id, EventFields::default())
        .unwrap_err();
    assert!(refused.to_string().contains("earlier changes"), "{refused}");
    assert_eq!(setup.vault.read("events/2026-02-04 Review.md"), NOTE);

    // Once the server has the waiting change, the move goes through.
    server.resume();
    setup.sync_until(&calendar, "the replay", |c| {
        setup.info(c).last_error.is_none() && setup.titles(c) == ["Offline"]
    });
    calendar
        .move_to(id, &setup.id, EventFields::default())
        .unwrap();
    assert!(!setup.vault.exists("events/2026-02-04 Review.md"));
    assert!(server.get("").unwrap().contains("SUMMARY:Review"));
}

#[test]
fn a_caldav_event_moved_to_the_notes_offline_is_written_before_it_leaves() {
    let mut server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let setup = Setup::correct("move-offline-out", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the event", |c| setup.titles(c) == ["Standup"]);
    let id = setup.events(&calendar)[0].id.clone();
    server.stop();

    let moved = calendar
        .move_to(&id, "local", EventFields::default())
        .unwrap();
    assert_eq!(moved.calendar_id, "local");
    let note = setup.vault.read("events/2026-01-05 Standup.md");
    assert!(note.contains("title: Standup\n"), "{note}");
    assert!(setup.events(&calendar).is_empty());
    let waiting = setup.info(&calendar).last_error.unwrap_or_default();
    assert!(waiting.contains("1 change(s) wait"), "{waiting}");

    // The removal reaches the server when it answers; the note stays.
    server.resume();
    setup.sync_until(&calendar, "the replayed removal", |c| {
        setup.info(c).last_error.is_none()
    });
    assert_eq!(server.get("a.ics"), None);
    assert_eq!(setup.vault.read("events/2026-01-05 Standup.md"), note);
}
