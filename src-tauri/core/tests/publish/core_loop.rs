//! The same loop against every server: create, edit, move, rename, delete and
//! complete on each side, a series with an edited and a cancelled
//! occurrence on each side, a conflict, a write that meets a `412` (the
//! phone wrote in between), and the server stopped and started again, each
//! ending with the vault and the collection agreeing, every note's body
//! intact and a `VALARM` on every event that reminds.

use std::sync::atomic::Ordering;

use almanac_core::history::{Author, ChangeFilter};
use almanac_core::settings::KindSettings;
use chrono::NaiveDate;

use crate::common::fields;
use crate::publish::interpose::Interposer;
use crate::publish::support::{CALENDAR, Server, Setup, property, run_phone};

const STANDUP: &str = "events/2026-03-02 Standup.md";
const STANDUP_NOTE: &str = "---\ntitle: Standup\nallDay: false\ndate: 2026-03-02\n\
startTime: \"09:00\"\nendTime: \"09:15\"\nnotify:\n  value: 15\nproject: apollo\n---\n\
Agenda:\n- budget\n";
const GYM: &str = "events/2026-03-03 Gym.md";
const GYM_NOTE: &str = "---\ntitle: Gym\ntype: recurring\ndaysOfWeek: [T]\n\
startRecur: 2026-03-03\nendRecur: 2026-04-28\nallDay: false\nstartTime: \"07:00\"\n\
endTime: \"08:00\"\nskipDates: [2026-03-10]\n---\nBring shoes.\n";
const REVIEW: &str = "events/2026-03-05 Review.md";
const REVIEW_NOTE: &str = "---\ntitle: Review\nallDay: true\ndate: 2026-03-05\n---\nNotes.\n";
const REPORT: &str = "events/2026-03-04 Report.md";
const REPORT_NOTE: &str = "---\ntitle: Report\nallDay: true\ndate: 2026-03-04\n\
completed: false\n---\nDraft it.\n";
const INVOICE: &str = "events/2026-03-06 Invoice.md";
const INVOICE_NOTE: &str = "---\ntitle: Invoice\nallDay: true\ndate: 2026-03-06\n\
completed: false\n---\nNumber 12.\n";
const SWIM: &str = "events/2026-03-02 Swim.md";
const SWIM_NOTE: &str = "---\ntitle: Swim\ntype: recurring\ndaysOfWeek: [M]\n\
startRecur: 2026-03-02\nendRecur: 2026-04-27\nallDay: false\nstartTime: \"18:00\"\n\
endTime: \"19:00\"\n---\nLane 3.\n";

