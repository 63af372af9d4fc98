//! Settings › Calendars, Vault, Display and Reminders, driven through the
//! real window (tauri-driver + WebKitWebDriver under Xvfb) against a real
//! vault, the settings file and the real REST server; and each section in
//! light and dark, saved under `artifacts/screenshots/` for review.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const TAB: &str = "\u{E004}";
const ENTER: &str = "\u{E007}";
const HOME: &str = "\u{E011}";
const BACKSPACE: &str = "\u{E003}";

fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// The settings file as the app last wrote it.
fn settings_file(instance: &AppHarness) -> Value {
    let path = instance.config_home().join("almanac/settings.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Waits until the settings file satisfies `check` (the app writes it before
/// it answers the window, but the window's answer is not awaited here).
async fn settings_file_where(instance: &AppHarness, what: &str, check: impl Fn(&Value) -> bool) {
    support::eventually(what, || async {
        let settings = settings_file(instance);
        check(&settings).then_some(())
    })
    .await;
}

/// The titles of today's events as the REST server answers them.
async fn api_titles(instance: &AppHarness, secret: &str) -> Vec<String> {
    let today = today();
    let answer: Value = reqwest::Client::new()
        .get(format!(
            "{}/events?start={today}&end={today}",
            instance.api()
        ))
        .bearer_auth(secret)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|event| event["title"].as_str().unwrap().to_string())
        .collect()
}

/// Replaces the text of the input matching `css` by typing `text`, as a user
/// would after selecting the old text.
async fn retype(session: &Session, css: &str, text: &str) {
    if text.is_empty() {
        // Select the text and delete it with the keyboard: a real edit, so
        // leaving the field commits it (fires `change`).
        session
            .execute(
                "const input = document.querySelector(arguments[0]); input.focus(); input.select();",
                json!([css]),
            )
            .await;
        session.press(BACKSPACE).await;
        return;
    }
    session.retype(css, text).await;
}

/// Replaces the text of the input matching `css` and presses Enter.
async fn submit(session: &Session, css: &str, text: &str) {
    retype(session, css, text).await;
    session.press(ENTER).await;
}

/// Chooses `value` in the select matching `css` as its popup menu would (a
/// click opens GTK's native menu, which WebDriver cannot drive).
async fn choose(session: &Session, css: &str, value: &str) {
    session
        .execute(
            "const select = document.querySelector(arguments[0]); select.value = arguments[1]; \
             select.dispatchEvent(new Event('change'));",
            json!([css, value]),
        )
        .await;
}

/// The DOM property `name` of the element `id`.
async fn property(session: &Session, id: &str, name: &str) -> Value {
    session
        .execute(
            "return document.getElementById(arguments[0])[arguments[1]]",
            json!([id, name]),
        )
        .await
}

/// Opens a section by its tab.
async fn open_section(session: &Session, section: &str) {
    let page = session
        .execute("return location.pathname + ' ' + document.title", json!([]))
        .await;
    assert!(
        page.as_str().unwrap().starts_with("/settings.html"),
        "{page}"
    );
    session.click(&format!("#tab-{section}")).await;
    session
        .wait_for(&format!(
            "!document.getElementById('panel-{section}').hidden"
        ))
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
async fn calendars_are_added_renamed_recoloured_and_removed() {
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    let secret = instance.seed_token("e2e reader", &["events:read"]);
    let today = today();
    let work = instance.vault().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let note = work.join(format!("{today} Design review.md"));
    std::fs::write(
        &note,
        format!("---\ntitle: Design review\nallDay: true\ndate: {today}\n---\nAgenda.\n"),
    )
    .unwrap();
    let session = Session::start(&instance, "settings", Theme::Light).await;

    // The section tabs are one tab stop; Home reaches the first section.
    assert_eq!(session.focused_id().await, "tab-api");
    session.press(HOME).await;
    session
        .wait_for("!document.getElementById('panel-calendars').hidden")
        .await;
    assert_eq!(session.focused_id().await, "tab-calendars");
    let listed = session.text("#calendar-list").await;
    assert!(listed.contains("Notes folder events"), "{listed}");
    assert!(
        !api_titles(&instance, &secret)
            .await
            .contains(&"Design review".to_string())
    );

    // Errors from the core, each next to its field, and nothing saved.
    let before = settings_file(&instance);
    session.type_into("#add-directory", "work").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-name-error").await;
    assert!(error.contains("needs a name"), "{error}");
    session.type_into("#add-name", "Work").await;
    retype(&session, "#add-directory", "../outside").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-directory-error").await;
    assert!(error.contains("leaves the vault"), "{error}");
    choose(&session, "#add-type", "ical").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-url-error").await;
    assert!(error.contains("address of the ICS feed"), "{error}");
    session
        .type_into("#add-url", "ftp://example.org/team.ics")
        .await;
    session.click("#add-submit").await;
    let error = message(&session, "add-url-error").await;
    assert!(error.contains("is not an http(s) address"), "{error}");
    assert!(!error.contains('{'), "no JSON in errors: {error}");
    choose(&session, "#add-type", "dailynote").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-heading-error").await;
    assert!(error.contains("heading"), "{error}");
    assert_eq!(
        settings_file(&instance)["calendarSources"],
        before["calendarSources"],
        "a refused change saved nothing"
    );

    // Add a notes folder: the settings file has it and its notes are served.
    choose(&session, "#add-type", "local").await;
    retype(&session, "#add-directory", "work").await;
    session.click("#add-submit").await;
    session
        .wait_for("document.querySelector(\"li[data-calendar-id='local_1']\")")
        .await;
    let sources = settings_file(&instance)["calendarSources"].clone();
    assert_eq!(sources[1]["id"], "local_1");
    assert_eq!(sources[1]["name"], "Work");
    assert_eq!(sources[1]["type"], "local");
    assert_eq!(sources[1]["directory"], "work");
    support::eventually("the new calendar's event in the API", || async {
        api_titles(&instance, &secret)
            .await
            .contains(&"Design review".to_string())
            .then_some(())
    })
    .await;
    session
        .wait_for("document.querySelector(\"li[data-calendar-id='local_1'] .calendar-count\").textContent === '1 event'")
        .await;

    // Rename (typed, committed by leaving the field) and recolour; a name
    // left empty is refused in the row and the old one comes back.
    let row = "li[data-calendar-id='local_1']";
    retype(&session, &format!("{row} .calendar-name"), "").await;
    session.press(TAB).await;
    let error = session
        .wait_for(&format!(
            "document.querySelector(\"{row} .field-error\").textContent"
        ))
        .await;
    assert!(error.as_str().unwrap().contains("needs a name"), "{error}");
    session
        .wait_for(&format!(
            "document.querySelector(\"{row} .calendar-name\").value === 'Work'"
        ))
        .await;
    retype(&session, &format!("{row} .calendar-name"), "Office").await;
    session.press(TAB).await;
    settings_file_where(&instance, "the new name", |s| {
        s["calendarSources"][1]["name"] == "Office"
    })
    .await;
    session
        .execute(
            "const input = document.querySelector(arguments[0]); input.value = '#e0245e'; \
             input.dispatchEvent(new Event('change'));",
            json!([format!("{row} .calendar-color")]),
        )
        .await;
    // Sent right after the rename was saved: the recolour keeps the new name.
    settings_file_where(&instance, "the new colour", |s| {
        s["calendarSources"][1]["color"] == "#e0245e"
    })
    .await;
    assert_eq!(
        settings_file(&instance)["calendarSources"][1]["name"],
        "Office",
        "a recolour never sends back the name from before a rename"
    );
    // The row follows the saved settings (their change event), not the file.
    session
        .wait_for(&format!(
            "document.querySelector(\"{row} .remove\").getAttribute('aria-label') === 'Remove Office'"
        ))
        .await;

    // Remove, confirmed: gone from the settings and the API, the note stays.
    session.click(&format!("{row} .remove")).await;
    session
        .wait_for("document.getElementById('remove-dialog').open")
        .await;
    assert!(session.text("#remove-dialog").await.contains("Office"));
    session.click("#remove-confirm").await;
    session
        .wait_for(&format!("!document.querySelector(\"{row}\")"))
        .await;
    settings_file_where(&instance, "the calendar removed", |s| {
        s["calendarSources"].as_array().unwrap().len() == 1
    })
    .await;
    support::eventually("the removed calendar's event gone from the API", || async {
        (!api_titles(&instance, &secret)
            .await
            .contains(&"Design review".to_string()))
        .then_some(())
    })
    .await;
    assert!(note.exists(), "removing a calendar never deletes its notes");
    session.end().await;
}

/// A vault shaped like one Full Calendar Remastered configured, its settings
/// where Obsidian keeps them: a notes folder, daily notes, a feed, a CalDAV
/// calendar with its password, a Google calendar (not imported), and
/// reminder defaults.
fn plugin_vault(root: &Path) -> PathBuf {
    let vault = root.join("Team vault");
    let plugin = vault.join(".obsidian/plugins/full-calendar-remastered");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::create_dir_all(vault.join("Calendar")).unwrap();
    std::fs::write(
        plugin.join("data.json"),
        serde_json::to_vec_pretty(&json!({
            "defaultCalendar": 0,
            "firstDay": 1,
            "calendarSources": [
                { "type": "local", "id": "local_1", "name": "Team", "color": "#2e7d32",
                  "directory": "Calendar" },
                { "type": "dailynote", "id": "dailynote_1", "name": "Journal",
                  "color": "#6a1b9a", "heading": "Events" },
                // Loopback: refused by the feed guard, so no request leaves.
                { "type": "ical", "id": "ical_1", "name": "Holidays", "color": "#c62828",
                  "url": "http://127.0.0.1:9/holidays.ics" },
                // Loopback, a closed port: no request leaves this machine.
                { "type": "caldav", "id": "caldav_1", "name": "Work server", "color": "#000",
                  "url": "http://127.0.0.1:9/", "username": "ada", "password": "s3cret" },
                { "type": "google", "id": "google_1", "name": "Team Google", "color": "#111",
                  "calendarId": "team@example.com" },
            ],
            "enableReminders": true,
            "enableDefaultReminder": true,
            "defaultReminderMinutes": 15,
        }))
        .unwrap(),
    )
    .unwrap();
    std::fs::write(
        vault.join(format!("Calendar/{} Retro.md", today())),
        format!("---\ntitle: Retro\nallDay: true\ndate: {}\n---\n", today()),
    )
    .unwrap();
    vault
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

#[tokio::test]
async fn choosing_a_vault_offers_the_plugin_import() {
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    let secret = instance.seed_token("e2e reader", &["events:read"]);
    let vault = plugin_vault(instance.root());
    let obsidian = snapshot(&vault.join(".obsidian"));
    let session = Session::start(&instance, "settings", Theme::Light).await;
    open_section(&session, "vault").await;
    let picker = session
        .execute("return typeof window.__TAURI__.dialog?.open", json!([]))
        .await;
    assert_eq!(
        picker,
        json!("function"),
        "the folder picker's API is there"
    );
    assert_eq!(
        session.text("#vault-current").await,
        instance.vault().display().to_string()
    );

    // A folder that does not exist, and a relative path: refused, named.
    let missing = instance.root().join("nowhere");
    retype(&session, "#vault-path", &missing.display().to_string()).await;
    session.click("#vault-use").await;
    let error = message(&session, "vault-path-error").await;
    assert!(error.contains("cannot be opened"), "{error}");
    submit(&session, "#vault-path", "notes").await;
    let error = session
        .wait_for("document.getElementById('vault-path-error').textContent.includes('absolute')")
        .await;
    assert_eq!(error, json!(true));
    assert_eq!(
        settings_file(&instance)["vaultPath"],
        json!(instance.vault())
    );

    // The plugin's vault: the window offers its import, listing everything.
    retype(&session, "#vault-path", &vault.display().to_string()).await;
    session.click("#vault-use").await;
    session
        .wait_for("!document.getElementById('import-offer').hidden")
        .await;
    assert_eq!(settings_file(&instance)["vaultPath"], json!(vault));
    let offer = session.text("#import-offer").await;
    for expected in [
        "Team vault",
        "in .obsidian/plugins/full-calendar-remastered/data.json",
        "Import its 4 calendars?",
        "Team",
        "Notes folder Calendar",
        "Journal",
        "Holidays",
        "Work server",
        "CalDAV calendar ada at http://127.0.0.1:9/",
        "The password of Work server moves into the system keyring",
        "Team Google (google): Google Calendar is read through Google's sign-in",
        "Remind from the vault: on",
        "Default reminder for every event: on",
        "Default reminder, minutes before: 15",
    ] {
        assert!(
            offer.contains(expected),
            "{expected:?} missing from {offer}"
        );
    }
    assert_eq!(session.focused_id().await, "import-confirm");
    // Nothing is imported before the user confirms.
    assert_eq!(
        settings_file(&instance)["calendarSources"][0]["id"],
        "local"
    );

    session.click("#import-confirm").await;
    session
        .wait_for("document.getElementById('import-offer').hidden")
        .await;
    let sources = settings_file(&instance)["calendarSources"].clone();
    let ids: Vec<_> = sources
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["local_1", "dailynote_1", "ical_1", "caldav_1"]);
    let keyring = almanac_core::calendar::sources::caldav::password::Passwords::default();
    assert_eq!(keyring.get("caldav_1").unwrap().as_deref(), Some("s3cret"));
    keyring.delete("caldav_1").unwrap();
    assert!(
        !serde_json::to_string(&settings_file(&instance))
            .unwrap()
            .contains("s3cret"),
        "the password is not in the settings"
    );
    assert_eq!(sources[0]["color"], "#2e7d32");
    // The plugin's reminder defaults and the vault's name came along.
    let settings = settings_file(&instance);
    assert_eq!(settings["reminders"]["defaultReminders"], true);
    assert_eq!(settings["reminders"]["defaultMinutes"], 15);
    assert_eq!(settings["vaultName"], "Team vault");
    support::eventually("the imported calendar's event in the API", || async {
        api_titles(&instance, &secret)
            .await
            .contains(&"Retro".to_string())
            .then_some(())
    })
    .await;
    open_section(&session, "calendars").await;
    session
        .wait_for("document.querySelector(\"li[data-calendar-id='dailynote_1']\")")
        .await;
    assert_eq!(
        snapshot(&vault.join(".obsidian")),
        obsidian,
        "nothing under .obsidian is written"
    );

    // The vault's name for obsidian:// links: set, then back to the folder's.
    open_section(&session, "vault").await;
    retype(&session, "#vault-name", "Team").await;
    session.click("#vault-name-save").await;
    settings_file_where(&instance, "the vault name", |s| s["vaultName"] == "Team").await;
    submit(&session, "#vault-name", "").await;
    settings_file_where(&instance, "no vault name", |s| s["vaultName"].is_null()).await;
    assert_eq!(
        property(&session, "vault-name", "placeholder").await,
        json!("Team vault")
    );
    session.end().await;
}

/// The handle of the window showing `page` (`/calendar.html`).
async fn window_showing(session: &Session, page: &str) -> Value {
    support::eventually(page, || async {
        for handle in session.window_handles().await {
            if session.page_in(&handle).await.as_deref() == Some(page) {
                return Some(handle);
            }
        }
        None
    })
    .await
}

const EVENT_TIME: &str = "document.querySelector('.fc-timegrid-event .fc-event-time')?.textContent";
const FIRST_COLUMN: &str = "document.querySelector('.fc-col-header-cell')?.className";
/// The week view's time axis label of 15:00.
const SLOT_15: &str = "document.querySelector(\".fc-timegrid-slot-label[data-time='15:00:00'] .fc-timegrid-slot-label-cushion\")?.textContent";

#[tokio::test]
async fn time_zone_first_day_and_clock_drive_the_calendar() {
    let instance = AppHarness::with_settings(json!({ "initialView": "timeGridWeek" }));
    let today = today();
    instance.write_note(
        &format!("{today} Standup.md"),
        &format!(
            "title: Standup\nallDay: false\ndate: {today}\ntimezone: UTC\nstartTime: \"09:00\"\nendTime: \"09:30\""
        ),
    );
    let session =
        Session::start_with_env(&instance, "calendar", Theme::Light, &[("TZ", "UTC")]).await;
    let calendar = session.window_handle().await;
    session
        .wait_for(&format!("{EVENT_TIME} === '9:00 - 9:30'"))
        .await;
    assert_eq!(session.wait_for(SLOT_15).await, "3pm");
    assert!(
        session
            .wait_for(FIRST_COLUMN)
            .await
            .as_str()
            .unwrap()
            .contains("fc-day-sun")
    );

    // A second launch opens Settings in the running app.
    let mut second = instance.spawn(&["--open", "settings"]);
    assert!(second.exited().await.success(), "{}", instance.log());
    let settings = window_showing(&session, "/settings.html").await;
    session.switch_to_window(&settings).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;
    open_section(&session, "display").await;
    assert_eq!(session.text("#tz-current").await, "UTC");

    // Search narrows the zone list; Enter takes the match.
    session.type_into("#tz-search", "berl").await;
    let shown = session
        .wait_for("document.getElementById('tz-list').options.length === 1 && document.getElementById('tz-list').options[0].value")
        .await;
    assert_eq!(shown, json!("Europe/Berlin"));
    session.press(ENTER).await;
    settings_file_where(&instance, "the Berlin zone", |s| {
        s["displayTimezone"] == "Europe/Berlin"
    })
    .await;
    session
        .wait_for("document.getElementById('tz-current').textContent === 'Europe/Berlin'")
        .await;
    // Every IANA zone is offered: search for one by its city, spaces for `_`.
    retype(&session, "#tz-search", "new york").await;
    session
        .wait_for("[...document.getElementById('tz-list').options].some((o) => o.value === 'America/New_York')")
        .await;
    retype(&session, "#tz-search", "").await;
    let count = session
        .wait_for("document.getElementById('tz-list').options.length")
        .await;
    assert!(count.as_u64().unwrap() > 400, "{count}");

    // First day: Monday.
    choose(&session, "#first-day", "1").await;
    settings_file_where(&instance, "Monday first", |s| s["firstDay"] == 1).await;
    // Times: the 24-hour clock.
    assert_eq!(
        session
            .execute(
                "return document.getElementById('time-format').value",
                json!([])
            )
            .await,
        "12"
    );
    choose(&session, "#time-format", "24").await;
    settings_file_where(&instance, "the 24-hour clock", |s| {
        s["timeFormat24h"] == true
    })
    .await;

    // The calendar follows all three, without a reload.
    session.switch_to_window(&calendar).await;
    // Only the settings window may open the folder picker.
    let refused = session
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.__TAURI__.core.invoke('plugin:dialog|open', { options: { directory: true } })
               .then(() => done('opened'), (e) => done(String(e)));",
        )
        .await;
    assert!(
        refused.as_str().unwrap().contains("not allowed"),
        "{refused}"
    );
    session
        .wait_for(&format!("{EVENT_TIME} === '10:00 - 10:30'"))
        .await;
    session
        .wait_for(&format!("{FIRST_COLUMN}.includes('fc-day-mon')"))
        .await;
    session.wait_for(&format!("{SLOT_15} === '15:00'")).await;
    session.end().await;
}

#[tokio::test]
async fn reminder_settings_persist_and_refuse_bad_values() {
    let instance = AppHarness::new();
    let session = Session::start(&instance, "settings", Theme::Dark).await;
    open_section(&session, "reminders").await;
    let reminders = |s: &Value| s["reminders"].clone();
    assert_eq!(
        property(&session, "vault-reminders", "checked").await,
        json!(true),
        "vault reminders are on by default"
    );

    session.click("#vault-reminders").await;
    settings_file_where(&instance, "vault reminders off", |s| {
        s["reminders"]["vaultReminders"] == false
    })
    .await;
    assert_eq!(
        property(&session, "default-minutes", "disabled").await,
        json!(true),
        "minutes wait for default reminders"
    );
    session.click("#default-reminders").await;
    settings_file_where(&instance, "default reminders on", |s| {
        s["reminders"]["defaultReminders"] == true
    })
    .await;
    session
        .wait_for("!document.getElementById('default-minutes').disabled")
        .await;
    submit(&session, "#default-minutes", "25").await;
    settings_file_where(&instance, "25 minutes", |s| {
        s["reminders"]["defaultMinutes"] == 25
    })
    .await;

    // Out of range: the core's reason next to the field, nothing written.
    submit(&session, "#horizon-days", "400").await;
    let error = message(&session, "horizon-days-error").await;
    assert!(error.contains("outside 1-366"), "{error}");
    submit(&session, "#default-minutes", "99999").await;
    let error = message(&session, "default-minutes-error").await;
    assert!(error.contains("outside 0-10080"), "{error}");
    submit(&session, "#grace-hours", "two").await;
    let error = message(&session, "grace-hours-error").await;
    assert_eq!(error, "Enter a whole number.");
    let saved = reminders(&settings_file(&instance));
    assert_eq!(saved["horizonDays"], 30);
    assert_eq!(saved["defaultMinutes"], 25);

    submit(&session, "#horizon-days", "90").await;
    settings_file_where(&instance, "90 days", |s| {
        s["reminders"]["horizonDays"] == 90
    })
    .await;
    submit(&session, "#grace-hours", "6").await;
    settings_file_where(&instance, "6 hours", |s| {
        s["reminders"]["graceWindowHours"] == 6
    })
    .await;
    session.end().await;

    // A new window shows what was saved.
    let session = Session::start(&instance, "settings", Theme::Light).await;
    open_section(&session, "reminders").await;
    let shown = session
        .execute(
            "return ['vault-reminders', 'default-reminders'].map((id) => document.getElementById(id).checked)
               .concat(['default-minutes', 'horizon-days', 'grace-hours'].map((id) => document.getElementById(id).value))",
            json!([]),
        )
        .await;
    assert_eq!(shown, json!([false, true, "25", "90", "6"]));
    session.end().await;
}

// ---- Screenshots -----------------------------------------------------------

fn screenshot_path(section: &str, theme: Theme) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../artifacts/screenshots")
        .join(format!("settings-{section}-{}.png", theme.name()))
}

