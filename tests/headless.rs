//! Black-box tests of the `almanac` binary in headless mode.

use crate::support;

use std::process::Command;

use serde_json::json;
use support::instance::AppHarness;
use support::{epoch_now, eventually, free_port, port_open};

#[test]
fn help_names_headless_mode() {
    let out = Command::new(env!("CARGO_BIN_EXE_almanac"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--headless"));
}

#[test]
fn unknown_argument_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_almanac"))
        .arg("--frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown argument"));
}

/// Both servers on the configured ports, with the real keyring (the
/// session's gnome-keyring), then SIGTERM: exit 0 and both ports closed.
#[tokio::test]
async fn headless_serves_both_ports_and_stops_cleanly_on_sigterm() {
    support::require_desktop_session();
    let instance = AppHarness::with_settings(serde_json::json!({ "restServerEnabled": true }));
    let mut app = instance.spawn(&["--headless"]);
    for (name, port) in [
        ("REST", instance.rest_port),
        ("reminder daemon", instance.daemon_port),
    ] {
        eventually(&format!("the {name} port"), || async {
            port_open(port).then_some(())
        })
        .await;
    }

    // Alive for real: the REST server checks tokens (401 without one), the
    // daemon answers its status route.
    let http = reqwest::Client::new();
    let events = http
        .get(format!("{}/events", instance.api()))
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), reqwest::StatusCode::UNAUTHORIZED);
    let status = http
        .get(format!("http://127.0.0.1:{}/status", instance.daemon_port))
        .send()
        .await
        .unwrap();
    assert!(status.status().is_success());
    assert!(
        !instance.log().contains("keyring is unavailable"),
        "the real keyring was reachable:\n{}",
        instance.log()
    );

    app.terminate();
    let exit = app.exited().await;
    assert_eq!(exit.code(), Some(0), "log:\n{}", instance.log());
    assert!(!port_open(instance.rest_port) && !port_open(instance.daemon_port));
    assert!(
        instance.log().contains("services stopped"),
        "{}",
        instance.log()
    );
}