pub fn runs_against(server: &mut dyn Server) {
    // The sync goes through a proxy that can let the phone write between
    // its read and its write; the phone goes to the server itself.
    let proxy = Interposer::start(&server.collection());
    let full_note = KindSettings::FullNote {
        directory: "events".into(),
    };
    let mut setup = Setup::of(
        &*server,
        full_note,
        &server.collection(),
        &[
            (STANDUP, STANDUP_NOTE),
            (GYM, GYM_NOTE),
            (REVIEW, REVIEW_NOTE),
            (REPORT, REPORT_NOTE),
            (INVOICE, INVOICE_NOTE),
            (SWIM, SWIM_NOTE),
        ],
    );
    setup.sync_through(proxy.url(&server.collection()));

    // First publish: every event, each with its reminder, the series with
    // its skipped date, the tasks as tasks; each note got its UID pinned,
    // nothing else.
    let first = setup.sync();
    assert_eq!((first.pushed, first.pulled), (6, 0), "{first:?}");
    let phone = setup.on_phone();
    assert_eq!(phone.len(), 6, "{phone:?}");
    for ics in phone.values() {
        assert!(ics.contains("BEGIN:VALARM"), "every event reminds: {ics}");
    }
    let standup = setup.titled("Standup").uid.unwrap();
    let gym = setup.titled("Gym").uid.unwrap();
    let review = setup.titled("Review").uid.unwrap();
    assert!(phone[&standup].contains("TRIGGER:-PT15M"), "its notify");
    assert!(phone[&gym].contains("TRIGGER:-PT10M"), "the default");
    assert!(
        property(&phone[&gym], "EXDATE").is_some(),
        "{}",
        phone[&gym]
    );
    let (_, note) = setup.note(&standup);
    assert_eq!(without_uid(&note), STANDUP_NOTE, "only the UID is added");

    // Nothing changed: nothing written either way, and the server's report
    // of the publish's own writes fetches nothing (each is known by its
    // ETag): one request.
    let requests = proxy.traffic.requests.load(Ordering::SeqCst);
    let again = setup.sync();
    assert_eq!((again.pushed, again.pulled, again.conflicts), (0, 0, 0));
    assert_eq!(proxy.traffic.requests.load(Ordering::SeqCst) - requests, 1);

    // The phone edits one, adds one, deletes one.
    setup.phone(&["retitle", &standup, "Standup moved"]);
    setup.phone(&["create", "phone-1", "Dentist", "2026-03-10"]);
    setup.phone(&["delete", &review]);
    let pulled = setup.sync();
    assert_eq!(pulled.pulled, 3, "{pulled:?}");
    let (_, note) = setup.note(&standup);
    assert!(note.contains("title: Standup moved\n"), "{note}");
    assert!(note.contains("\nproject: apollo\n"), "{note}");
    assert!(
        note.ends_with("---\nAgenda:\n- budget\n"),
        "body kept: {note}"
    );
    assert!(setup.titles().contains(&"Dentist".to_string()));
    assert!(!setup.vault.exists(REVIEW), "gone from the calendar");
    assert_eq!(
        without_uid(&setup.vault.read(&format!(".trash/{REVIEW}"))),
        REVIEW_NOTE,
        "in the trash, whole"
    );
    // In the history as the sync's: the note to the trash is one change.
    let sync = Author::Sync {
        calendar: CALENDAR.into(),
    };
    let changes = setup.calendar.history().list(&ChangeFilter::default(), 10);
    let trashed = changes
        .iter()
        .find(|change| change.files.iter().any(|f| f.path.starts_with(".trash/")))
        .expect("the move to the trash is recorded");
    assert_eq!(trashed.author, sync, "{changes:?}");
    let trashed = trashed.id;
    assert!(
        changes
            .iter()
            .any(|change| change.author == sync && change.files[0].path.contains("Dentist")),
        "the phone's new event: {changes:?}"
    );
    // The phone's new event got the reminder the vault gives it.
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");
    assert!(setup.on_phone()["phone-1"].contains("BEGIN:VALARM"));

    tasks_complete_on_each_side(&setup);
    series_occurrences_on_each_side(&setup);

    // The vault renames one (the phone keeps one event), edits one,
    // deletes one.
    let (gym_note, _) = setup.note(&gym);
    setup.rename(&gym_note, "events/2026-03-03 Gym renamed.md");
    let (dentist, _) = setup.note("phone-1");
    setup.edit(&dentist, "title: Dentist", "title: Dentist at 9");
    let pushed = setup.sync();
    assert_eq!(pushed.pulled, 0, "{pushed:?}");
    let phone = setup.on_phone();
    assert_eq!(phone.len(), 6, "no duplicate for the rename: {phone:?}");
    assert!(phone.contains_key(&gym));
    assert_eq!(
        property(&phone["phone-1"], "SUMMARY").unwrap(),
        "Dentist at 9"
    );
    let (gym_note, text) = setup.note(&gym);
    assert!(text.ends_with("---\nBring shoes.\n"), "{text}");

    // Each side moves one: the phone to another day (the note's date, the
    // rest kept), the vault into a folder of the calendar (the same event
    // on the phone, no duplicate).
    setup.phone(&["move", &standup, "2026-03-04"]);
    let moved = setup.sync();
    assert_eq!((moved.pulled, moved.pushed), (1, 0), "{moved:?}");
    let (_, note) = setup.note(&standup);
    assert!(note.contains("\ndate: 2026-03-04\n"), "{note}");
    assert!(note.contains("startTime: \"09:00\"\n"), "{note}");
    assert!(note.ends_with("---\nAgenda:\n- budget\n"), "{note}");
    std::fs::create_dir_all(setup.vault.vault().join("events/later")).unwrap();
    setup.rename(&dentist, "events/later/Dentist.md");
    let moved = setup.sync();
    assert_eq!(moved.pulled, 0, "{moved:?}");
    let phone = setup.on_phone();
    assert_eq!(phone.len(), 6, "no duplicate for the move: {phone:?}");
    assert_eq!(
        property(&phone["phone-1"], "SUMMARY").unwrap(),
        "Dentist at 9"
    );
    let dentist = setup.note("phone-1").0;
    assert_eq!(dentist, "events/later/Dentist.md");

    setup.remove(&gym_note);
    setup.sync();
    assert!(!setup.on_phone().contains_key(&gym));

    // Both sides change the same event: the note keeps the vault's
    // version, the server's is kept beside it, and both sides then agree.
    let (standup_note, _) = setup.note(&standup);
    setup.phone(&["retitle", &standup, "Standup phone"]);
    setup.edit(
        &standup_note,
        "title: Standup moved",
        "title: Standup laptop",
    );
    let conflicted = setup.sync();
    assert_eq!(conflicted.conflicts, 1, "{conflicted:?}");
    let status = setup.publisher.status(CALENDAR);
    assert_eq!(status.conflicts.len(), 1);
    assert_eq!(status.conflicts[0].note, standup_note);
    let (_, note) = setup.note(&standup);
    assert!(note.contains("title: Standup laptop\n"), "{note}");
    assert!(note.ends_with("---\nAgenda:\n- budget\n"), "{note}");
    let kept = setup.vault.read(&status.conflicts[0].conflict_note);
    assert!(kept.contains("title: Standup phone (conflict)\n"), "{kept}");
    setup.sync();
    let phone = setup.on_phone();
    assert_eq!(
        property(&phone[&standup], "SUMMARY").unwrap(),
        "Standup laptop"
    );
    assert!(
        phone
            .values()
            .any(|ics| property(ics, "SUMMARY").as_deref() == Some("Standup phone (conflict)")),
        "{phone:?}"
    );

    // The phone writes between the pass' read and its write: the write
    // meets a 412, the pass reads the phone's version again and keeps it
    // beside the vault's (a conflict, not a loop), and both sides agree.
    setup.edit(&dentist, "title: Dentist at 9", "title: Dentist soon");
    proxy.before_next_put({
        let phone = setup.phone_command(&["retitle", "phone-1", "Dentist moved"]);
        move || {
            run_phone(phone);
        }
    });
    let raced = setup.sync();
    assert_eq!((raced.conflicts, raced.errors.len()), (1, 0), "{raced:?}");
    let (_, note) = setup.note("phone-1");
    assert!(note.contains("title: Dentist soon\n"), "{note}");
    let again = setup.sync();
    assert_eq!((again.pushed, again.pulled, again.conflicts), (1, 0, 0));
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");
    let phone = setup.on_phone();
    assert_eq!(
        property(&phone["phone-1"], "SUMMARY").unwrap(),
        "Dentist soon"
    );
    assert!(
        phone
            .values()
            .any(|ics| property(ics, "SUMMARY").as_deref() == Some("Dentist moved (conflict)")),
        "{phone:?}"
    );
    setup.edit(&dentist, "title: Dentist soon", "title: Dentist at 9");

    // Offline: the edit waits in the vault and the status, and goes out
    // once the server answers again.
    server.stop();
    setup.edit(&dentist, "title: Dentist at 9", "title: Dentist at 10");
    assert!(setup.try_sync().is_err(), "the server is down");
    let status = setup.publisher.status(CALENDAR);
    assert!(status.last_error.is_some(), "{status:?}");
    assert_eq!(setup.publisher.waiting(CALENDAR), 1);
    server.resume();
    let replayed = setup.sync();
    assert_eq!(replayed.pushed, 1, "{replayed:?}");
    assert_eq!(
        property(&setup.on_phone()["phone-1"], "SUMMARY").unwrap(),
        "Dentist at 10"
    );
    let status = setup.publisher.status(CALENDAR);
    assert_eq!(status.last_error, None);
    assert_eq!(setup.publisher.waiting(CALENDAR), 0);

    // The sync's move to the trash, undone: the note is back whole, and
    // the next pass publishes it again.
    let in_trash = setup.vault.read(&format!(".trash/{REVIEW}"));
    setup
        .calendar
        .undo(trashed)
        .expect("the sync's change is undone");
    assert_eq!(setup.vault.read(REVIEW), in_trash, "back byte for byte");
    assert!(!setup.vault.exists(&format!(".trash/{REVIEW}")));
    setup.sync();
    let phone = setup.on_phone();
    assert!(
        phone
            .values()
            .any(|ics| property(ics, "SUMMARY").as_deref() == Some("Review")),
        "published again"
    );

    // In the end: a reminder on every event that reminds (all but the
    // completed tasks), and nothing left to do on either side.
    for ics in phone.values() {
        let done = property(ics, "STATUS").as_deref() == Some("COMPLETED");
        assert_eq!(ics.contains("BEGIN:VALARM"), !done, "{ics}");
    }
    let last = setup.sync();
    assert_eq!((last.pushed, last.pulled, last.conflicts), (0, 0, 0));
}

