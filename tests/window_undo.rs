//! Undo in the calendar window, end to end (issue 35): Ctrl+Z takes back
//! the window's last move, edit or delete byte for byte, Ctrl+Shift+Z
//! redoes, the notice after each offers an Undo that does what Ctrl+Z
//! does, and an undo over a newer edit made on disk is refused, says why
//! and writes nothing; and Settings lists a token's changes and undoes all
//! it did since one of them. The real windows through WebDriver, on a real
//! vault; one launch per window, as each launch costs CI time.

use crate::support;
use crate::window_editing::{
    dialog_closed, dialog_open, event_in, fill, neighbour_in_view, rect, scroll_to, slot_point,
    start,
};

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const CONTROL: char = '\u{E009}';
const SHIFT: char = '\u{E008}';

/// Waits until `path` holds exactly `want` (`None`: no file).
async fn settles(path: &Path, want: Option<&str>) {
    support::eventually(&format!("{} to hold {want:?}", path.display()), || async {
        (std::fs::read_to_string(path).ok().as_deref() == want).then_some(())
    })
    .await;
}

/// The file's text once it exists and differs from `before`.
async fn changed(path: &Path, before: &str) -> String {
    support::eventually(&format!("a change to {}", path.display()), || async {
        std::fs::read_to_string(path).ok().filter(|t| t != before)
    })
    .await
}

/// Waits until the notice under the toolbar says `message`, with its Undo
/// button or without.
async fn notice(session: &Session, message: &str, undo: bool) {
    session
        .wait_for(&format!(
            "(() => {{ const hint = document.getElementById('edit-hint');
                return !hint.hidden && hint.firstChild && hint.firstChild.textContent === {}
                  && Boolean(document.getElementById('edit-undo')) === {undo}; }})()",
            json!(message)
        ))
        .await;
}

async fn shown(session: &Session, date: NaiveDate) {
    session
        .wait_for(&format!(
            "document.querySelector(\"{}\")",
            event_in(date, "Review")
        ))
        .await;
}

/// Opens Review on `date`, sets its end time and saves.
async fn edit_end(session: &Session, date: NaiveDate, end: &str) {
    shown(session, date).await;
    session.click(&event_in(date, "Review")).await;
    dialog_open(session).await;
    fill(session, "ev-end", end).await;
    session.click("#ev-save").await;
    dialog_closed(session).await;
    notice(session, "Saved “Review”.", true).await;
}

