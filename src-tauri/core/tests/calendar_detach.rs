//! One occurrence of a Full Note series changed on its own through the
//! engine (`update_occurrence`, `delete` with a date), in a real temp
//! vault: a detached note naming its series (`uid`) and the occurrence
//! (`recurrenceId`), the series skipping that date and keeping every other
//! byte; a second edit updates the same note; bad dates change nothing.

use crate::common;

use almanac_core::calendar::CalendarError;
use chrono::NaiveDate;
use common::*;
use serde_json::json;

const SERIES: &str = "events/2026-03-02 Review.md";
const SERIES_NOTE: &str = "---\ntitle: Review\nallDay: false\nstartTime: \"10:00\"\n\
endTime: \"11:00\"\ntype: recurring\ndaysOfWeek: [M]\nstartRecur: 2026-03-02\n\
class: private\nproject: apollo\n---\nAgenda stays.\n";

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

#[test]
fn an_edited_occurrence_becomes_a_detached_note_and_a_skipped_date() {
    let vault = TestVault::new();
    vault.write(SERIES, SERIES_NOTE);
    let cal = vault.open();
    let id = format!("fullnote:{SERIES}");
    let moved = cal
        .update_occurrence(
            &id,
            day("2026-03-09"),
            fields(json!({"date": "2026-03-10", "startTime": "14:00", "endTime": "15:00"})),
        )
        .unwrap();
    assert_eq!(moved.id, "fullnote:events/2026-03-10 Review.md");
    assert_eq!(moved.recurrence_id.as_deref(), Some("2026-03-09"));
    assert_eq!(moved.uid.as_deref(), Some(id.as_str()));
    let detached = vault.read("events/2026-03-10 Review.md");
    assert!(
        detached.contains("\nrecurrenceId: 2026-03-09\n"),
        "{detached}"
    );
    assert!(detached.contains("\nstartTime: \"14:00\"\n"), "{detached}");
    // Kept from the series, as its title is.
    assert!(detached.contains("\nclass: PRIVATE\n"), "{detached}");
    // The series: the skipped date and the UID added, every other byte kept.
    assert_eq!(
        vault.read(SERIES),
        SERIES_NOTE.replace(
            "project: apollo\n",
            &format!("project: apollo\nskipDates:\n- 2026-03-09\nuid: {id}\n")
        )
    );
    // That week shows the moved meeting only.
    let week = cal.query(&range("2026-03-09T00:00:00Z", "2026-03-15T23:59:59Z"));
    let starts: Vec<_> = week.iter().map(|e| e.start_millis).collect();
    assert_eq!(starts, [Some(ms("2026-03-10T14:00:00Z"))]);

    // A second edit of the occurrence updates the same note.
    let again = cal
        .update_occurrence(
            &id,
            day("2026-03-09"),
            fields(json!({"location": "Room 4"})),
        )
        .unwrap();
    assert_eq!(again.id, moved.id);
    assert_eq!(again.location.as_deref(), Some("Room 4"));
    assert_eq!(
        note_names(&vault.vault().join("events")).len(),
        2,
        "no second copy"
    );
}

#[test]
fn cancelling_a_detached_occurrence_deletes_its_note() {
    let vault = TestVault::new();
    vault.write(SERIES, SERIES_NOTE);
    let cal = vault.open();
    let id = format!("fullnote:{SERIES}");
    cal.update_occurrence(
        &id,
        day("2026-03-16"),
        fields(json!({"title": "Review (long)"})),
    )
    .unwrap();
    assert!(vault.exists("events/2026-03-16 Review (long).md"));
    cal.delete(&id, Some(day("2026-03-16"))).unwrap();
    assert!(!vault.exists("events/2026-03-16 Review (long).md"));
    let series = vault.read(SERIES);
    assert!(series.contains("skipDates:\n- 2026-03-16\n"), "{series}");
    // A plain occurrence is only skipped, without pinning a UID.
    cal.delete(&id, Some(day("2026-03-23"))).unwrap();
    let series = vault.read(SERIES);
    assert!(
        series.contains("skipDates:\n- 2026-03-16\n- 2026-03-23\n"),
        "{series}"
    );
}

/// The minutes someone wrote in an occurrence's own note are not deleted
/// because the occurrence is cancelled: the cancellation is refused (409)
/// naming the note, and changes nothing; deleting that note by its own id
/// is the delete that takes its text.
#[test]
fn cancelling_an_occurrence_whose_note_holds_minutes_keeps_them() {
    let vault = TestVault::new();
    vault.write(SERIES, SERIES_NOTE);
    let cal = vault.open();
    let id = format!("fullnote:{SERIES}");
    let detached = cal
        .update_occurrence(
            &id,
            day("2026-03-16"),
            fields(json!({"location": "Room 4"})),
        )
        .unwrap();
    let path = "events/2026-03-16 Review.md";
    // What a question before deleting the occurrence names (MCP's).
    assert_eq!(
        cal.detached_note(&id, day("2026-03-16")).as_deref(),
        Some(path)
    );
    assert_eq!(cal.detached_note(&id, day("2026-03-23")), None);
    let minutes = format!("{}\n## Minutes\n- Ada: ship on Friday\n", vault.read(path));
    vault.write(path, &minutes);
    let series_before = vault.read(SERIES);

    let refused = cal.delete(&id, Some(day("2026-03-16"))).unwrap_err();
    assert!(matches!(refused, CalendarError::Conflict(_)), "{refused:?}");
    let why = refused.to_string();
    assert!(why.contains(path) && why.contains(&detached.id), "{why}");
    assert!(cal.check_cancellable(&id, day("2026-03-16")).is_err());
    assert_eq!(
        vault.read(path),
        minutes,
        "the minutes are kept byte for byte"
    );
    assert_eq!(vault.read(SERIES), series_before, "the series is unchanged");

    // A note with no words of its own still goes with its occurrence.
    cal.delete(&id, Some(day("2026-03-23"))).unwrap();
    // The user deletes the note itself: its text goes, as asked.
    cal.delete(&detached.id, None).unwrap();
    assert!(!vault.exists(path));
}

#[test]
fn dates_the_series_does_not_have_and_single_events_are_refused() {
    let vault = TestVault::new();
    vault.write(SERIES, SERIES_NOTE);
    vault.write(
        "events/2026-03-04 Lunch.md",
        "---\ntitle: Lunch\nallDay: true\ndate: 2026-03-04\n---\n",
    );
    let cal = vault.open();
    let id = format!("fullnote:{SERIES}");
    // A Tuesday: the series meets on Mondays.
    let refused = cal.update_occurrence(&id, day("2026-03-10"), fields(json!({"title": "x"})));
    assert!(
        matches!(&refused, Err(CalendarError::InvalidInput { field, .. }) if field == "instanceDate"),
        "{refused:?}"
    );
    let refused = cal.update_occurrence(
        "fullnote:events/2026-03-04 Lunch.md",
        day("2026-03-04"),
        fields(json!({"title": "x"})),
    );
    assert!(matches!(refused, Err(CalendarError::InvalidInput { .. })));
    assert_eq!(vault.read(SERIES), SERIES_NOTE);
    assert_eq!(note_names(&vault.vault().join("events")).len(), 2);
}
