//! Settings › Calendars adds the two read-only kinds that read no note
//! folder: a country's public holidays and an `.ics` file of the vault.
//! Driven through the real window (tauri-driver + WebKitWebDriver under
//! Xvfb) against a real vault and the settings file.

use crate::support;

use serde_json::{Value, json};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const HOME: &str = "\u{E011}";

const SCHOOL: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:term@school\r\nDTSTART;VALUE=DATE:20260907\r\nSUMMARY:Term starts\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";

fn settings_file(instance: &AppHarness) -> Value {
    let path = instance.config_home().join("almanac/settings.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Chooses `value` in the select matching `css` as its popup menu would.
async fn choose(session: &Session, css: &str, value: &str) {
    session
        .execute(
            "const select = document.querySelector(arguments[0]); select.value = arguments[1]; \
             select.dispatchEvent(new Event('change'));",
            json!([css, value]),
        )
        .await;
}

/// The text of the element `id` once it is not empty.
async fn message(session: &Session, id: &str) -> String {
    let text = session
        .wait_for(&format!("document.getElementById('{id}').textContent"))
        .await;
    text.as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_holiday_calendar_and_a_vault_ics_file_are_added() {
    let instance = AppHarness::with_settings(json!({}));
    let calendars = instance.vault().join("calendars");
    std::fs::create_dir_all(&calendars).unwrap();
    std::fs::write(calendars.join("school.ics"), SCHOOL).unwrap();
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session.press(HOME).await;
    session
        .wait_for("!document.getElementById('panel-calendars').hidden")
        .await;

    // Holidays: the fields show for the kind; a country the data lacks is
    // refused next to its field, and nothing is saved.
    let before = settings_file(&instance);
    choose(&session, "#add-type", "holidays").await;
    assert_eq!(
        session
            .execute(
                "return document.getElementById('add-country').closest('.field').hidden",
                json!([])
            )
            .await,
        false
    );
    session.type_into("#add-name", "Feiertage").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-country-error").await;
    assert!(error.contains("country"), "{error}");
    session.type_into("#add-country", "XX").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-country-error").await;
    assert!(error.contains("`XX`"), "{error}");
    assert_eq!(
        settings_file(&instance)["calendarSources"],
        before["calendarSources"],
        "a refused change saved nothing"
    );
    session.retype("#add-country", "DE").await;
    session.type_into("#add-subdivision", "BY").await;
    session.click("#add-submit").await;
    session
        .wait_for("document.querySelector(\"li[data-calendar-id='holidays_1']\")")
        .await;
    let sources = settings_file(&instance)["calendarSources"].clone();
    assert_eq!(sources[1]["type"], "holidays");
    assert_eq!(sources[1]["country"], "DE");
    assert_eq!(sources[1]["subdivision"], "BY");
    let listed = session.text("li[data-calendar-id='holidays_1']").await;
    assert!(listed.contains("Public holidays of DE-BY"), "{listed}");
    session
        .wait_for(
            "/^[1-9][0-9]+ events$/.test(document.querySelector(\"li[data-calendar-id='holidays_1'] \
             .calendar-count\")?.textContent ?? '')",
        )
        .await;

    // A vault .ics file: a path that is not one is refused; the file is read.
    choose(&session, "#add-type", "icsfile").await;
    session.type_into("#add-name", "School").await;
    session.type_into("#add-path", "calendars/school.md").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-path-error").await;
    assert!(error.contains("not an .ics file"), "{error}");
    session.retype("#add-path", "calendars/school.ics").await;
    session.click("#add-submit").await;
    session
        .wait_for(
            "document.querySelector(\"li[data-calendar-id='icsfile_1'] .calendar-count\")\
             ?.textContent === '1 event'",
        )
        .await;
    let sources = settings_file(&instance)["calendarSources"].clone();
    assert_eq!(sources[2]["type"], "icsfile");
    assert_eq!(sources[2]["path"], "calendars/school.ics");
}
