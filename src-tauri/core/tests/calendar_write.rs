//! Writes through the calendar engine into a real temp vault: creates,
//! updates that keep unknown keys and the body byte-for-byte, renames,
//! deletes, suppressed occurrences, conflicts, bad input and every path
//! escape we know of.

use crate::common;

use almanac_core::calendar::{CalendarError, EventFields};
use chrono::NaiveDate;
use common::*;
use serde_json::json;

#[test]
fn create_writes_a_named_note_and_is_visible_at_once() {
    let vault = TestVault::new();
    let cal = vault.open();
    let event = cal
        .create(
            "local",
            fields(json!({"title": "Team sync", "date": "2024-05-01", "startTime": "09:00", "endTime": "10:00", "allDay": false})),
        )
        .unwrap();
    assert_eq!(event.id, "fullnote:events/2024-05-01 Team sync.md");
    assert_eq!(event.start_millis, Some(ms("2024-05-01T09:00:00Z")));
    let text = vault.read("events/2024-05-01 Team sync.md");
    assert!(
        text.starts_with("---\ntitle: Team sync\nallDay: false\ndate: 2024-05-01\n"),
        "{text}"
    );
    // No watcher round trip needed: the cache already has it.
    assert_eq!(
        titles(&cal.query(&range("2024-05-01T00:00:00Z", "2024-05-01T23:59:59Z"))),
        ["Team sync"]
    );
    let details = cal.details(&event.id).unwrap();
    assert_eq!(details.calendar_id, "local");
    let json = serde_json::to_value(&details).unwrap();
    assert_eq!(
        json["location"]["file"]["path"],
        "events/2024-05-01 Team sync.md"
    );
    assert_eq!(json["location"]["lineNumber"], 0);
    assert_eq!(json["event"]["title"], "Team sync");
    assert_eq!(json["calendarId"], "local");
}

#[test]
fn duplicates_conflict_and_unsafe_titles_stay_in_the_folder() {
    let vault = TestVault::new();
    let cal = vault.open();
    let f = || fields(json!({"title": "Lunch", "date": "2024-05-01", "allDay": true}));
    cal.create("local", f()).unwrap();
    let err = cal.create("local", f()).unwrap_err();
    assert!(matches!(err, CalendarError::Conflict(_)), "{err}");
    let odd = cal
        .create(
            "local",
            fields(json!({"title": "../../etc/pa:ss*?<>|", "date": "2024-05-02", "allDay": true})),
        )
        .unwrap();
    assert_eq!(odd.id, "fullnote:events/2024-05-02 .._.._etc_pa_ss_____.md");
    assert_eq!(odd.title, "../../etc/pa:ss*?<>|");
    assert_eq!(note_names(&vault.vault().join("events")).len(), 2);
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let vault = TestVault::new();
    let cal = vault.open();
    let cases = [
        json!({"title": "", "date": "2024-05-01"}),
        json!({"title": "x"}),
        json!({"title": "x", "date": "2024-5-1"}),
        json!({"title": "x", "date": "2024-05-01", "startTime": "25:00"}),
        json!({"title": "x", "date": "2024-05-01", "endDate": "2024-04-01", "allDay": true}),
        json!({"title": "a\u{0}b", "date": "2024-05-01"}),
        json!({"title": "a\nb", "date": "2024-05-01"}),
        json!({"title": "x", "type": "recurring", "allDay": true}),
        json!({"title": "x", "type": "rrule", "startDate": "2024-05-01", "rrule": "FREQ=SOMETIMES", "allDay": true}),
        json!({"title": "x", "date": "2024-05-01", "timezone": "Mars/Olympus", "startTime": "09:00"}),
        json!({"title": "x", "date": "2024-05-01", "completed": "whenever", "allDay": true}),
        json!({"title": "x".repeat(600), "date": "2024-05-01", "allDay": true}),
    ];
    for case in cases {
        let err = cal.create("local", fields(case.clone())).unwrap_err();
        assert!(
            matches!(err, CalendarError::InvalidInput { .. }),
            "{case}: {err}"
        );
    }
    let unknown_calendar = cal
        .create("nope", fields(json!({"title": "x", "date": "2024-05-01"})))
        .unwrap_err();
    assert!(matches!(
        unknown_calendar,
        CalendarError::InvalidInput { .. }
    ));
    assert!(note_names(&vault.vault().join("events")).is_empty());
    assert_eq!(cal.stats().events, 0);
    // Unknown keys are refused at the wire; read-only echo fields are not.
    let unknown =
        serde_json::from_value::<EventFields>(json!({"title": "x", "colour": "red"})).unwrap_err();
    assert!(unknown.to_string().contains("colour"), "{unknown}");
    serde_json::from_value::<EventFields>(
        json!({"title": "x", "id": "fullnote:a.md", "startMillis": 1, "calendarName": "y"}),
    )
    .unwrap();
}

