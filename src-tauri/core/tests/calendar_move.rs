//! Moving events between calendars through the engine, in a real temp vault:
//! a Full Note note moves with its own keys and body byte-for-byte, items
//! move between daily notes and to and from Full Note calendars, and a move
//! the target cannot hold is refused, naming `calendarId`, changing nothing.

use crate::common;

use almanac_core::calendar::CalendarError;
use almanac_core::settings::KindSettings;
use common::*;
use serde_json::json;

const NOTE: &str = "---\ntitle: Review\nallDay: true\ndate: 2024-05-01\nproject: \"Apollo\" # mine\n---\nAgenda:\n- budget\n";

fn vault() -> TestVault {
    TestVault::new()
        .with_source(
            "work",
            KindSettings::FullNote {
                directory: "work".into(),
            },
        )
        .with_source(
            "daily",
            KindSettings::DailyNote {
                directory: "journal".into(),
                heading: "Events".into(),
            },
        )
        .with_source(
            "diary",
            KindSettings::DailyNote {
                directory: "diary".into(),
                heading: "Plans".into(),
            },
        )
        .with_source(
            "feed",
            KindSettings::Ical {
                url: "http://127.0.0.1:9/feed.ics".into(),
                allow_private_network: true,
            },
        )
}

fn refused_by_calendar(err: CalendarError) {
    match err {
        CalendarError::InvalidInput { ref field, .. } if field == "calendarId" => {}
        CalendarError::ReadOnly(_) => {}
        other => panic!("not a refusal naming the calendar: {other}"),
    }
}

#[test]
fn a_full_note_moves_with_its_keys_and_body_and_the_patch() {
    let vault = vault();
    vault.write("events/2024-05-01 Review.md", NOTE);
    let cal = vault.open();
    let moved = cal
        .move_to(
            "fullnote:events/2024-05-01 Review.md",
            "work",
            fields(json!({"title": "Review"})),
        )
        .unwrap();
    assert_eq!(moved.id, "fullnote:work/2024-05-01 Review.md");
    assert_eq!(moved.calendar_id, "work");
    assert_eq!(vault.read("work/2024-05-01 Review.md"), NOTE);
    assert!(!vault.exists("events/2024-05-01 Review.md"));

    // A patch on the way renames it as an update would.
    let back = cal
        .move_to(&moved.id, "local", fields(json!({"date": "2024-05-02"})))
        .unwrap();
    assert_eq!(back.id, "fullnote:events/2024-05-02 Review.md");
    assert_eq!(
        vault.read("events/2024-05-02 Review.md"),
        NOTE.replace("date: 2024-05-01", "date: 2024-05-02")
    );
    assert_eq!(titles(&all(&cal)), ["Review"]);

    // Its own calendar: a plain update.
    let same = cal
        .move_to(&back.id, "local", fields(json!({"allDay": true})))
        .unwrap();
    assert_eq!(same.id, back.id);
}

#[test]
fn a_bare_note_becomes_a_daily_item_and_back() {
    let vault = vault();
    vault.write(
        "events/2024-05-01 Call.md",
        "---\ntitle: Call\nallDay: false\ndate: 2024-05-01\nstartTime: \"09:00\"\nendTime: \"09:30\"\n---\n",
    );
    vault.write("journal/2024-05-01.md", "# Wed\n\n## Events\n- Existing\n");
    let cal = vault.open();
    let item = cal
        .move_to(
            "fullnote:events/2024-05-01 Call.md",
            "daily",
            fields(json!({})),
        )
        .unwrap();
    assert_eq!(item.calendar_id, "daily");
    assert_eq!(item.title, "Call");
    assert_eq!(
        vault.read("journal/2024-05-01.md"),
        "# Wed\n\n## Events\n- Existing\n- Call [startTime:: 09:00] [endTime:: 09:30]\n"
    );
    assert!(!vault.exists("events/2024-05-01 Call.md"));

    // To another daily calendar (a new note there), then to a Full Note one.
    let diary = cal.move_to(&item.id, "diary", fields(json!({}))).unwrap();
    assert_eq!(diary.calendar_id, "diary");
    assert_eq!(
        vault.read("journal/2024-05-01.md"),
        "# Wed\n\n## Events\n- Existing\n"
    );
    assert!(
        vault
            .read("diary/2024-05-01.md")
            .starts_with("## Plans\n- Call ")
    );
    let note = cal
        .move_to(&diary.id, "work", fields(json!({"title": "Call Ann"})))
        .unwrap();
    assert_eq!(note.id, "fullnote:work/2024-05-01 Call Ann.md");
    assert_eq!(note.start_time.as_deref(), Some("09:00"));
    assert_eq!(vault.read("diary/2024-05-01.md"), "## Plans\n");
    assert_eq!(titles(&all(&cal)), ["Existing", "Call Ann"]);
}

#[test]
fn moves_that_would_lose_something_are_refused_and_change_nothing() {
    let vault = vault();
    vault.write("events/2024-05-01 Review.md", NOTE);
    vault.write(
        "events/2024-05-03 Weekly.md",
        "---\ntitle: Weekly\nallDay: true\ntype: recurring\ndaysOfWeek: [M]\nstartRecur: 2024-05-06\n---\n",
    );
    vault.write("journal/2024-05-01.md", "## Events\n- Mine [mood:: ok]\n");
    vault.write("work/2024-05-01 Review.md", "---\ntitle: Other\n---\n");
    let cal = vault.open();
    let before = note_names(&vault.vault().join("events"));
    let review = "fullnote:events/2024-05-01 Review.md";

    // Text of its own, a series, a feed, no such calendar.
    refused_by_calendar(cal.move_to(review, "daily", fields(json!({}))).unwrap_err());
    let series = cal
        .move_to(
            "fullnote:events/2024-05-03 Weekly.md",
            "daily",
            fields(json!({})),
        )
        .unwrap_err();
    assert!(
        matches!(&series, CalendarError::InvalidInput { field, .. } if field == "type"),
        "{series}"
    );
    refused_by_calendar(cal.move_to(review, "feed", fields(json!({}))).unwrap_err());
    refused_by_calendar(
        cal.move_to(review, "nowhere", fields(json!({})))
            .unwrap_err(),
    );
    // An item's own inline field has no place in a Full Note event.
    let item = all(&cal).into_iter().find(|e| e.title == "Mine").unwrap();
    refused_by_calendar(
        cal.move_to(&item.id, "work", fields(json!({})))
            .unwrap_err(),
    );
    // A note of that name in the target: a conflict, never a replacement.
    assert!(matches!(
        cal.move_to(review, "work", fields(json!({}))).unwrap_err(),
        CalendarError::Conflict(_)
    ));

    assert_eq!(note_names(&vault.vault().join("events")), before);
    assert_eq!(vault.read("events/2024-05-01 Review.md"), NOTE);
    assert_eq!(
        vault.read("journal/2024-05-01.md"),
        "## Events\n- Mine [mood:: ok]\n"
    );
    assert_eq!(
        vault.read("work/2024-05-01 Review.md"),
        "---\ntitle: Other\n---\n"
    );
}
