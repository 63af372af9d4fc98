//! Helpers shared by the black-box tests of the `almanac` binary: isolated
//! instances (temp HOME / XDG dirs, free ports, a pre-written settings file),
//! a minimal W3C WebDriver client over `tauri-driver`, and small waits.
//!
//! The window, tray and notification tests need the desktop services of
//! `scripts/session.sh` (D-Bus session, gnome-keyring, Xvfb, dunst); they fail
//! loudly, never skip, when those are missing.

#![allow(dead_code)] // not every helper is used by a test today

pub mod instance;
pub mod notify_monitor;
pub mod webdriver;

use std::time::{SystemTime, UNIX_EPOCH};

pub use almanac_testkit::{PATIENCE, eventually, free_port, port_open};

/// The app binary under test: `ALMANAC_TEST_BIN` when set (a private copy,
/// for a target dir that other builds share and may overwrite mid-run),
/// else the one cargo built for this test.
pub fn app_binary() -> std::path::PathBuf {
    std::env::var_os("ALMANAC_TEST_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_almanac").into())
}

/// Now, in whole Unix seconds (the reminder daemon's unit).
pub fn epoch_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Panics unless the test runs inside `scripts/session.sh`.
pub fn require_desktop_session() {
    for var in ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] {
        assert!(
            std::env::var_os(var).is_some(),
            "{var} is not set: run the window tests inside scripts/session.sh \
             (e.g. `scripts/session.sh cargo nextest run -p almanac`)"
        );
    }
}

/// Closes every notification on the session's notification server. Tests
/// that make reminders fire call it when done: under Xvfb nobody moves the
/// mouse, so dunst counts the user as idle and never expires notifications,
/// and a later `dunstctl action 0` (here or in another crate's test) would
/// hit a leftover.
pub fn dismiss_notifications() {
    let status = std::process::Command::new("dunstctl")
        .arg("close-all")
        .status()
        .expect("dunstctl (dunst)");
    assert!(status.success());
}