const HAND_WRITTEN: &str = "---\n# my own comment\ntitle: Dentist\ntags: [health,  teeth]   # spacing kept\nallDay: false\ndate: 2024-05-01\nstartTime: \"08:00\"\nendTime: 09:00\nmood: 'calm'\nattendees:\n  - ann\n  - bob\n---\n\n# Notes\n\nBring  the   card.\r\nTrailing spaces   \n\n---\nnot frontmatter: true\n";

#[test]
fn updates_keep_unknown_keys_and_the_body_byte_for_byte() {
    let vault = TestVault::new();
    vault.write("events/dentist.md", HAND_WRITTEN);
    let cal = vault.open();
    let id = "fullnote:events/dentist.md";
    let updated = cal
        .update(
            id,
            fields(json!({"startTime": "08:30", "endTime": "09:30"})),
        )
        .unwrap();
    assert_eq!(updated.id, id, "only the time changed: same file");
    assert_eq!(updated.start_millis, Some(ms("2024-05-01T08:30:00Z")));
    let text = vault.read("events/dentist.md");
    let expected = HAND_WRITTEN
        .replace("startTime: \"08:00\"", "startTime: \"08:30\"")
        .replace("endTime: 09:00", "endTime: 09:30");
    assert_eq!(text, expected);
    let body = &HAND_WRITTEN[HAND_WRITTEN.find("---\n\n# Notes").unwrap() + 4..];
    assert!(text.ends_with(body));
}

#[test]
fn title_or_date_changes_rename_the_note() {
    let vault = TestVault::new();
    vault.write("events/dentist.md", HAND_WRITTEN);
    let cal = vault.open();
    let moved = cal
        .update(
            "fullnote:events/dentist.md",
            fields(json!({"title": "Dentist (moved)", "date": "2024-05-03"})),
        )
        .unwrap();
    assert_eq!(moved.id, "fullnote:events/2024-05-03 Dentist (moved).md");
    assert!(!vault.exists("events/dentist.md"));
    let text = vault.read("events/2024-05-03 Dentist (moved).md");
    assert!(text.contains("tags: [health,  teeth]   # spacing kept\n"));
    assert!(text.contains("mood: 'calm'\nattendees:\n  - ann\n  - bob\n"));
    assert!(text.ends_with("Trailing spaces   \n\n---\nnot frontmatter: true\n"));
    assert!(matches!(
        cal.details("fullnote:events/dentist.md"),
        Err(CalendarError::NotFound(_))
    ));
    assert_eq!(cal.details(&moved.id).unwrap().event.date, "2024-05-03");
    // Moving onto an existing note is a conflict and changes nothing.
    cal.create(
        "local",
        fields(json!({"title": "Taken", "date": "2024-06-01", "allDay": true})),
    )
    .unwrap();
    let err = cal
        .update(
            &moved.id,
            fields(json!({"title": "Taken", "date": "2024-06-01"})),
        )
        .unwrap_err();
    assert!(matches!(err, CalendarError::Conflict(_)), "{err}");
    assert_eq!(vault.read("events/2024-05-03 Dentist (moved).md"), text);
}

#[test]
fn tasks_toggle_and_types_convert() {
    let vault = TestVault::new();
    let cal = vault.open();
    let e = cal
        .create(
            "local",
            fields(
                json!({"title": "Call", "date": "2024-05-01", "allDay": true, "completed": false}),
            ),
        )
        .unwrap();
    assert!(e.is_task() && !e.is_completed());
    let done = cal
        .update(&e.id, fields(json!({"completed": true})))
        .unwrap();
    assert!(done.is_completed());
    assert!(
        vault
            .read("events/2024-05-01 Call.md")
            .contains("completed: ")
    );
    let plain = cal.update(&e.id, fields(json!({"isTask": false}))).unwrap();
    assert!(!plain.is_task());
    assert!(
        !vault
            .read("events/2024-05-01 Call.md")
            .contains("completed")
    );
    let weekly = cal
        .update(
            &e.id,
            fields(
                json!({"type": "recurring", "daysOfWeek": ["M", "W"], "startRecur": "2024-05-01"}),
            ),
        )
        .unwrap();
    assert_eq!(weekly.kind, almanac_core::calendar::EventType::Recurring);
    let text = vault.read("events/2024-05-01 Call.md");
    assert!(
        text.contains("type: recurring\n") && text.contains("daysOfWeek:\n- M\n- W\n"),
        "{text}"
    );
    assert!(
        !text.contains("\ndate:"),
        "a series carries no single date: {text}"
    );
}

