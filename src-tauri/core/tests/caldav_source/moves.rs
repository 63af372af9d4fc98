//! Moving events between a note calendar and a CalDAV calendar, both ways:
//! the event arrives on the server (or in the vault) and leaves where it
//! was; what the target could not hold is refused and nothing changes.

use almanac_core::calendar::{CalendarError, EventFields};
use serde_json::json;

use crate::caldav_source::radicale::Radicale;
use crate::caldav_source::setup::Setup;

fn fields(value: serde_json::Value) -> EventFields {
    serde_json::from_value(value).unwrap()
}

const WEEKLY: &str = "---\ntitle: Review\ntype: rrule\nrrule: FREQ=WEEKLY;BYDAY=TU\n\
startDate: 2026-02-03\nallDay: false\nstartTime: \"10:00\"\nendTime: \"11:00\"\n\
skipDates: [2026-02-10]\ndescription: Bring the numbers\n---\n";

#[test]
fn a_note_moves_to_a_caldav_calendar_and_back() {
    let server = Radicale::start();
    let setup = Setup::correct("moves", &server);
    setup.vault.write("events/2026-02-03 Review.md", WEEKLY);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the first sync", |c| {
        setup.info(c).last_fetched.is_some()
    });

    let moved = calendar
        .move_to(
            "fullnote:events/2026-02-03 Review.md",
            &setup.id,
            EventFields::default(),
        )
        .unwrap();
    assert_eq!(moved.calendar_id, setup.id);
    assert!(!setup.vault.exists("events/2026-02-03 Review.md"));
    let whole = server.get("").unwrap().replace("\r\n ", "");
    assert!(whole.contains("SUMMARY:Review"), "{whole}");
    assert!(whole.contains("RRULE:FREQ=WEEKLY;BYDAY=TU"), "{whole}");
    assert!(
        whole.contains("EXDATE"),
        "the skipped day came along: {whole}"
    );
    assert!(whole.contains("DESCRIPTION:Bring the numbers"), "{whole}");

    // Back into the notes, renamed on the way.
    let back = calendar
        .move_to(
            &moved.id,
            "local",
            fields(json!({"title": "Weekly review"})),
        )
        .unwrap();
    assert_eq!(back.calendar_id, "local");
    assert_eq!(back.title, "Weekly review");
    assert!(!server.get("").unwrap().contains("Review"));
    let note = setup.vault.read("events/2026-02-03 Weekly review.md");
    assert!(note.contains("title: Weekly review\n"), "{note}");
    assert!(note.contains("FREQ=WEEKLY;BYDAY=TU"), "{note}");
    assert!(
        note.contains("2026-02-10"),
        "the skipped day is kept: {note}"
    );
    assert!(note.contains("description: Bring the numbers\n"), "{note}");
    assert!(setup.events(&calendar).is_empty());
}

#[test]
fn what_the_target_cannot_hold_is_refused_and_nothing_changes() {
    let server = Radicale::start();
    server.put("series.ics", crate::caldav_source::write::SERIES);
    let setup = Setup::correct("moves-refused", &server);
    let with_text = "---\ntitle: Plan\ndate: 2026-02-04\nallDay: true\n---\nAgenda:\n- budget\n";
    setup.vault.write("events/2026-02-04 Plan.md", with_text);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the series", |c| {
        setup.titles(c) == ["Weekly", "Weekly (moved)"]
    });
    let before = server.get("").unwrap();

    // A note with text of its own: a CalDAV event could not keep it.
    let refused = calendar
        .move_to(
            "fullnote:events/2026-02-04 Plan.md",
            &setup.id,
            EventFields::default(),
        )
        .unwrap_err();
    assert!(
        matches!(&refused, CalendarError::InvalidInput { field, .. } if field == "calendarId"),
        "{refused:?}"
    );
    assert_eq!(setup.vault.read("events/2026-02-04 Plan.md"), with_text);

    // A series with an occurrence edited on its own: a note could not
    // keep the override.
    let series = setup
        .events(&calendar)
        .into_iter()
        .find(|e| e.title == "Weekly")
        .unwrap();
    let refused = calendar
        .move_to(&series.id, "local", EventFields::default())
        .unwrap_err();
    assert!(
        refused.to_string().contains("edited on their own"),
        "{refused}"
    );
    assert_eq!(server.get("").unwrap(), before);
    assert!(!setup.vault.exists("events/2026-01-05 Weekly.md"));
}
