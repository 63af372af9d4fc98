//! The first start, through the real Settings window (tauri-driver +
//! WebKitWebDriver under Xvfb): a welcome, the settings' sections out of
//! view. It offers the vaults in Obsidian's own vault list
//! (`$XDG_CONFIG_HOME/obsidian/obsidian.json`, written as Obsidian writes
//! it), marks the one holding Full Calendar settings, and choosing it makes
//! it the vault and imports its calendars and display settings once
//! confirmed; then start at login, then the calendar, which opens on the
//! plugin's first day (Monday) with its 24-hour times. Without Obsidian's
//! list, it says how to choose a folder. The start-at-login switch shows
//! off: no autostart entry exists before an answer. A settings section asked
//! for from the calendar (its list's ⚙) ends the welcome.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::Datelike;

use serde_json::{Value, json};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

/// An instance on its first start: the start-at-login question unanswered.
fn first_start() -> AppHarness {
    let instance = AppHarness::new();
    std::fs::remove_file(instance.data_home().join("almanac/autostart-asked")).unwrap();
    instance
}

fn settings_file(instance: &AppHarness) -> Value {
    let path = instance.config_home().join("almanac/settings.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Every file and folder under `dir`: bytes (files) and modification time.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>, SystemTime)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        if path.is_dir() {
            files.push((path.clone(), Vec::new(), modified));
            files.extend(tree(&path));
        } else {
            files.push((path.clone(), std::fs::read(&path).unwrap(), modified));
        }
    }
    files.sort();
    files
}

