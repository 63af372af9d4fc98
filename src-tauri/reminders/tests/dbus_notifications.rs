//! The D-Bus notifier against a real notification server (dunst on a
//! private session bus): run under `scripts/session.sh`. A `dbus-monitor`
//! observes the `Notify` call; `dunstctl action 0` clicks the notification,
//! which must reach the daemon as `ActionInvoked` and open the reminder's URL.

use crate::common;

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use almanac_reminders::{Daemon, DbusNotifier, Notifier};
use common::{ChannelOpener, TIMEOUT, config, now_epoch, plugin_item, reminder};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use tokio::sync::mpsc;

async fn line_containing(lines: &mut Lines<BufReader<ChildStdout>>, needle: &str) -> String {
    tokio::time::timeout(TIMEOUT, async {
        loop {
            let line = lines
                .next_line()
                .await
                .expect("read dbus-monitor")
                .expect("dbus-monitor still running");
            if line.contains(needle) {
                return line;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("dbus-monitor never showed {needle:?}"))
}

/// A `dbus-monitor` of the session bus's `Notify` calls, listening, and
/// its output (kill it by dropping the child).
async fn notify_monitor() -> (Child, Lines<BufReader<ChildStdout>>) {
    let mut monitor = Command::new("dbus-monitor")
        .args([
            "--session",
            "interface='org.freedesktop.Notifications',member='Notify'",
        ])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("dbus-monitor");
    let mut lines = BufReader::new(monitor.stdout.take().unwrap()).lines();
    // A monitor connection announces itself with NameLost once it listens.
    line_containing(&mut lines, "NameLost").await;
    (monitor, lines)
}

/// These tests check the real notification server: without a session bus
/// they fail, saying how to run them, rather than pass having checked nothing.
fn require_session_bus() {
    assert!(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
        "no session bus: run under scripts/session.sh (it starts one with a notification server)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_is_shown_by_the_real_server_and_a_click_opens_its_url() {
    require_session_bus();
    let (_monitor, mut lines) = notify_monitor().await;

    let notifier = DbusNotifier::connect()
        .await
        .expect("a notification server");
    let info = notifier.info();
    assert_eq!(info.backend, "dbus");
    assert!(info.server_name.is_some());
    assert!(info.actions_supported, "{info:?}");

    let dir = tempfile::tempdir().unwrap();
    let (open_tx, mut opened) = mpsc::unbounded_channel();
    let daemon = Daemon::start(
        config(&dir.path().join("reminders.sled")),
        Arc::new(notifier),
        Arc::new(ChannelOpener(open_tx)),
        None,
    )
    .await
    .unwrap();
    let base = format!("http://{}", daemon.addr());
    let client = reqwest::Client::new();
    let doctor: serde_json::Value = client
        .get(format!("{base}/doctor"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doctor["notifications"]["backend"], "dbus");
    assert_eq!(doctor["notifications"]["actions_supported"], true);

    let id = format!("dbus-{}", std::process::id());
    // `dunstctl action 0` clicks the topmost notification: clear leftovers
    // of earlier tests in the same session first.
    let _ = Command::new("dunstctl").arg("close-all").status().await;
    let response = client
        .post(format!("{base}/sync"))
        .json(&serde_json::json!([reminder(&id, now_epoch() + 1)]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    line_containing(&mut lines, "member=Notify").await;
    line_containing(&mut lines, &format!("Title {id}")).await;

    // Click it (dunst invokes the "default" action of the newest one). The
    // server may still be drawing it, so click until the URL is opened.
    let url = tokio::time::timeout(TIMEOUT, async {
        loop {
            let _ = Command::new("dunstctl")
                .args(["action", "0"])
                .status()
                .await;
            if let Ok(Some(url)) =
                tokio::time::timeout(Duration::from_millis(300), opened.recv()).await
            {
                return url;
            }
        }
    })
    .await
    .expect("the click reached the daemon");
    assert_eq!(url, format!("obsidian://open?file={id}"));
    daemon.shutdown().await;
}

/// The Full Calendar host's item one second past its trigger: accepted,
/// reported as late, and shown at once by the real notification server;
/// the items ahead are stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_synced_item_a_second_late_is_shown_at_once() {
    require_session_bus();
    let (_monitor, mut lines) = notify_monitor().await;

    let dir = tempfile::tempdir().unwrap();
    let (open_tx, _opened) = mpsc::unbounded_channel();
    let daemon = Daemon::start(
        config(&dir.path().join("reminders.sled")),
        Arc::new(
            DbusNotifier::connect()
                .await
                .expect("a notification server"),
        ),
        Arc::new(ChannelOpener(open_tx)),
        None,
    )
    .await
    .unwrap();
    let title = format!("Standup {}", std::process::id());
    let now = now_epoch();
    let response = reqwest::Client::new()
        .post(format!("http://{}/sync", daemon.addr()))
        .json(&serde_json::json!([
            plugin_item("2026-11-23", "09:30", &title, now - 1),
            plugin_item("2026-11-24", "09:30", &title, now + 86_400),
            plugin_item("2026-11-25", "09:30", &title, now + 2 * 86_400),
        ]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: serde_json::Value = response.json().await.unwrap();
    assert_eq!(answer["late"][0]["trigger_at_epoch"], now - 1, "{answer}");
    assert_eq!(answer["scheduled"], 3);

    line_containing(&mut lines, "member=Notify").await;
    line_containing(&mut lines, &title).await;
    let pending: Vec<String> = daemon
        .upcoming(10)
        .into_iter()
        .map(|scheduled| scheduled.reminder.id)
        .collect();
    assert_eq!(pending.len(), 2, "{pending:?}");
    assert!(
        pending.iter().all(|id| !id.contains("2026-11-23")),
        "{pending:?}"
    );
    let _ = Command::new("dunstctl").arg("close-all").status().await;
    daemon.shutdown().await;
}
