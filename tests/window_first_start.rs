//! The first start, through the real Settings window (tauri-driver +
//! WebKitWebDriver under Xvfb): it offers the vaults in Obsidian's own vault
//! list (`$XDG_CONFIG_HOME/obsidian/obsidian.json`, written as Obsidian
//! writes it), marks the one holding Full Calendar settings, and choosing it
//! makes it the vault and imports its calendars once confirmed. Without
//! Obsidian's list, it says how to choose a folder. The start-at-login
//! switch shows off: no autostart entry exists before an answer.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

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

/// A vault Full Calendar Remastered configured: a notes folder and daily
/// notes, reminder defaults.
fn plugin_vault(root: &Path) -> PathBuf {
    let vault = root.join("Work Notes");
    let settings = vault.join(".obsidian/plugins/full-calendar-remastered/data.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::create_dir_all(vault.join("Calendar")).unwrap();
    let data = json!({
        "calendarSources": [
            {"type": "local", "id": "local_1", "name": "Team", "directory": "Calendar", "color": "#2e7d32"},
            {"type": "dailynote", "id": "dailynote_1", "name": "Journal", "heading": "Events",
             "format": "default", "color": "#6a1b9a"}
        ],
        "defaultCalendar": 0,
        "firstDay": 1,
        "enableReminders": true,
        "enableDefaultReminder": true,
        "defaultReminderMinutes": 15,
        "currentVersion": "0.13.1"
    });
    std::fs::write(&settings, serde_json::to_vec_pretty(&data).unwrap()).unwrap();
    vault
}

#[tokio::test]
async fn a_first_start_offers_obsidians_vaults_and_imports_the_chosen_one() {
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

    let session = Session::start(&instance, "settings", Theme::Light).await;
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
                     document.getElementById('autostart-enabled').checked]",
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
            false
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
    assert_eq!(
        tree(&work.join(".obsidian")),
        obsidian,
        "nothing under .obsidian is written"
    );
    session.end().await;
}

#[tokio::test]
async fn a_first_start_without_obsidians_list_says_how_to_choose_a_vault() {
    let instance = first_start();
    let session = Session::start(&instance, "settings", Theme::Light).await;
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
