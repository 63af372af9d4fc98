//! Helpers shared by the black-box tests of the `almanac` binary: isolated
//! instances (temp HOME / XDG dirs, free ports, a pre-written settings file),
//! a minimal W3C WebDriver client over `tauri-driver`, and small waits.
//!
//! The window, tray and notification tests need the desktop services of
//! `scripts/session.sh` (D-Bus session, gnome-keyring, Xvfb, dunst); they fail
//! loudly, never skip, when those are missing.

#![allow(dead_code)] // each test binary uses its own subset

pub mod instance;
pub mod webdriver;

use std::future::Future;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Generous upper bound for anything the app does in response to a test:
/// CI machines are slow and shared, and a hang must still end the test.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Now, in whole Unix seconds (the reminder daemon's unit).
pub fn epoch_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Whether something accepts connections on `127.0.0.1:port`.
pub fn port_open(port: u16) -> bool {
    TcpStream::connect_timeout(&(Ipv4Addr::LOCALHOST, port).into(), Duration::from_secs(2)).is_ok()
}

/// Re-evaluates `probe` until it yields `Some`, or panics after [`PATIENCE`]
/// naming `what`. For states the app exposes no event for (a port opening, a
/// D-Bus item appearing); the interval is short so the wait ends promptly.
pub async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Panics unless the test runs inside `scripts/session.sh`.
pub fn require_desktop_session() {
    for var in ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] {
        assert!(
            std::env::var_os(var).is_some(),
            "{var} is not set: run the window tests inside scripts/session.sh \
             (e.g. `scripts/session.sh cargo test -p almanac`)"
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
