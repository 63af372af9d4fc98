//! A second launch of the same profile hands over to the running instance
//! (tauri-plugin-single-instance over D-Bus) instead of starting another.

use crate::support;

use std::process::Command;

use support::instance::AppHarness;
use support::{eventually, port_open, require_desktop_session};

/// Whether the X server shows a window titled `title`.
fn window_titled(title: &str) -> bool {
    let tree = Command::new("xwininfo")
        .args(["-root", "-tree"])
        .output()
        .expect("xwininfo (x11-utils)");
    String::from_utf8_lossy(&tree.stdout).contains(&format!("\"{title}\""))
}

#[tokio::test]
async fn second_launch_opens_the_window_in_the_running_instance() {
    require_desktop_session();
    let instance = AppHarness::new();
    let mut first = instance.spawn(&[]);
    eventually("the first instance's daemon", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;
    assert!(!window_titled("Almanac — Reminders"));

    let second = Command::new(env!("CARGO_BIN_EXE_almanac"))
        .args(["--open", "reminders"])
        .envs(instance.env())
        .output()
        .unwrap();
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    eventually("the running instance to open Reminders", || async {
        window_titled("Almanac — Reminders").then_some(())
    })
    .await;

    // The first instance is still the one serving.
    assert!(first.is_running());
    assert!(port_open(instance.daemon_port));
    first.terminate();
    assert_eq!(first.exited().await.code(), Some(0), "{}", instance.log());
}
