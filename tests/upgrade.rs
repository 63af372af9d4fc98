//! Upgrades keep data: a profile written by Almanac 0.1.0 — its settings,
//! token metadata, reminder store (sled) and a token secret in the keyring —
//! is opened by this build, which finds all of it: the settings as they were,
//! the reminders still pending, the live token still authenticating and the
//! revoked one still refused.
//!
//! The fixture in `tests/fixtures/upgrade-0.1.0` was written by the 0.1.0
//! build itself: `ALMANAC_BLESS=1 scripts/session.sh cargo nextest run -p almanac
//! -E 'test(/^upgrade::/)'` runs the app over a fresh profile, makes the data and
//! copies the files there. Re-bless only when a release is cut: the point is
//! that today's files keep working in every later build.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use almanac_core::clock::SystemClock;
use almanac_core::paths::Paths;
use almanac_core::tokens::{Expiry, KeyringSecretStore, NewToken, Scope, TokenStore};
use serde_json::{Value, json};
use support::instance::{AppHarness, keyring_put};
use support::{eventually, port_open};

/// Reminders far in the future, so they are pending whenever the test runs.
const REMINDER_IDS: [&str; 2] = ["upgrade-dentist", "upgrade-taxes"];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/upgrade-0.1.0")
}

/// The profile's files, relative to the instance root (HOME-less layout of
/// `AppHarness`: `config/almanac`, `data/almanac`).
const FILES: [&str; 3] = [
    "config/almanac/settings.json",
    "data/almanac/tokens.json",
    "data/almanac/reminders.sled",
];

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
}

async fn start_headless(instance: &AppHarness) -> support::instance::App {
    let app = instance.spawn(&["--headless"]);
    for port in [instance.rest_port, instance.daemon_port] {
        eventually("both ports", || async { port_open(port).then_some(()) }).await;
    }
    app
}

async fn get(url: String, secret: Option<&str>) -> (reqwest::StatusCode, Value) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(secret) = secret {
        request = request.bearer_auth(secret);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_0_1_0_profile_is_found_whole_by_this_build() {
    support::require_desktop_session();
    if std::env::var_os("ALMANAC_BLESS").is_some() {
        return bless().await;
    }
    let instance = AppHarness::new();
    for file in FILES {
        let _ = std::fs::remove_file(instance.root().join(file));
        copy(&fixture().join(file), &instance.root().join(file));
    }
    // Only what ties the profile to the machine it was made on changes: the
    // ports (free ones here) and the vault folder.
    let settings_file = instance.root().join(FILES[0]);
    let mut settings: Value =
        serde_json::from_slice(&std::fs::read(&settings_file).unwrap()).unwrap();
    let written = settings.clone();
    settings["localServerPort"] = json!(instance.rest_port);
    settings["reminders"]["daemonPort"] = json!(instance.daemon_port);
    settings["vaultPath"] = json!(instance.vault());
    std::fs::write(
        &settings_file,
        serde_json::to_vec_pretty(&settings).unwrap(),
    )
    .unwrap();
    let keyring: Value =
        serde_json::from_slice(&std::fs::read(fixture().join("keyring.json")).unwrap()).unwrap();
    let (live_id, live) = (
        keyring["live"]["id"].as_str().unwrap(),
        keyring["live"]["secret"].as_str().unwrap(),
    );
    let revoked = keyring["revoked"]["secret"].as_str().unwrap();
    keyring_put(live_id, "upgrade fixture", live);

    let mut app = start_headless(&instance).await;
    let api = instance.api();

    // The live token authenticates; the revoked one stays refused.
    let (status, found) = get(format!("{api}/settings"), Some(live)).await;
    assert_eq!(status, reqwest::StatusCode::OK, "log:\n{}", instance.log());
    let (status, _) = get(format!("{api}/settings"), Some(revoked)).await;
    assert_eq!(status, reqwest::StatusCode::FORBIDDEN);

    // Every setting as 0.1.0 wrote it (ports and vault aside, changed above).
    let found = &found["settings"];
    for key in [
        "displayTimezone",
        "initialView",
        "firstDay",
        "calendarSources",
    ] {
        assert_eq!(found[key], written[key], "{key}: {found}");
    }
    for key in ["graceWindowHours", "allowedSchemes"] {
        assert_eq!(
            found["reminders"][key], written["reminders"][key],
            "{key}: {found}"
        );
    }

    // The reminders synced before the upgrade are pending.
    let (_, events) = get(
        format!("http://127.0.0.1:{}/events", instance.daemon_port),
        None,
    )
    .await;
    let pending: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["id"].as_str().unwrap())
        .collect();
    assert_eq!(pending, REMINDER_IDS, "{events}");

    app.terminate();
    assert!(app.exited().await.success());
    // Both tokens' metadata, with their states.
    let list = Command::new(env!("CARGO_BIN_EXE_almanac"))
        .args(["token", "list"])
        .envs(instance.env())
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.contains("upgrade live") && list.contains("active"),
        "{list}"
    );
    assert!(
        list.contains("upgrade revoked") && list.contains("revoked"),
        "{list}"
    );
}

/// Writes the fixture with this build (see the module comment).
async fn bless() {
    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "displayTimezone": "Europe/Berlin",
        "initialView": "timeGridWeek",
        "reminders": { "graceWindowHours": 12 },
    }));
    let paths = Paths::new(
        instance.config_home().join("almanac"),
        instance.data_home().join("almanac"),
    );
    let mut keyring = json!({});
    {
        let store = TokenStore::open(
            paths.tokens_file(),
            Arc::new(KeyringSecretStore::new()),
            Arc::new(SystemClock),
        )
        .unwrap();
        for (key, name) in [("live", "upgrade live"), ("revoked", "upgrade revoked")] {
            let created = store
                .create(NewToken::new(
                    name,
                    &[Scope::SettingsRead, Scope::SettingsWrite, Scope::EventsRead],
                    Expiry::Never,
                ))
                .unwrap();
            keyring[key] = json!({
                "id": created.info.record.id, "secret": created.secret.expose(),
            });
        }
        let revoked = keyring["revoked"]["id"].as_str().unwrap().parse().unwrap();
        store.revoke(revoked).unwrap();
    }
    let mut app = start_headless(&instance).await;
    instance
        .sync_reminders(json!([
            { "id": REMINDER_IDS[0], "title": "Dentist", "body": "Bring the forms",
              "trigger_at_epoch": 4_102_444_800i64, "action_url": "obsidian://open?file=dentist" },
            { "id": REMINDER_IDS[1], "title": "Taxes", "body": "",
              "trigger_at_epoch": 4_133_980_800i64, "action_url": "https://example.org/taxes" },
        ]))
        .await;
    // A change through the API makes the app write the whole settings file.
    let changed = reqwest::Client::new()
        .put(format!("{}/settings", instance.api()))
        .bearer_auth(keyring["live"]["secret"].as_str().unwrap())
        .json(&json!({ "settings": { "firstDay": 1 } }))
        .send()
        .await
        .unwrap();
    assert!(changed.status().is_success(), "{}", changed.status());
    app.terminate();
    assert!(app.exited().await.success());

    let _ = std::fs::remove_dir_all(fixture());
    for file in FILES {
        copy(&instance.root().join(file), &fixture().join(file));
    }
    std::fs::write(
        fixture().join("keyring.json"),
        serde_json::to_vec_pretty(&keyring).unwrap(),
    )
    .unwrap();
}