#[test]
fn delete_removes_and_instance_delete_skips_one_occurrence() {
    let vault = TestVault::new();
    vault.write(
        "events/yoga.md",
        "---\ntitle: Yoga\ntype: rrule\nrrule: FREQ=DAILY\nstartDate: 2024-05-01\nallDay: true\nextra: kept\n---\nbody\n",
    );
    vault.write(
        "events/once.md",
        "---\ntitle: Once\ndate: 2024-05-01\n---\n",
    );
    let cal = vault.open();
    let day =
        |d: &str| titles(&cal.query(&range(&format!("{d}T00:00:00Z"), &format!("{d}T23:59:59Z"))));
    assert!(day("2024-05-02").contains(&"Yoga".to_string()));
    cal.delete(
        "fullnote:events/yoga.md",
        NaiveDate::from_ymd_opt(2024, 5, 2),
    )
    .unwrap();
    assert!(!day("2024-05-02").contains(&"Yoga".to_string()));
    assert!(day("2024-05-03").contains(&"Yoga".to_string()));
    let text = vault.read("events/yoga.md");
    assert!(
        text.contains("skipDates:\n- 2024-05-02\n")
            && text.contains("extra: kept\n")
            && text.ends_with("---\nbody\n"),
        "{text}"
    );
    let err = cal
        .delete(
            "fullnote:events/once.md",
            NaiveDate::from_ymd_opt(2024, 5, 1),
        )
        .unwrap_err();
    assert!(matches!(err, CalendarError::InvalidInput { .. }));
    cal.delete("fullnote:events/once.md", None).unwrap();
    assert!(!vault.exists("events/once.md"));
    assert!(!day("2024-05-01").contains(&"Once".to_string()));
    assert!(matches!(
        cal.delete("fullnote:events/once.md", None),
        Err(CalendarError::NotFound(_))
    ));
}

#[test]
fn path_escapes_are_refused() {
    let vault = TestVault::new();
    let outside = vault.dir.path().join("outside.md");
    std::fs::write(
        &outside,
        "---\ntitle: Secret\ndate: 2024-05-01\n---\nsecret\n",
    )
    .unwrap();
    let outside_dir = vault.dir.path().join("outside-dir");
    std::fs::create_dir_all(&outside_dir).unwrap();
    std::fs::write(
        outside_dir.join("n.md"),
        "---\ntitle: Secret2\ndate: 2024-05-01\n---\n",
    )
    .unwrap();
    std::fs::create_dir_all(vault.vault().join("events")).unwrap();
    std::os::unix::fs::symlink(&outside, vault.vault().join("events/link.md")).unwrap();
    std::os::unix::fs::symlink(&outside_dir, vault.vault().join("events/linkdir")).unwrap();
    let cal = vault.open();
    // Symlinked notes are never indexed, so nothing outside leaks into reads.
    assert!(all(&cal).is_empty());
    let f = || fields(json!({"title": "Pwned"}));
    for id in [
        "fullnote:../../x",
        "fullnote:../outside.md",
        "fullnote:/etc/passwd",
        "fullnote:events/../../outside.md",
        "fullnote:events/a\u{0}b.md",
        "fullnote:events\\..\\..\\outside.md",
        "fullnote:events/link.md",
        "fullnote:events/linkdir/n.md",
        "dailynote:../../x.md::abcd",
    ] {
        let update = cal.update(id, f()).unwrap_err();
        assert!(
            matches!(update, CalendarError::PathEscape(_)),
            "update {id:?}: {update}"
        );
        let delete = cal.delete(id, None).unwrap_err();
        assert!(
            matches!(delete, CalendarError::PathEscape(_)),
            "delete {id:?}: {delete}"
        );
    }
    for id in [
        "fullnote:../../x",
        "fullnote:/etc/passwd",
        "fullnote:a\u{0}b",
    ] {
        assert!(
            matches!(cal.details(id), Err(CalendarError::PathEscape(_))),
            "details {id:?}"
        );
    }
    assert!(outside.exists());
    assert!(
        std::fs::read_to_string(&outside)
            .unwrap()
            .contains("Secret")
    );
    // A source folder that is itself a symlink out of the vault cannot be
    // written through either.
    let vault2 = TestVault::new();
    std::fs::create_dir_all(vault2.vault()).unwrap();
    std::os::unix::fs::symlink(&outside_dir, vault2.vault().join("events")).unwrap();
    let cal2 = vault2.open();
    let err = cal2
        .create(
            "local",
            fields(json!({"title": "Out", "date": "2024-05-01", "allDay": true})),
        )
        .unwrap_err();
    assert!(matches!(err, CalendarError::PathEscape(_)), "{err}");
    assert_eq!(note_names(&outside_dir), ["n.md"]);
}

