//! A start-up that degrades, never dies: the real `almanac` binary, real
//! faults. A vault path that is a regular file (root, which runs these
//! tests, reads a mode-000 folder regardless, so that fault would prove
//! nothing here), and a session whose keyring comes up only after the app.
//! Each time the app stays up, the reminder daemon answers, the problem is
//! reported, and fixing the fault recovers without a restart.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use almanac_core::tokens::Scope;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::instance::AppHarness;
use support::{eventually, port_open, require_desktop_session};

async fn get_json(instance: &AppHarness, secret: &str, path: &str) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .get(format!("{}{path}", instance.api()))
        .bearer_auth(secret)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn daemon_answers(instance: &AppHarness) -> bool {
    let status = format!("http://127.0.0.1:{}/status", instance.daemon_port);
    match reqwest::get(status).await {
        Ok(response) => response.status().is_success(),
        Err(_) => false,
    }
}

#[tokio::test]
async fn an_unusable_vault_is_reported_while_the_app_and_its_reminders_run_on() {
    require_desktop_session();
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    // The fault: a regular file where the vault folder should be.
    std::fs::remove_dir_all(instance.vault()).unwrap();
    std::fs::write(instance.vault(), "not a folder").unwrap();
    let secret = instance.mint_token(&[Scope::ProvidersRead, Scope::EventsWrite]);
    let mut app = instance.spawn(&["--headless"]);

    eventually("the reminder daemon to answer /status", || async {
        daemon_answers(&instance).await.then_some(())
    })
    .await;
    let calendars = eventually("GET /calendars", || async {
        let (status, body) = get_json(&instance, &secret, "/calendars").await;
        (status == StatusCode::OK).then_some(body)
    })
    .await;
    assert_eq!(calendars["vault"]["state"], "unavailable", "{calendars}");
    let reason = calendars["vault"]["reason"].as_str().unwrap();
    assert!(
        reason.contains(&instance.vault().display().to_string()),
        "the reason names the vault: {reason}"
    );
    assert_eq!(calendars["calendars"][0]["id"], "local", "{calendars}");
    // Writes to a note calendar say why they cannot be done.
    let refused = reqwest::Client::new()
        .post(format!("{}/events", instance.api()))
        .bearer_auth(&secret)
        .json(&json!({"calendarId": "local",
            "event": {"title": "Nope", "date": "2024-05-01", "allDay": true}}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["message"].as_str().unwrap().contains("vault"),
        "{body}"
    );
    assert!(app.is_running(), "log:\n{}", instance.log());

    // Fixed outside Almanac: no restart, the app picks the folder up.
    std::fs::remove_file(instance.vault()).unwrap();
    std::fs::create_dir_all(instance.vault().join("events")).unwrap();
    instance.write_note("standup.md", "title: Standup\ndate: 2024-05-01");
    eventually("the vault to be reported available", || async {
        let (_, body) = get_json(&instance, &secret, "/calendars").await;
        (body["vault"]["state"] == "available" && body["calendars"][0]["eventCount"] == 1)
            .then_some(())
    })
    .await;
    assert!(daemon_answers(&instance).await);
    assert!(app.is_running(), "log:\n{}", instance.log());
}

/// A D-Bus session bus of the test's own, with nothing on it and nothing it
/// could start on demand (the system's bus configuration would auto-start
/// gnome-keyring for the first Secret Service call).
struct PrivateBus {
    daemon: Child,
    address: String,
}

impl PrivateBus {
    fn start(dir: &Path) -> PrivateBus {
        std::fs::create_dir_all(dir).unwrap();
        let config = dir.join("bus.conf");
        std::fs::write(
            &config,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
                dir.join("socket").display()
            ),
        )
        .unwrap();
        let mut daemon = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon");
        // The address is printed once the bus accepts connections.
        let mut address = String::new();
        BufReader::new(daemon.stdout.take().unwrap())
            .read_line(&mut address)
            .unwrap();
        PrivateBus {
            daemon,
            address: address.trim().to_string(),
        }
    }
}

impl Drop for PrivateBus {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// A gnome-keyring Secret Service on `bus`, unlocked with scripts/session.sh's
/// password, keeping its keyrings in `data_home/keyrings`.
struct Keyring(Child);

impl Keyring {
    fn start(bus: &PrivateBus, data_home: &Path, runtime_dir: &Path) -> Keyring {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(runtime_dir).unwrap();
        // gnome-keyring wants its runtime folder private.
        std::fs::set_permissions(runtime_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let mut daemon = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .env("XDG_DATA_HOME", data_home)
            .env("XDG_RUNTIME_DIR", runtime_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("gnome-keyring-daemon");
        // The password, then end of input (as `printf … |` in session.sh).
        let mut stdin = daemon.stdin.take().unwrap();
        stdin.write_all(b"almanac-test").unwrap();
        drop(stdin);
        Keyring(daemon)
    }
}

impl Drop for Keyring {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[tokio::test]
async fn a_keyring_that_starts_after_the_app_is_picked_up_without_a_restart() {
    require_desktop_session();
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    // A token minted while a keyring runs (the session's). Its secret is in
    // that keyring's files; the late keyring gets a copy of them, so two
    // daemons never share one file.
    let secret = instance.mint_token(&[Scope::ProvidersRead]);
    let session_data = PathBuf::from(std::env::var_os("XDG_DATA_HOME").expect("XDG_DATA_HOME"));
    let keyring_data = instance.root().join("late-keyring");
    copy_dir(
        &session_data.join("keyrings"),
        &keyring_data.join("keyrings"),
    );

    // A fresh session without a keyring: the app starts and refuses tokens.
    let bus = PrivateBus::start(&instance.root().join("bus"));
    let mut app = instance.spawn_with_env(
        &["--headless"],
        [("DBUS_SESSION_BUS_ADDRESS", bus.address.as_str())],
    );
    eventually("the REST port", || async {
        port_open(instance.rest_port).then_some(())
    })
    .await;
    assert!(daemon_answers(&instance).await);
    assert_eq!(
        instance.api_status(&secret, "/calendars").await,
        StatusCode::FORBIDDEN,
        "accepted without a keyring? log:\n{}",
        instance.log()
    );

    // The keyring comes up in that session: the same process accepts the
    // token, no restart.
    let _keyring = Keyring::start(&bus, &keyring_data, &instance.root().join("run"));
    eventually("the token to be accepted", || async {
        (instance.api_status(&secret, "/calendars").await == StatusCode::OK).then_some(())
    })
    .await;
    assert!(app.is_running(), "log:\n{}", instance.log());
    assert!(
        instance.log().contains("keyring is available again"),
        "{}",
        instance.log()
    );
}
