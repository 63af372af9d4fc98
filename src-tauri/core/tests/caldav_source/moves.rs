//! Moving events between a note calendar and a CalDAV calendar, both ways:
//! the event arrives on the server (or in the vault) and leaves where it
//! was; what the target could not hold (a note's body, an item's inline
//! fields, an event's attendees or alarms a note has no place for) is
//! refused and nothing changes.

use almanac_core::calendar::{CalendarError, EventFields, EventQuery};
use almanac_core::settings::KindSettings;
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

#[test]
fn a_daily_note_item_with_inline_fields_of_its_own_stays_out_of_caldav() {
    let server = Radicale::start();
    let setup = Setup::correct("moves-inline", &server).with_source(
        "daily",
        KindSettings::DailyNote {
            directory: "journal".into(),
            heading: "Events".into(),
        },
    );
    let journal = "## Events\n- Plain\n- Mine [project:: Apollo]\n";
    setup.vault.write("journal/2026-02-04.md", journal);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the first sync", |c| {
        setup.info(c).last_fetched.is_some()
    });
    let item = |title: &str| {
        let items = calendar.query(&EventQuery {
            calendars: Some(vec!["daily".into()]),
            ..Default::default()
        });
        items.into_iter().find(|e| e.title == title).unwrap().id
    };

    // `project` has no place in a CalDAV event: refused, as on the way
    // to a Full Note, and nothing changes on either side.
    let refused = calendar
        .move_to(&item("Mine"), &setup.id, EventFields::default())
        .unwrap_err();
    assert!(
        matches!(&refused, CalendarError::InvalidInput { field, reason }
            if field == "calendarId" && reason.contains("`project`")),
        "{refused:?}"
    );
    assert_eq!(setup.vault.read("journal/2026-02-04.md"), journal);
    assert!(!server.get("").unwrap().contains("Mine"));

    // An item without any moves.
    calendar
        .move_to(&item("Plain"), &setup.id, EventFields::default())
        .unwrap();
    assert!(server.get("").unwrap().contains("SUMMARY:Plain"));
    assert_eq!(
        setup.vault.read("journal/2026-02-04.md"),
        "## Events\n- Mine [project:: Apollo]\n"
    );
}

/// An invitation as a groupware server keeps it: who comes, who asked, a
/// file, an app's own property.
const INVITATION: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:invite\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260105T090000Z\r\n\
DURATION:PT1H\r\nSUMMARY:Kickoff\r\nORGANIZER;CN=Ann:mailto:ann@example.com\r\n\
ATTENDEE;PARTSTAT=ACCEPTED:mailto:alice@example.com\r\n\
ATTACH:https://files.example.com/agenda.pdf\r\nX-APP-COLOR:teal\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

/// An event whose one alarm Almanac does not read (relative to the end).
const END_ALARM: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:wrapup\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260106T090000Z\r\n\
DURATION:PT1H\r\nSUMMARY:Wrap-up\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Wrap-up\r\n\
TRIGGER;RELATED=END:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

/// An event with what a note keeps: an alarm before its start.
const START_ALARM: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260107T090000Z\r\n\
DURATION:PT1H\r\nSUMMARY:Standup\r\nCREATED:20251201T000000Z\r\nBEGIN:VALARM\r\n\
ACTION:DISPLAY\r\nDESCRIPTION:Standup\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

#[test]
fn a_caldav_event_with_what_a_note_cannot_keep_stays_on_the_server() {
    let server = Radicale::start();
    server.put("invite.ics", INVITATION);
    server.put("wrapup.ics", END_ALARM);
    server.put("standup.ics", START_ALARM);
    let setup = Setup::correct("moves-unmodeled", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the events", |c| {
        setup.titles(c) == ["Kickoff", "Standup", "Wrap-up"]
    });
    let id_of = |title: &str| {
        let events = setup.events(&calendar);
        events.into_iter().find(|e| e.title == title).unwrap().id
    };
    let before = server.get("").unwrap();

    let refused = calendar
        .move_to(&id_of("Kickoff"), "local", EventFields::default())
        .unwrap_err();
    let CalendarError::Conflict(reason) = &refused else {
        panic!("not a conflict: {refused:?}");
    };
    for name in ["ORGANIZER", "ATTENDEE", "ATTACH", "X-APP-COLOR"] {
        assert!(reason.contains(name), "{reason}");
    }
    assert!(!reason.contains("VALARM"), "{reason}");
    let refused = calendar
        .move_to(&id_of("Wrap-up"), "local", EventFields::default())
        .unwrap_err();
    assert!(refused.to_string().contains("(VALARM)"), "{refused}");
    assert_eq!(server.get("").unwrap(), before);
    assert!(!setup.vault.exists("events/2026-01-05 Kickoff.md"));
    assert!(!setup.vault.exists("events/2026-01-06 Wrap-up.md"));

    // What a note keeps moves, its alarm with it.
    calendar
        .move_to(&id_of("Standup"), "local", EventFields::default())
        .unwrap();
    assert_eq!(server.get("standup.ics"), None);
    let note = setup.vault.read("events/2026-01-07 Standup.md");
    assert!(note.contains("minutesBefore: 15"), "{note}");
}