#[test]
fn unknown_ids_are_not_found() {
    let vault = TestVault::new();
    let cal = vault.open();
    for id in [
        "",
        "nope",
        "fullnote:events/missing.md",
        "dailynote:x",
        "dailynote:d/2024-01-01.md::00",
        "ical:x",
    ] {
        assert!(
            matches!(cal.details(id), Err(CalendarError::NotFound(_))),
            "{id:?}"
        );
        assert!(
            matches!(
                cal.update(id, EventFields::default()),
                Err(CalendarError::NotFound(_))
            ),
            "{id:?}"
        );
    }
}

#[test]
fn changed_values_keep_their_quoting() {
    let vault = TestVault::new();
    let note = "---\ntitle: Standup\nallDay: false\ndate: 2024-05-01\nstartTime: \"09:30\"\nendTime: '09:45'\ncategory: work\nowner: \"me\"   # kept as written\n---\nBody  \r\nstays.\n";
    vault.write("events/standup.md", note);
    let cal = vault.open();
    cal.update(
        "fullnote:events/standup.md",
        fields(json!({"startTime": "10:00", "endTime": "10:30", "category": "focus"})),
    )
    .unwrap();
    let expected = note
        .replace("startTime: \"09:30\"", "startTime: \"10:00\"")
        .replace("endTime: '09:45'", "endTime: '10:30'")
        .replace("category: work", "category: focus");
    assert_eq!(vault.read("events/standup.md"), expected);
}

#[test]
fn plain_times_are_quoted_where_plain_would_read_as_a_number() {
    let vault = TestVault::new();
    // `09:00` is a string to every YAML reader; `10:00` is the integer 600
    // to a YAML 1.1 one.
    let note = "---\ntitle: Early\ndate: 2024-05-01\nstartTime: 08:00\nendTime: 09:00\n---\n";
    vault.write("events/early.md", note);
    let cal = vault.open();
    cal.update(
        "fullnote:events/early.md",
        fields(json!({"startTime": "09:00", "endTime": "10:00"})),
    )
    .unwrap();
    assert_eq!(
        vault.read("events/early.md"),
        "---\ntitle: Early\ndate: 2024-05-01\nstartTime: 09:00\nendTime: \"10:00\"\n---\n"
    );
}

#[test]
fn new_times_are_written_double_quoted() {
    let vault = TestVault::new();
    vault.write(
        "events/day.md",
        "---\ntitle: Day\nallDay: true\ndate: 2024-05-01\n---\n",
    );
    let cal = vault.open();
    cal.update(
        "fullnote:events/day.md",
        fields(json!({"allDay": false, "startTime": "10:00", "endTime": "11:15"})),
    )
    .unwrap();
    assert_eq!(
        vault.read("events/day.md"),
        "---\ntitle: Day\nallDay: false\ndate: 2024-05-01\nstartTime: \"10:00\"\nendTime: \"11:15\"\n---\n"
    );
    let created = cal
        .create(
            "local",
            fields(json!({"title": "Call", "date": "2024-05-02", "startTime": "09:00", "allDay": false})),
        )
        .unwrap();
    let text = vault.read(created.id.strip_prefix("fullnote:").unwrap());
    assert!(text.contains("\nstartTime: \"09:00\"\n"), "{text}");
}

