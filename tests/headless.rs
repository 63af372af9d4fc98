//! Black-box tests of the `almanac` binary in headless mode.

mod support;

use std::process::Command;

use support::instance::Instance;
use support::{eventually, port_open};

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
    let instance = Instance::with_settings(serde_json::json!({ "restServerEnabled": true }));
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
