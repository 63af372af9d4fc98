//! The same loop against every server: create, edit, rename and delete on
//! each side, a conflict, and the server stopped and started again, each
//! ending with the vault and the collection agreeing and every note's body
//! intact.

use almanac_core::history::{self, Author, ChangeFilter};

use crate::publish::support::{CALENDAR, Server, Setup, property};

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

pub fn runs_against(server: &mut dyn Server) {
    let setup = Setup::new(
        &*server,
        &[
            (STANDUP, STANDUP_NOTE),
            (GYM, GYM_NOTE),
            (REVIEW, REVIEW_NOTE),
        ],
    );

    // First publish: every event, each with its reminder, the series with
    // its skipped date; each note got its UID pinned, nothing else.
    let first = setup.sync();
    assert_eq!((first.pushed, first.pulled), (3, 0), "{first:?}");
    let phone = setup.on_phone();
    assert_eq!(phone.len(), 3, "{phone:?}");
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

    // Nothing changed: nothing written either way.
    let again = setup.sync();
    assert_eq!((again.pushed, again.pulled, again.conflicts), (0, 0, 0));

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
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");

    // The vault renames one (the phone keeps one event), edits one,
    // deletes one.
    let (gym_note, _) = setup.note(&gym);
    setup.rename(&gym_note, "events/2026-03-03 Gym renamed.md");
    let (dentist, _) = setup.note("phone-1");
    setup.edit(&dentist, "title: Dentist", "title: Dentist at 9");
    let pushed = setup.sync();
    assert_eq!(pushed.pulled, 0, "{pushed:?}");
    let phone = setup.on_phone();
    assert_eq!(phone.len(), 3, "no duplicate for the rename: {phone:?}");
    assert!(phone.contains_key(&gym));
    assert_eq!(
        property(&phone["phone-1"], "SUMMARY").unwrap(),
        "Dentist at 9"
    );
    let (gym_note, text) = setup.note(&gym);
    assert!(text.ends_with("---\nBring shoes.\n"), "{text}");
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
    history::undo::undo(&setup.calendar, trashed).expect("the sync's change is undone");
    assert_eq!(setup.vault.read(REVIEW), in_trash, "back byte for byte");
    assert!(!setup.vault.exists(&format!(".trash/{REVIEW}")));
    setup.sync();
    assert!(
        setup
            .on_phone()
            .values()
            .any(|ics| property(ics, "SUMMARY").as_deref() == Some("Review")),
        "published again"
    );
}

/// A note's text without the `uid` line publishing pinned.
fn without_uid(note: &str) -> String {
    note.split_inclusive('\n')
        .filter(|line| !line.starts_with("uid:"))
        .collect()
}