/// `PUT /settings {"reminders": …}` takes effect without a restart: the
/// daemon moves to the new port (the old one closes) and follows the new
/// scheme allowlist, in both directions.
#[tokio::test]
async fn reminder_settings_apply_to_the_running_daemon() {
    support::require_desktop_session();
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    let token = instance.seed_token("live settings test", &["system:full-access"]);
    let mut app = instance.spawn(&["--headless"]);
    for port in [instance.rest_port, instance.daemon_port] {
        eventually("both ports", || async { port_open(port).then_some(()) }).await;
    }

    let http = reqwest::Client::new();
    let new_port = free_port();
    let response = http
        .put(format!("{}/settings", instance.api()))
        .bearer_auth(&token)
        .json(&json!({"settings": {"reminders": {
            "daemonPort": new_port,
            "allowedSchemes": ["obsidian", "zotero"],
        }}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    eventually("the daemon on its new port", || async {
        port_open(new_port).then_some(())
    })
    .await;
    eventually("the old daemon port closed", || async {
        (!port_open(instance.daemon_port)).then_some(())
    })
    .await;

    let sync = |url: &'static str| {
        let http = http.clone();
        async move {
            let response = http
                .post(format!("http://127.0.0.1:{new_port}/sync"))
                .json(&json!([{
                    "id": "paper", "title": "Read", "body": "",
                    "trigger_at_epoch": epoch_now() + 3600, "action_url": url,
                }]))
                .send()
                .await
                .unwrap();
            let status = response.status();
            (status, response.json::<serde_json::Value>().await.unwrap())
        }
    };
    let (status, body) = sync("zotero://select/items/ABC").await;
    assert_eq!(status, 200, "newly allowed: {body}");
    let (status, body) = sync("https://example.org/").await;
    assert_eq!(status, 400, "newly disallowed: {body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("field `action_url`"),
        "{body}"
    );

    app.terminate();
    assert_eq!(app.exited().await.code(), Some(0), "{}", instance.log());
    assert!(!port_open(new_port));
}

/// `--open` names a window; a typo is a usage error, not a silent no-op.
#[test]
fn open_needs_a_known_window() {
    let out = Command::new(env!("CARGO_BIN_EXE_almanac"))
        .args(["--open", "calender"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown window"));
}

/// Every file and folder under `dir` with its bytes and modification time.
fn tree(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>, std::time::SystemTime)> {
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

/// Writes `data` at `file` in the instance's vault.
fn vault_file(instance: &AppHarness, file: &str, data: &str) {
    let path = instance.vault().join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, data).unwrap();
}

/// Waits for `count` calendar sources in the settings file, and returns it.
async fn imported(instance: &AppHarness, count: usize) -> serde_json::Value {
    let settings_file = instance.config_home().join("almanac/settings.json");
    eventually("the imported sources in settings.json", || async {
        let text = std::fs::read_to_string(&settings_file).ok()?;
        let settings: serde_json::Value = serde_json::from_str(&text).ok()?;
        (settings["calendarSources"].as_array()?.len() == count).then_some(settings)
    })
    .await
}

/// `--vault` onboarding from Full Calendar Remastered, as Obsidian keeps it
/// (`.obsidian/plugins/full-calendar-remastered/data.json`, shaped as the
/// plugin's `DEFAULT_SETTINGS`): its note calendars replace the default
/// source and its reminder defaults are taken, except its CalDAV account:
/// nobody is there to confirm sending a password to a server, so it is left
/// to Settings (its password stays in the plugin's file, never in the
/// keyring, settings or the log). The log names the file read and gives
/// counts, never an address, and nothing under `.obsidian` changes.
#[tokio::test]
async fn vault_onboarding_imports_the_plugin_sources() {
    support::require_desktop_session();
    let instance = AppHarness::new();
    let data = json!({"calendarSources": [
        {"type": "local", "id": "local_1", "name": "Work", "directory": "work", "color": "#ff5733"},
        {"type": "dailynote", "id": "dailynote_1", "name": "Daily", "heading": "Events", "format": "default", "color": "#2ecc71"},
        {"type": "journals", "id": "journals_1", "name": "Journals: Diary", "heading": "Log", "journalId": "Diary", "color": "#aa00aa"},
        // Loopback, a closed port: no request leaves this machine.
        {"type": "caldav", "id": "caldav_1", "name": "iCloud", "url": "http://127.0.0.1:9",
         "homeUrl": "http://127.0.0.1:9/1/", "username": "me", "password": "pw", "color": "#e67e22"},
        {"type": "google", "id": "google_1", "name": "Team", "calendarId": "team@example.com", "color": "#3498db"},
        {"type": "tasks", "id": "tasks_1", "name": "Tasks", "color": "#111111"}
    ],
    "defaultCalendar": 0, "firstDay": 0, "initialView": {"desktop": "timeGridWeek", "mobile": "timeGrid3Days"},
    "timeFormat24h": false, "clickToCreateEventFromMonthView": true, "displayTimezone": null,
    "googleAccounts": [], "microsoftAccounts": [], "enableBackgroundEvents": true,
    "enableReminders": true, "enableDefaultReminder": true, "defaultReminderMinutes": 15,
    "fcrReminderCompanion": {"enabled": false, "apiUrl": "http://127.0.0.1:45677"},
    "tasksIntegration": {"backlogDateTarget": "scheduledDate", "calendarDisplayDateTarget": "scheduledDate"},
    "currentVersion": "0.13.1"})
    .to_string();
    vault_file(
        &instance,
        ".obsidian/plugins/full-calendar-remastered/data.json",
        &data,
    );
    vault_file(
        &instance,
        ".obsidian/plugins/journals/data.json",
        r#"{"journals": {"Diary": {"name": "Diary", "write": {"type": "day"}, "folder": "Journal"}}}"#,
    );
    let obsidian = tree(&instance.vault().join(".obsidian"));

    let vault = instance.vault();
    let mut app = instance.spawn(&["--headless", "--vault", vault.to_str().unwrap()]);
    let settings = imported(&instance, 4).await;
    let sources = &settings["calendarSources"];
    assert_eq!(sources[0]["id"], "local_1");
    assert_eq!(sources[0]["directory"], "work");
    assert_eq!(sources[0]["color"], "#ff5733");
    assert_eq!(sources[1]["type"], "dailynote");
    assert_eq!(sources[1]["heading"], "Events");
    assert_eq!(sources[2]["type"], "dailynote");
    assert_eq!(sources[2]["directory"], "Journal");
    // The Tasks source: the whole vault, placed by the date the plugin's
    // `calendarDisplayDateTarget` names.
    assert_eq!(sources[3]["type"], "tasks");
    assert_eq!(sources[3]["dateField"], "scheduled");
    let reminders = &settings["reminders"];
    assert_eq!(
        (
            &reminders["vaultReminders"],
            &reminders["defaultReminders"],
            &reminders["defaultMinutes"]
        ),
        (&json!(true), &json!(true), &json!(15))
    );
    let keyring = almanac_core::calendar::sources::caldav::password::Passwords::default();
    assert_eq!(keyring.get("caldav_1").unwrap(), None, "no password moved");
    let log = instance.log();
    assert!(
        log.contains("CalDAV accounts are not imported without asking")
            && log.contains("(.obsidian/plugins/full-calendar-remastered/data.json)")
            && log.contains("1 skipped"),
        "{log}"
    );
    assert!(!log.contains("127.0.0.1:9"), "no address is logged");
    assert!(!log.contains("\"pw\""), "no CalDAV password is logged");
    let settings_text =
        std::fs::read_to_string(instance.config_home().join("almanac/settings.json")).unwrap();
    assert!(!settings_text.contains("\"pw\""), "nor put in the settings");
    assert_eq!(
        tree(&instance.vault().join(".obsidian")),
        obsidian,
        "nothing under .obsidian is written"
    );

    app.terminate();
    assert_eq!(app.exited().await.code(), Some(0), "{}", instance.log());
}

/// The same from the original Full Calendar plugin
/// (`.obsidian/plugins/obsidian-full-calendar/data.json`, its
/// `DEFAULT_SETTINGS`): its sources have neither ids nor names, and it has
/// no reminder settings, so Almanac's stay.
#[tokio::test]
async fn vault_onboarding_imports_the_original_plugins_sources() {
    support::require_desktop_session();
    let instance = AppHarness::new();
    let data = json!({"calendarSources": [
        {"type": "local", "directory": "work", "color": "#ff5733"},
        {"type": "dailynote", "heading": "Events", "color": "#2ecc71"},
        // Loopback: refused by the feed guard, so no request leaves.
        {"type": "ical", "url": "http://127.0.0.1:9/private-5f3e9a7c/basic.ics", "color": "#9b59b6"}
    ],
    "defaultCalendar": 0, "firstDay": 0, "initialView": {"desktop": "timeGridWeek", "mobile": "timeGrid3Days"},
    "timeFormat24h": false, "clickToCreateEventFromMonthView": true})
    .to_string();
    vault_file(
        &instance,
        ".obsidian/plugins/obsidian-full-calendar/data.json",
        &data,
    );
    let obsidian = tree(&instance.vault().join(".obsidian"));

    let vault = instance.vault();
    let mut app = instance.spawn(&["--headless", "--vault", vault.to_str().unwrap()]);
    let settings = imported(&instance, 3).await;
    let named: Vec<_> = settings["calendarSources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        named,
        [
            ("local_1", "work"),
            ("dailynote_1", "Daily Note"),
            ("ical_1", "127.0.0.1")
        ]
    );
    assert_eq!(
        settings["reminders"]["defaultReminders"], false,
        "Almanac's default"
    );
    assert_eq!(settings["vaultName"], "vault");
    let log = instance.log();
    assert!(
        log.contains("(.obsidian/plugins/obsidian-full-calendar/data.json)"),
        "{log}"
    );
    // Onboarding's own lines (the feed's fetch logs on its own behalf).
    let onboarding: String = log
        .lines()
        .filter(|line| line.contains("onboarding"))
        .collect();
    assert!(
        !onboarding.contains("private-5f3e9a7c"),
        "no address is logged"
    );
    assert_eq!(tree(&instance.vault().join(".obsidian")), obsidian);

    app.terminate();
    assert_eq!(app.exited().await.code(), Some(0), "{}", instance.log());
}
