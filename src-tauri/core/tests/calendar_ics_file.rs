//! The `icsfile` kind: one `.ics` file of the vault, read-only, found and
//! watched as notes are. Real temp vaults, the real engine and watcher;
//! changes are awaited on the engine, never slept on.

use crate::common;

use almanac_core::calendar::CalendarError;
use almanac_core::settings::KindSettings;
use common::*;
use serde_json::json;

fn ics_file(path: &str) -> KindSettings {
    KindSettings::IcsFile { path: path.into() }
}

const SCHOOL: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:term@school\r\nDTSTART;VALUE=DATE:20260907\r\nSUMMARY:Term starts\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:fair@school\r\nDTSTART:20260915T170000Z\r\nDTEND:20260915T190000Z\r\n\
SUMMARY:Science fair\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

fn source_error(cal: &almanac_core::calendar::Calendar, id: &str) -> Option<String> {
    cal.sources()
        .into_iter()
        .find(|s| s.id == id)
        .and_then(|s| s.last_error)
}

#[test]
fn a_vault_ics_file_is_read_and_follows_edits_without_restart() {
    let vault = TestVault::new().with_source("school", ics_file("calendars/school.ics"));
    vault.write("calendars/school.ics", SCHOOL);
    let cal = vault.open();
    let of_school = |c: &almanac_core::calendar::Calendar| {
        let mut t: Vec<String> = all(c)
            .into_iter()
            .filter(|e| e.calendar_id == "school")
            .map(|e| e.title)
            .collect();
        t.sort();
        t
    };
    assert_eq!(of_school(&cal), ["Science fair", "Term starts"]);
    let fair = all(&cal)
        .into_iter()
        .find(|e| e.title == "Science fair")
        .unwrap();
    assert_eq!(fair.id, "ical:school::fair@school");
    assert_eq!(fair.start_millis, Some(ms("2026-09-15T17:00:00Z")));
    let info = cal
        .sources()
        .into_iter()
        .find(|s| s.id == "school")
        .unwrap();
    assert_eq!(info.kind, "icsfile");
    assert!(!info.editable && info.last_error.is_none());

    // An edit to the file shows without a restart.
    vault.write(
        "calendars/school.ics",
        &SCHOOL.replace("Science fair", "Science fair (hall B)"),
    );
    wait_until(&cal, "edit", |c| {
        of_school(c) == ["Science fair (hall B)", "Term starts"]
    });
    // Writes are refused as for a feed.
    assert!(matches!(
        cal.update("ical:school::fair@school", fields(json!({"title": "x"}))),
        Err(CalendarError::ReadOnly(_))
    ));
    assert!(matches!(
        cal.create(
            "school",
            fields(json!({"title": "x", "date": "2026-05-01"}))
        ),
        Err(CalendarError::ReadOnly(_))
    ));
    // Another .ics file, or a note, next to it is not read.
    vault.write("calendars/other.ics", &SCHOOL.replace("school", "other"));
    vault.write("events/a.md", "---\ntitle: Note\ndate: 2026-05-01\n---\n");
    wait_until(&cal, "the note", |c| {
        all(c).iter().any(|e| e.title == "Note")
    });
    assert_eq!(of_school(&cal).len(), 2);

    // Deleted: no events, and the status says why.
    std::fs::remove_file(vault.vault().join("calendars/school.ics")).unwrap();
    wait_until(&cal, "deleted", |c| {
        of_school(c).is_empty()
            && source_error(c, "school").is_some_and(|e| e.contains("not in the vault"))
    });
    // Back again: the events return and the status clears.
    vault.write("calendars/school.ics", SCHOOL);
    wait_until(&cal, "restored", |c| {
        of_school(c).len() == 2 && source_error(c, "school").is_none()
    });
}

#[test]
fn a_bad_or_too_deeply_nested_ics_file_gives_a_status_not_a_crash() {
    let vault = TestVault::new()
        .with_source("bad", ics_file("bad.ics"))
        .with_source("nested", ics_file("deep/er/nested.ics"))
        .with_source("missing", ics_file("nowhere.ics"));
    vault.write("bad.ics", "this is not iCalendar\n");
    let mut deep = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
    for _ in 0..20 {
        deep.push_str("BEGIN:X-NEST\r\n");
    }
    for _ in 0..20 {
        deep.push_str("END:X-NEST\r\n");
    }
    deep.push_str(
        "BEGIN:VEVENT\r\nUID:kept@x\r\nDTSTART;VALUE=DATE:20260101\r\nSUMMARY:Kept\r\nEND:VEVENT\r\n\
         END:VCALENDAR\r\n",
    );
    vault.write("deep/er/nested.ics", &deep);
    let cal = vault.open();
    let bad = source_error(&cal, "bad").expect("a status for a file that is not iCalendar");
    assert!(bad.contains("bad.ics"), "{bad}");
    let nested = source_error(&cal, "nested").expect("a status for the nested item");
    assert!(nested.contains("deep/er/nested.ics"), "{nested}");
    // The item nested too deep is set aside; the event next to it shows.
    assert!(all(&cal).iter().any(|e| e.title == "Kept"));
    let missing = source_error(&cal, "missing").unwrap();
    assert!(missing.contains("nowhere.ics"), "{missing}");
    // The rest of the calendar is unharmed.
    vault.write("events/a.md", "---\ntitle: Fine\ndate: 2026-05-01\n---\n");
    wait_until(&cal, "a note still shows", |c| {
        all(c).iter().any(|e| e.title == "Fine")
    });
}

#[test]
fn settings_refuse_paths_that_are_not_an_ics_file_of_the_vault() {
    let check = |path: &str| {
        let mut settings = almanac_core::settings::Settings::default();
        settings.calendar_sources.push(source("x", ics_file(path)));
        settings.validate().map_err(|e| e.to_string())
    };
    for path in ["../outside.ics", ".obsidian/x.ics", "notes/a.md", ""] {
        let error = check(path).unwrap_err();
        assert!(error.contains("path"), "{path}: {error}");
    }
    assert!(check("calendars/school.ics").is_ok());
}