#[tokio::test]
async fn ctrl_z_redo_and_the_notices_undo_take_back_moves_edits_and_deletes() {
    let instance = AppHarness::with_settings(json!({ "initialView": "timeGridWeek" }));
    let day = chrono::Utc::now().date_naive();
    let note = |date: NaiveDate| -> PathBuf {
        instance
            .vault()
            .join("events")
            .join(format!("{date} Review.md"))
    };
    let original = format!(
        "---\ntitle: Review\nallDay: false\ndate: {day}\nstartTime: \"09:00\"\nendTime: \"10:00\"\n\
         location: Room 4 # by the window\n---\n\nAgenda: budget.\n"
    );
    std::fs::write(note(day), &original).unwrap();
    let session = start(&instance, Theme::Light).await;
    scroll_to(&session, "10:00:00").await;
    shown(&session, day).await;

    // A drag to the next day, an hour later; Ctrl+Z puts it back.
    let to_day = neighbour_in_view(&session, day).await;
    let event = rect(&session, &event_in(day, "Review")).await;
    let grab = (event[0] + event[2] / 2.0, event[1] + 6.0);
    let nine = slot_point(&session, day, "09:00:00", 0.0).await;
    let ten = slot_point(&session, to_day, "10:00:00", 0.0).await;
    session.drag(grab, (ten.0, grab.1 + (ten.1 - nine.1))).await;
    notice(&session, "Moved “Review”.", true).await;
    settles(&note(day), None).await;
    let moved = std::fs::read_to_string(note(to_day)).unwrap();
    assert!(moved.contains("startTime: \"10:00\""), "{moved}");
    session.press_with(CONTROL, 'z').await;
    notice(&session, "Undid the move of “Review”.", false).await;
    settles(&note(day), Some(&original)).await;
    settles(&note(to_day), None).await;

    // Ctrl+Shift+Z moves it again, and Ctrl+Z takes that back too.
    session.press_chord(&[CONTROL, SHIFT], 'z').await;
    notice(&session, "Redid the move of “Review”.", false).await;
    settles(&note(to_day), Some(&moved)).await;
    settles(&note(day), None).await;
    session.press_with(CONTROL, 'z').await;
    notice(&session, "Undid the move of “Review”.", false).await;
    settles(&note(day), Some(&original)).await;
    settles(&note(to_day), None).await;
    // Nothing left to undo of the window's own.
    session.press_with(CONTROL, 'z').await;
    notice(&session, "Nothing to undo.", false).await;

    // An edit in the dialog, taken back by the notice's Undo.
    edit_end(&session, day, "11:00").await;
    let edited = changed(&note(day), &original).await;
    assert!(edited.contains("endTime: \"11:00\""), "{edited}");
    session.click("#edit-undo").await;
    notice(&session, "Undid the edit of “Review”.", false).await;
    settles(&note(day), Some(&original)).await;

    // A delete in the dialog; Ctrl+Z brings the note back.
    shown(&session, day).await;
    session.click(&event_in(day, "Review")).await;
    dialog_open(&session).await;
    session.click("#ev-delete").await;
    session
        .wait_for("!document.getElementById('ev-confirm').hidden")
        .await;
    session.click("#ev-confirm-delete").await;
    dialog_closed(&session).await;
    notice(&session, "Deleted “Review”.", true).await;
    settles(&note(day), None).await;
    session.press_with(CONTROL, 'z').await;
    notice(&session, "Undid the deletion of “Review”.", false).await;
    settles(&note(day), Some(&original)).await;

    // An edit, then the note changed on disk: the undo is refused, says
    // which note and why, and writes nothing.
    edit_end(&session, day, "10:30").await;
    let edited = changed(&note(day), &original).await;
    let by_hand = edited.replace("Agenda: budget.", "Agenda: budget, and the offsite.");
    std::fs::write(note(day), &by_hand).unwrap();
    session.press_with(CONTROL, 'z').await;
    session
        .wait_for("document.getElementById('edit-hint').textContent.startsWith('Could not undo: ')")
        .await;
    let said = session.text("#edit-hint").await;
    assert!(
        said.contains(&format!("events/{day} Review.md")) && said.contains("changed after"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(note(day)).unwrap(), by_hand);
    session.end().await;
}

/// Opens the "Changes…" dialog of the token “assistant” and waits until
/// it lists `count` changes.
async fn open_token_changes(session: &Session, count: usize) {
    session
        .click("tr[data-token-name='assistant'] button.token-changes")
        .await;
    session
        .wait_for(&format!(
            "document.getElementById('token-changes-dialog').open
             && document.querySelectorAll('#token-changes-list li').length === {count}"
        ))
        .await;
}

/// Picks the `option`th change (newest first) and clicks "Undo all since";
/// waits until the dialog says `said`.
async fn undo_all_since(session: &Session, option: usize, said: &str) {
    session
        .execute(
            "document.getElementById('token-changes-status').textContent = '';
             const since = document.getElementById('token-changes-since');
             since.selectedIndex = arguments[0];
             since.dispatchEvent(new Event('change', { bubbles: true }));",
            json!([option]),
        )
        .await;
    session.click("#token-changes-undo").await;
    session
        .wait_for(&format!(
            "document.getElementById('token-changes-status').textContent === {}",
            json!(said)
        ))
        .await;
}

/// Settings › API & Security: a token's "Changes…" lists what it wrote and
/// undoes all of it since a chosen change, byte for byte.
#[tokio::test]
async fn settings_lists_a_tokens_changes_and_undoes_all_since_one() {
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    let secret = instance.seed_token("assistant", &["events:write"]);
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session
        .wait_for(
            "document.querySelector(\"tr[data-token-name='assistant'] button.token-changes\")",
        )
        .await;

    // The token creates a note, then edits it, over REST.
    let client = reqwest::Client::new();
    let created: serde_json::Value = client
        .post(format!("{}/events", instance.api()))
        .bearer_auth(&secret)
        .json(&json!({ "calendarId": "local",
            "event": { "title": "Lunch", "date": "2026-03-04", "allDay": true } }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["event"]["id"].as_str().expect("an id").to_string();
    let note = instance.vault().join("events/2026-03-04 Lunch.md");
    let as_created = std::fs::read_to_string(&note).unwrap();
    let mut url = reqwest::Url::parse(&instance.api()).unwrap();
    url.path_segments_mut().unwrap().push("events").push(&id);
    let edited = client
        .put(url)
        .bearer_auth(&secret)
        .json(&json!({ "event": { "location": "Room 4" } }))
        .send()
        .await
        .unwrap();
    assert!(edited.status().is_success(), "{edited:?}");
    assert_ne!(std::fs::read_to_string(&note).unwrap(), as_created);

    // Both listed, newest first; undoing since the newest takes back the edit.
    open_token_changes(&session, 2).await;
    let listed = session.text("#token-changes-list").await;
    assert!(
        listed.find("edited events/2026-03-04 Lunch.md").unwrap()
            < listed.find("created events/2026-03-04 Lunch.md").unwrap(),
        "{listed}"
    );
    undo_all_since(&session, 0, "Undid 1 change.").await;
    assert_eq!(std::fs::read_to_string(&note).unwrap(), as_created);
    // Since the oldest: the edit is undone already, the creation goes.
    undo_all_since(&session, 1, "Undid 1 change.").await;
    assert!(!note.exists());
    session.end().await;
}