/// A vault Full Calendar Remastered configured: a notes folder (holding a
/// stand-up at 9:30 today) and daily notes, reminder defaults, weeks from
/// Monday, 24-hour times, the week view.
fn plugin_vault(root: &Path) -> PathBuf {
    let vault = root.join("Work Notes");
    let settings = vault.join(".obsidian/plugins/full-calendar-remastered/data.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::create_dir_all(vault.join("Calendar")).unwrap();
    let today = chrono::Utc::now().date_naive();
    std::fs::write(
        vault.join("Calendar/Standup.md"),
        format!(
            "---\ntitle: Standup\nallDay: false\ndate: {today}\nstartTime: \"09:30\"\nendTime: \"10:00\"\n---\n"
        ),
    )
    .unwrap();
    let data = json!({
        "calendarSources": [
            {"type": "local", "id": "local_1", "name": "Team", "directory": "Calendar", "color": "#2e7d32"},
            {"type": "dailynote", "id": "dailynote_1", "name": "Journal", "heading": "Events",
             "format": "default", "color": "#6a1b9a"}
        ],
        "defaultCalendar": 0,
        "firstDay": 1,
        "timeFormat24h": true,
        "initialView": {"desktop": "timeGridWeek", "mobile": "timeGrid3Days"},
        "enableReminders": true,
        "enableDefaultReminder": true,
        "defaultReminderMinutes": 15,
        "currentVersion": "0.13.1"
    });
    std::fs::write(&settings, serde_json::to_vec_pretty(&data).unwrap()).unwrap();
    vault
}

/// A first start in a locale of the 12-hour clock (so the 24-hour times
/// come from the import), without a `LC_TIME` or `LC_ALL` of the machine's.
async fn start_in_english(instance: &AppHarness) -> Session {
    Session::start_with_env(
        instance,
        "settings",
        Theme::Light,
        &[("LANG", "en_US.UTF-8"), ("LC_ALL", ""), ("LC_TIME", "")],
    )
    .await
}

#[tokio::test]
async fn a_first_start_welcomes_imports_the_chosen_vault_then_opens_its_calendar() {
    let instance = first_start();
    let work = plugin_vault(instance.root());
    let plain = instance.root().join("Plain");
    std::fs::create_dir_all(plain.join(".obsidian")).unwrap();
    let list = instance.config_home().join("obsidian/obsidian.json");
    std::fs::create_dir_all(list.parent().unwrap()).unwrap();
    std::fs::write(
        &list,
        serde_json::to_vec(&json!({"vaults": {
            "3f2a9c1d7e6b5a40": {"path": work, "ts": 1_764_000_000_000_i64, "open": true},
            "c0ffee1234567890": {"path": plain, "ts": 1_764_100_000_000_i64},
            "0123456789abcdef": {"path": instance.root().join("Deleted"), "ts": 1_764_200_000_000_i64}
        }}))
        .unwrap(),
    )
    .unwrap();
    let obsidian = tree(&work.join(".obsidian"));

    let session = start_in_english(&instance).await;
    session
        .wait_for("document.getElementById('first-start').dataset.ready === 'true'")
        .await;
    session
        .wait_for("document.getElementById('startup').dataset.ready === 'true'")
        .await;
    // Most recently opened first, the deleted folder left out, the plugin's
    // vault marked; the switch off, as no autostart entry exists.
    let shown = session
        .execute(
            "return [document.getElementById('first-start').hidden,
                     [...document.querySelectorAll('#first-start-vaults li')].map((li) =>
                       [li.dataset.path, li.querySelector('button').textContent,
                        li.querySelector('.has-plugin')?.textContent ?? null]),
                     document.getElementById('first-start-none').hidden,
                     document.getElementById('autostart-question').hidden,
                     document.getElementById('autostart-enabled').checked,
                     getComputedStyle(document.querySelector('.settings-nav')).display,
                     getComputedStyle(document.getElementById('panel-api')).display]",
            json!([]),
        )
        .await;
    assert_eq!(
        shown,
        json!([
            false,
            [
                [plain, "Plain", null],
                [work, "Work Notes", "Full Calendar settings to import"]
            ],
            true,
            false,
            false,
            // The welcome alone: no section tabs, no API & Security.
            "none",
            "none"
        ])
    );
    assert!(
        !instance
            .home()
            .join(".config/autostart/Almanac.desktop")
            .exists()
    );

    // Choosing the plugin's vault: it becomes the vault, and the import is
    // offered as Settings › Vault offers it, nothing imported before Import.
    session
        .click("#first-start-vaults li:nth-child(2) button")
        .await;
    session
        .wait_for("!document.getElementById('import-offer').hidden")
        .await;
    assert_eq!(settings_file(&instance)["vaultPath"], json!(work));
    let offer = session.text("#import-offer").await;
    for expected in [
        "Work Notes",
        ".obsidian/plugins/full-calendar-remastered/data.json",
        "Import its 2 calendars?",
        "Default reminder, minutes before: 15",
        "Weeks start on Monday",
        "Times on a 24-hour clock (09:30)",
        "The calendar opens in: Week, with times",
    ] {
        assert!(
            offer.contains(expected),
            "{expected:?} missing from {offer}"
        );
    }
    assert_eq!(
        settings_file(&instance)["calendarSources"][0]["id"],
        "local"
    );

    session.click("#import-confirm").await;
    session
        .wait_for("document.getElementById('import-offer').hidden")
        .await;
    let settings = settings_file(&instance);
    let ids: Vec<_> = settings["calendarSources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|source| source["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["local_1", "dailynote_1"]);
    assert_eq!(settings["reminders"]["defaultMinutes"], 15);
    assert_eq!(settings["vaultName"], "Work Notes");
    assert_eq!(settings["firstDay"], 1);
    assert_eq!(settings["timeFormat24h"], true);
    assert_eq!(settings["initialView"], "timeGridWeek");
    assert_eq!(
        tree(&work.join(".obsidian")),
        obsidian,
        "nothing under .obsidian is written"
    );
    session
        .wait_for("document.getElementById('welcome-status').textContent.startsWith('Imported')")
        .await;

    // Start at login: not now. Then the calendar, in the settings' place.
    session.click("#autostart-no").await;
    session
        .wait_for("document.getElementById('autostart-question').hidden")
        .await;
    let settings_window = session.window_handle().await;
    session.click_closing_window("#welcome-open-calendar").await;
    let calendar = support::eventually("the calendar window", || async {
        for handle in session.window_handles().await {
            if handle != settings_window
                && session
                    .page_in(&handle)
                    .await
                    .is_some_and(|page| page.contains("calendar"))
            {
                return Some(handle);
            }
        }
        None
    })
    .await;
    session.switch_to_window(&calendar).await;
    session
        .wait_for("document.body.dataset.ready === 'true' && document.body.dataset.view === 'timeGridWeek'")
        .await;
    session
        .wait_for("document.querySelector(\".fc-event[data-title='Standup'] .fc-event-time\")")
        .await;
    let shown = session
        .execute(
            "return [[...document.querySelectorAll('.fc-col-header-cell')].map((c) => c.dataset.date)[0],
                     document.querySelector('.fc-col-header-cell').classList.contains('fc-day-mon'),
                     document.querySelector(\".fc-event[data-title='Standup'] .fc-event-time\").textContent,
                     document.querySelector(\".fc-timegrid-slot-label[data-time='09:00:00'] .fc-timegrid-slot-label-cushion\").textContent,
                     document.querySelector(\".fc-timegrid-slot-label[data-time='15:00:00'] .fc-timegrid-slot-label-cushion\").textContent]",
            json!([]),
        )
        .await;
    let monday = {
        let today = chrono::Utc::now().date_naive();
        today - chrono::Duration::days(i64::from(today.weekday().num_days_from_monday()))
    };
    assert_eq!(
        shown,
        json!([monday.to_string(), true, "09:30 - 10:00", "09:00", "15:00"])
    );
    assert!(
        session
            .window_handles()
            .await
            .iter()
            .all(|h| *h != settings_window),
        "the welcome's window closed"
    );
    session.end().await;
}

#[tokio::test]
async fn a_first_start_without_obsidians_list_says_how_to_choose_a_vault() {
    let instance = first_start();
    let session = start_in_english(&instance).await;
    session
        .wait_for("document.getElementById('first-start').dataset.ready === 'true'")
        .await;
    let shown = session
        .execute(
            "return [document.getElementById('first-start').hidden,
                     document.getElementById('first-start-none').hidden,
                     document.querySelectorAll('#first-start-vaults li').length]",
            json!([]),
        )
        .await;
    assert_eq!(shown, json!([false, false, 0]));
    let none = session.text("#first-start-none").await;
    assert!(
        none.contains("No Obsidian vault was found") && none.contains("Settings › Vault"),
        "{none}"
    );
    session.click("#first-start-to-vault").await;
    session
        .wait_for("!document.getElementById('panel-vault').hidden")
        .await;
    assert_eq!(session.focused_id().await, "vault-path");
    session.end().await;
}

#[tokio::test]
async fn a_settings_section_asked_for_from_the_calendar_ends_the_welcome() {
    let instance = first_start();
    // The first start opens the welcome beside the calendar the driver asks for.
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;
    let calendar = session.window_handle().await;
    let settings = support::eventually("the welcome", || async {
        for handle in session.window_handles().await {
            if handle != calendar
                && session
                    .page_in(&handle)
                    .await
                    .is_some_and(|page| page.contains("settings"))
                && session
                    .execute(
                        "return document.getElementById('first-start').dataset.ready === 'true'",
                        json!([]),
                    )
                    .await
                    == json!(true)
            {
                return Some(handle);
            }
        }
        None
    })
    .await;
    assert_eq!(
        session
            .execute(
                "return document.body.classList.contains('welcoming')",
                json!([])
            )
            .await,
        json!(true)
    );

    // The calendar list's ⚙: Settings on Calendars, the welcome gone.
    session.switch_to_window(&calendar).await;
    session.click("#calendar-list .cal-settings").await;
    session.switch_to_window(&settings).await;
    session
        .wait_for("document.body.dataset.section === 'calendars' && !document.body.classList.contains('welcoming')")
        .await;
    let shown = session
        .execute(
            "return [getComputedStyle(document.getElementById('panel-calendars')).display !== 'none',
                     document.getElementById('first-start').hidden,
                     document.getElementById('import-offer').closest('#panel-vault') !== null]",
            json!([]),
        )
        .await;
    assert_eq!(shown, json!([true, true, true]));
    session.end().await;
}