/// A task completed on the phone ticks its note; one completed in the
/// vault is completed on the phone; each note otherwise as it was.
fn tasks_complete_on_each_side(setup: &Setup) {
    let report = setup.titled("Report").uid.unwrap();
    let invoice = setup.titled("Invoice").uid.unwrap();
    assert!(setup.on_phone()[&report].contains("BEGIN:VTODO"));
    setup.phone(&["complete", &report]);
    let pulled = setup.sync();
    assert_eq!(pulled.pulled, 1, "{pulled:?}");
    let (_, note) = setup.note(&report);
    assert!(!note.contains("completed: false"), "{note}");
    assert!(note.contains("\ncompleted: "), "{note}");
    assert!(note.ends_with("---\nDraft it.\n"), "{note}");

    let (invoice_note, _) = setup.note(&invoice);
    setup.edit(
        &invoice_note,
        "completed: false",
        "completed: 2026-03-06T10:00:00",
    );
    let pushed = setup.sync();
    assert_eq!((pushed.pushed, pushed.pulled), (1, 0), "{pushed:?}");
    let phone = setup.on_phone();
    for uid in [&report, &invoice] {
        assert_eq!(
            property(&phone[uid], "STATUS").as_deref(),
            Some("COMPLETED"),
            "{}",
            phone[uid]
        );
    }
    assert!(
        setup
            .vault
            .read(&invoice_note)
            .ends_with("---\nNumber 12.\n")
    );
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");
}

