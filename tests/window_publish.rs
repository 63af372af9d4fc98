//! "Show on my phone" in Settings › Calendars, through the real window
//! (tauri-driver + WebKitWebDriver under Xvfb): a note calendar published to
//! a new collection of a real Radicale account, the first push's progress
//! shown, then its status; the events on the server, the password in the
//! session's real keyring and nowhere in the settings; stopping removes the
//! setting and the password.

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::publish::password_key;
use almanac_testkit::radicale::{PASSWORD, Radicale, USER};
use serde_json::{Value, json};

use crate::support::instance::AppHarness;
use crate::support::webdriver::{Session, Theme};

/// The calendar published (an id of this test's own: the keyring is the
/// session's, shared with the tests running beside it).
const CALENDAR: &str = "phone_window";
/// Enough notes that pushing them takes a few of the window's looks at the
/// progress.
const NOTES: usize = 80;

fn settings_file(instance: &AppHarness) -> Value {
    let text =
        std::fs::read_to_string(instance.config_home().join("almanac/settings.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Records every text the row's sync line shows, so a progress shown
/// between two looks of the test is seen too.
const RECORD_SYNC_TEXTS: &str = "window.syncTexts = []; \
     new MutationObserver(() => { \
       for (const node of document.querySelectorAll('.phone-sync')) { \
         if (node.textContent && window.syncTexts.at(-1) !== node.textContent) window.syncTexts.push(node.textContent); \
       } \
     }).observe(document.body, { subtree: true, childList: true, characterData: true });";

#[tokio::test]
async fn a_calendar_is_published_to_a_new_collection_with_its_progress_then_its_status() {
    let server = tokio::task::spawn_blocking(Radicale::start).await.unwrap();
    let instance = AppHarness::with_settings(json!({
        "calendarSources": [{
            "id": CALENDAR, "name": "Notes", "color": "#3366cc",
            "type": "local", "directory": "events",
        }],
    }));
    for n in 0..NOTES {
        instance.write_note(
            &format!("note {n}.md"),
            &format!(
                "title: Note {n}\ndate: 2026-05-{:02}\nallDay: true",
                n % 28 + 1
            ),
        );
    }
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session.click("#tab-calendars").await;
    let row = format!("li[data-calendar-id='{CALENDAR}']");
    session
        .wait_for(&format!(
            "!document.querySelector(\"{row} .phone-publish\").hidden"
        ))
        .await;
    session.execute(RECORD_SYNC_TEXTS, json!([])).await;

    // A wrong password: the server's refusal next to the password field.
    session.click(&format!("{row} .phone-publish")).await;
    session
        .wait_for("document.getElementById('phone-dialog').open")
        .await;
    session.type_into("#phone-url", &server.url("/")).await;
    session.type_into("#phone-username", USER).await;
    session.type_into("#phone-password", "wrong").await;
    session.click("#phone-find").await;
    let error = session
        .wait_for("document.getElementById('phone-password-error').textContent")
        .await;
    assert!(
        error
            .as_str()
            .unwrap()
            .contains("refused this user name or password"),
        "{error}"
    );

    // The right one: the account's collection and a new one offered.
    session.retype("#phone-password", PASSWORD).await;
    session.click("#phone-find").await;
    session
        .wait_for("!document.getElementById('phone-choice').hidden")
        .await;
    let options = session
        .execute(
            "return [...document.querySelectorAll('#phone-collection option')].map(o => o.textContent);",
            json!([]),
        )
        .await;
    assert_eq!(options[0], "A new collection “Notes”", "{options}");
    assert!(
        options[1].as_str().unwrap().starts_with("Work ("),
        "{options}"
    );
    session.click("#phone-publish").await;
    session
        .wait_for("!document.getElementById('phone-dialog').open")
        .await;

    // The progress of the first push, then the status.
    session
        .wait_for(&format!(
            "document.querySelector(\"{row} .phone-sync\").textContent.startsWith('Sending ')"
        ))
        .await;
    session
        .wait_for(&format!(
            "document.querySelector(\"{row} .phone-sync\").textContent.startsWith('On your phone: synced')"
        ))
        .await;
    let seen = session.execute("return window.syncTexts;", json!([])).await;
    let progress: Vec<&str> = seen
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|text| text.starts_with("Sending "))
        .collect();
    assert!(
        progress
            .iter()
            .any(|text| text.ends_with(&format!(" of {NOTES}…"))),
        "{seen}"
    );
    let status = session.text(&format!("{row} .phone-sync")).await;
    assert!(!status.contains("waiting"), "{status}");
    assert_eq!(session.text(&format!("{row} .phone-problem")).await, "");

    // On the server: a new collection named and coloured as the calendar,
    // holding every event; the password only in the keyring.
    let published = settings_file(&instance)["publishedCalendars"].clone();
    let url = published[0]["url"].as_str().unwrap().to_string();
    assert_ne!(url, server.calendar());
    assert_eq!(published[0]["calendarId"], CALENDAR);
    assert!(!settings_file(&instance).to_string().contains(PASSWORD));
    let listing = tokio::task::spawn_blocking({
        let url = url.clone();
        move || (server.listing(&url), server)
    })
    .await
    .unwrap();
    let (listing, _server) = listing;
    assert_eq!(listing.matches(".ics</").count(), NOTES, "{listing}");
    assert!(listing.contains(">Notes<"), "{listing}");
    assert!(listing.contains("#3366cc"), "{listing}");
    let keyring = Passwords::default();
    assert_eq!(
        keyring.get(&password_key(CALENDAR)).unwrap().as_deref(),
        Some(PASSWORD)
    );

    // Sync now, then stop: the setting and the password go.
    session.click(&format!("{row} .phone-sync-now")).await;
    session
        .wait_for(&format!(
            "document.querySelector(\"{row} .phone-sync\").textContent.startsWith('On your phone: synced')"
        ))
        .await;
    session.click(&format!("{row} .phone-stop")).await;
    session
        .wait_for(&format!(
            "!document.querySelector(\"{row} .phone-publish\").hidden"
        ))
        .await;
    assert_eq!(settings_file(&instance)["publishedCalendars"], json!([]));
    assert_eq!(keyring.get(&password_key(CALENDAR)).unwrap(), None);

    // Published again, to the collection it made: every event is there
    // already, so the sync agrees without sending.
    session.click(&format!("{row} .phone-publish")).await;
    session
        .wait_for("document.getElementById('phone-dialog').open")
        .await;
    session.retype("#phone-password", PASSWORD).await;
    session.click("#phone-find").await;
    session
        .wait_for("!document.getElementById('phone-choice').hidden")
        .await;
    session
        .execute(
            "document.getElementById('phone-collection').value = arguments[0];",
            json!([url.clone()]),
        )
        .await;
    session.click("#phone-publish").await;
    session
        .wait_for(&format!(
            "document.querySelector(\"{row} .phone-sync\").textContent.startsWith('On your phone: synced')"
        ))
        .await;
    assert_eq!(
        settings_file(&instance)["publishedCalendars"][0]["url"],
        url
    );

    // Removing the calendar stops publishing it first (the setting may not
    // name a calendar that is gone).
    session.click(&format!("{row} .remove")).await;
    session.click("#remove-confirm").await;
    session
        .wait_for(&format!("!document.querySelector(\"{row}\")"))
        .await;
    let settings = settings_file(&instance);
    assert_eq!(settings["publishedCalendars"], json!([]));
    assert_eq!(settings["calendarSources"], json!([]));
    assert_eq!(keyring.get(&password_key(CALENDAR)).unwrap(), None);
}