/// The names the staging files had before they were random: a symlink
/// planted at one of them (in a synced or shared vault) used to receive the
/// note's bytes.
fn plant_symlinks_at_old_temp_names(dir: &std::path::Path, note: &str, target: &std::path::Path) {
    let pid = std::process::id();
    for n in 0..1000 {
        for name in [
            format!(".{note}.{pid}-{n}.tmp"),
            format!(".almanac-new.{pid}-{n}.tmp"),
            format!("..almanac-new.{pid}-{n}.tmp.{pid}-{}.tmp", n + 1),
        ] {
            std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
        }
    }
}

#[test]
fn writes_never_follow_a_planted_temp_symlink() {
    let vault = TestVault::new();
    let original = "---\ntitle: Plan\ndate: 2024-05-01\nstartTime: \"09:00\"\n---\nbody\n";
    vault.write("events/plan.md", original);
    let outside = vault.dir.path().join("outside.txt");
    std::fs::write(&outside, "untouched").unwrap();
    let events = vault.vault().join("events");
    plant_symlinks_at_old_temp_names(&events, "plan.md", &outside);
    let cal = vault.open();

    cal.update(
        "fullnote:events/plan.md",
        fields(json!({"startTime": "10:00"})),
    )
    .unwrap();
    cal.create(
        "local",
        fields(json!({"title": "New", "date": "2024-05-03", "allDay": true})),
    )
    .unwrap();

    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched");
    let plan = vault.vault().join("events/plan.md");
    assert!(!plan.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(
        vault.read("events/plan.md"),
        original.replace("\"09:00\"", "\"10:00\"")
    );
    assert!(
        vault
            .read("events/2024-05-03 New.md")
            .contains("title: New\n")
    );
    // Every planted link is still there, and no staging file was left.
    let mut links = 0;
    for entry in std::fs::read_dir(&events).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            assert!(
                entry.file_type().unwrap().is_symlink(),
                "left behind: {name}"
            );
            links += 1;
        }
    }
    assert_eq!(links, 3000);
}

#[test]
fn a_single_event_knows_the_series_whose_occurrence_it_replaces() {
    let vault = TestVault::new();
    vault.write(
        "events/2024-05-06 Water plants.md",
        "---\ntitle: Water plants\ntype: recurring\ndaysOfWeek: [M]\nstartRecur: 2024-05-06\nskipDates: [2024-05-13]\ncompleted: false\n---\n",
    );
    vault.write(
        "events/2024-05-13 Water plants.md",
        "---\ntitle: Water plants\ndate: 2024-05-13\ncompleted: 2024-05-13\n---\n",
    );
    vault.write(
        "events/2024-05-20 Water plants.md",
        "---\ntitle: Water plants\ndate: 2024-05-20\n---\n",
    );
    let cal = vault.open();
    let series = cal
        .replaced_series("fullnote:events/2024-05-13 Water plants.md")
        .unwrap()
        .unwrap();
    assert_eq!(series.id, "fullnote:events/2024-05-06 Water plants.md");
    // Not a skipped date, or a series itself: none.
    for id in [
        "fullnote:events/2024-05-20 Water plants.md",
        "fullnote:events/2024-05-06 Water plants.md",
    ] {
        assert_eq!(cal.replaced_series(id).unwrap(), None, "{id}");
    }
    assert!(matches!(
        cal.replaced_series("fullnote:events/nothing.md"),
        Err(CalendarError::NotFound(_))
    ));
}

/// An edit replaces the note's file, and the new file is exactly as private
/// as the old one: a 0600 note stays 0600 and a 0640 one 0640, whatever the
/// umask would give a new file; the body and the user's own keys are kept.
#[cfg(unix)]
#[test]
fn an_edit_keeps_the_notes_mode() {
    use std::os::unix::fs::PermissionsExt;
    let vault = TestVault::new();
    let rel = "events/2026-03-02 Private.md";
    let note = "---\ntitle: Private\ndate: 2026-03-02\nallDay: true\nmood: calm\n---\nDiary.\n";
    let path = vault.write(rel, note);
    let cal = vault.open();
    for mode in [0o600, 0o640] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let location = format!("Room {mode:o}");
        cal.update(
            &format!("fullnote:{rel}"),
            fields(json!({ "location": location })),
        )
        .unwrap();
        let kept = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(kept, mode, "{mode:o} became {kept:o}");
        let text = vault.read(rel);
        assert!(
            text.contains("mood: calm\n") && text.ends_with("---\nDiary.\n"),
            "{text}"
        );
    }
}
