//! The calendar window's keys (`ui/src/js/calendar_keys.js`): each key in
//! the `?` panel does what the panel says, "Go to date" reads a day as
//! quick-add does, and keys typed into a field stay there. The README's list
//! of keys is the panel's.

use crate::support;

use chrono::{Datelike, Days};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const VIEW: &str = "document.body.dataset.view";
const CURRENT: &str = "document.body.dataset.current";

#[tokio::test]
async fn each_key_does_what_the_panel_says_and_go_to_date_reads_a_day() {
    let instance = AppHarness::new();
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;

    // Views: d, w, m, a.
    for (key, view) in [
        ("d", "timeGridDay"),
        ("w", "timeGridWeek"),
        ("a", "agenda"),
        ("m", "dayGridMonth"),
    ] {
        session.press(key).await;
        session.wait_for(&format!("{VIEW} === '{view}'")).await;
    }

    // "Go to date" reads what quick-add reads; a line that is no day is
    // refused in the dialog and moves nothing.
    session.press("g").await;
    session
        .wait_for("document.getElementById('goto-dialog').open")
        .await;
    session.type_into("#goto-text", "tomorrow at noon").await;
    session.press("\u{E007}").await;
    session
        .wait_for("document.getElementById('goto-error').textContent.includes('is not a day')")
        .await;
    session.retype("#goto-text", "2027-01-15").await;
    session.press("\u{E007}").await;
    session
        .wait_for(&format!("{CURRENT} === '2027-01-01'"))
        .await;
    session
        .wait_for("!document.getElementById('goto-dialog').open")
        .await;

    // j / → next, k / ← previous, t today.
    session.press("j").await;
    session
        .wait_for(&format!("{CURRENT} === '2027-02-01'"))
        .await;
    session.press("\u{E014}").await; // →
    session
        .wait_for(&format!("{CURRENT} === '2027-03-01'"))
        .await;
    session.press("k").await;
    session.press("\u{E012}").await; // ←
    session
        .wait_for(&format!("{CURRENT} === '2027-01-01'"))
        .await;
    session.press("t").await;
    let this_month = chrono::Utc::now().format("%Y-%m-01").to_string();
    session
        .wait_for(&format!("{CURRENT} === '{this_month}'"))
        .await;

    // n opens a new event; a key typed in its title is text, not a key.
    session.press("n").await;
    session
        .wait_for("document.getElementById('event-dialog').open")
        .await;
    session.type_into("#ev-title", "dwm").await;
    assert_eq!(
        session
            .execute(&format!("return {VIEW}"), serde_json::json!([]))
            .await,
        "dayGridMonth"
    );
    session.press("\u{E00C}").await; // Esc
    session
        .wait_for(
            "!document.getElementById('event-dialog').open \
             && !document.getElementById('event-dialog').contains(document.activeElement)",
        )
        .await;

    // ? lists every key, the README lists the same.
    session.press("?").await;
    session
        .wait_for("document.getElementById('keys-dialog').open")
        .await;
    let listed = session
        .execute(
            "return [...document.querySelectorAll('#keys-rows tr')].map(r => r.cells[1].textContent)",
            serde_json::json!([]),
        )
        .await;
    let listed: Vec<String> = serde_json::from_value(listed).unwrap();
    assert_eq!(listed.len(), 17, "{listed:?}");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    for does in &listed {
        assert!(readme.contains(does.as_str()), "README.md lists {does:?}");
    }
    session.end().await;
}

/// `/` and Ctrl+F search, Esc closes what is open (the search, the keys
/// panel, a dialog), Tab moves through the events in date order past the
/// sidebar's one stop in the mini-month, and Delete on the focused event
/// asks to delete it.
#[tokio::test]
async fn search_escape_tab_and_delete_keys() {
    let instance = AppHarness::new();
    let first = chrono::Utc::now()
        .date_naive()
        .with_day(1)
        .expect("every month has a 1st");
    let (early, late) = (first + Days::new(9), first + Days::new(11));
    instance.write_note(
        "Early.md",
        &format!("title: Early\nallDay: true\ndate: {early}"),
    );
    instance.write_note(
        "Late.md",
        &format!("title: Late\nallDay: true\ndate: {late}"),
    );
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true' && document.querySelector(\".fc-event[data-title='Late']\")")
        .await;
    let focused_title = "document.activeElement.dataset.title";

    // `/` goes to the search box; Esc empties it, Esc again leaves it.
    session.press("/").await;
    session
        .wait_for("document.activeElement.id === 'search'")
        .await;
    session.press("ear").await;
    session.press("\u{E00C}").await;
    session
        .wait_for("document.activeElement.id === 'search' && document.getElementById('search').value === ''")
        .await;
    session.press("\u{E00C}").await;
    session
        .wait_for("document.activeElement.id !== 'search'")
        .await;
    // Ctrl+F also, even from a field.
    session
        .execute(
            "document.getElementById('mini-next').focus()",
            serde_json::json!([]),
        )
        .await;
    session.press_with('\u{E009}', 'f').await;
    session
        .wait_for("document.activeElement.id === 'search'")
        .await;
    session.press("\u{E00C}").await;

    // ? opens the keys panel, Esc closes it.
    session.press("?").await;
    session
        .wait_for("document.getElementById('keys-dialog').open")
        .await;
    session.press("\u{E00C}").await;
    session
        .wait_for("!document.getElementById('keys-dialog').open")
        .await;

    // The mini-month is one tab stop: from the last of the sidebar's
    // controls, Tab reaches the calendar, and from an event the next one.
    let stops = session
        .execute(
            "return [...document.querySelectorAll('#mini-grid button')].filter(b => b.tabIndex === 0).length",
            serde_json::json!([]),
        )
        .await;
    assert_eq!(stops, 1);
    session
        .execute(
            "document.querySelector(\".fc-event[data-title='Early']\").focus()",
            serde_json::json!([]),
        )
        .await;
    session.press("\u{E004}").await; // Tab
    session
        .wait_for(&format!("{focused_title} === 'Late'"))
        .await;
    session.press_with('\u{E008}', '\u{E004}').await; // Shift+Tab
    session
        .wait_for(&format!("{focused_title} === 'Early'"))
        .await;

    // Delete on the focused event asks first; Esc closes the question
    // (keeping the event), Esc again the dialog.
    session.press("\u{E017}").await;
    session
        .wait_for("document.getElementById('event-dialog').open && !document.getElementById('ev-confirm').hidden")
        .await;
    session.press("\u{E00C}").await;
    session
        .wait_for("document.getElementById('ev-confirm').hidden")
        .await;
    session.press("\u{E00C}").await;
    session
        .wait_for("!document.getElementById('event-dialog').open")
        .await;
    assert!(instance.vault().join("events/Early.md").exists());
    session.end().await;
}