/// The phone moves one occurrence of a series (a detached note in the
/// vault) and cancels another (a skipped date); the vault does the same
/// (a `RECURRENCE-ID` override and an `EXDATE` on the server).
fn series_occurrences_on_each_side(setup: &Setup) {
    let swim = setup.titled("Swim").uid.unwrap();
    setup.phone(&["move-occurrence", &swim, "2026-03-09", "Swim late"]);
    setup.phone(&["cancel-occurrence", &swim, "2026-03-16"]);
    let pulled = setup.sync();
    assert!(pulled.pulled >= 1 && pulled.errors.is_empty(), "{pulled:?}");
    let late = setup.titled("Swim late");
    assert_eq!(
        late.recurrence_id.as_deref(),
        Some("2026-03-09"),
        "{late:?}"
    );
    assert_eq!(late.start_time.as_deref(), Some("19:00"), "{late:?}");
    let (series_note, text) = setup.note(&swim);
    assert!(text.contains("2026-03-16"), "skipped: {text}");
    assert!(text.ends_with("---\nLane 3.\n"), "{text}");
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");

    let id = format!("fullnote:{series_note}");
    setup
        .calendar
        .update_occurrence(
            &id,
            day("2026-03-23"),
            fields(serde_json::json!({"title": "Swim relay"})),
        )
        .unwrap();
    setup.calendar.delete(&id, Some(day("2026-03-30"))).unwrap();
    let pushed = setup.sync();
    assert_eq!((pushed.pushed, pushed.pulled), (1, 0), "{pushed:?}");
    let ics = &setup.on_phone()[&swim];
    let overrides: Vec<&str> = ics
        .lines()
        .filter(|l| l.starts_with("RECURRENCE-ID"))
        .collect();
    assert_eq!(overrides.len(), 2, "{ics}");
    assert!(overrides.iter().any(|l| l.contains("20260309")), "{ics}");
    assert!(overrides.iter().any(|l| l.contains("20260323")), "{ics}");
    assert!(ics.contains("SUMMARY:Swim relay"), "{ics}");
    let exdates: String = ics.lines().filter(|l| l.starts_with("EXDATE")).collect();
    assert!(exdates.contains("20260316"), "{ics}");
    assert!(exdates.contains("20260330"), "{ics}");
    let (_, text) = setup.note(&swim);
    assert!(text.ends_with("---\nLane 3.\n"), "{text}");
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");
}

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

/// A note's text without the `uid` line publishing pinned.
fn without_uid(note: &str) -> String {
    note.split_inclusive('\n')
        .filter(|line| !line.starts_with("uid:"))
        .collect()
}