/// Resolves after the page has painted twice since the call: what the
/// screenshot shows is what the test asserted.
async fn painted(session: &Session) {
    session
        .execute_async(
            "const done = arguments[arguments.length - 1];
             requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
        )
        .await;
}

#[tokio::test]
async fn sections_light_and_dark() {
    for theme in [Theme::Light, Theme::Dark] {
        let instance = AppHarness::with_settings(json!({
            "calendarSources": [
                { "id": "local", "name": "Events", "color": "#3788d8", "type": "local",
                  "directory": "events" },
                { "id": "journal", "name": "Journal", "color": "#8e24aa", "type": "dailynote",
                  "heading": "Events" },
                { "id": "holidays", "name": "Public holidays", "color": "#e0245e", "type": "ical",
                  "url": "http://127.0.0.1:9/holidays.ics" },
            ],
        }));
        let vault = plugin_vault(instance.root());
        let session = Session::start(&instance, "settings", theme).await;

        open_section(&session, "calendars").await;
        session
            .wait_for("document.querySelector(\"li[data-calendar-id='holidays']\")")
            .await;
        session.type_into("#add-name", "Work").await;
        session.type_into("#add-directory", "../work").await;
        session.click("#add-submit").await;
        message(&session, "add-directory-error").await;
        painted(&session).await;
        session
            .screenshot(&screenshot_path("calendars", theme))
            .await;

        open_section(&session, "vault").await;
        retype(&session, "#vault-path", &vault.display().to_string()).await;
        session.click("#vault-use").await;
        session
            .wait_for("!document.getElementById('import-offer').hidden")
            .await;
        // Calendars of the user's own: those are listed, not imported.
        let offer = session.text("#import-offer").await;
        assert!(
            offer.contains("Not imported: Team Google (google)"),
            "{offer}"
        );
        assert!(offer.contains("already has calendars"), "{offer}");
        painted(&session).await;
        session.screenshot(&screenshot_path("vault", theme)).await;

        open_section(&session, "display").await;
        session.type_into("#tz-search", "europe/b").await;
        session
            .wait_for("document.getElementById('tz-list').options.length > 1")
            .await;
        painted(&session).await;
        session.screenshot(&screenshot_path("display", theme)).await;

        open_section(&session, "reminders").await;
        session.click("#default-reminders").await;
        session
            .wait_for("!document.getElementById('default-minutes').disabled")
            .await;
        painted(&session).await;
        session
            .screenshot(&screenshot_path("reminders", theme))
            .await;

        open_section(&session, "api").await;
        session
            .wait_for("document.getElementById('rest-status').dataset.state")
            .await;
        painted(&session).await;
        session.screenshot(&screenshot_path("api", theme)).await;
        session.end().await;
    }
}
