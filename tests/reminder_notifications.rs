//! A reminder synced to the daemon fires as a real notification (dunst, over
//! D-Bus); invoking its default action opens the reminder's `action_url`
//! through the system opener (`xdg-open`), observed via a URL handler
//! registered in the instance's own XDG dirs.

use crate::support;

use std::process::Command;

use serde_json::json;
use support::instance::AppHarness;
use support::notify_monitor::NotifyMonitor;
use support::{epoch_now, eventually, port_open, require_desktop_session};

const URL: &str = "obsidian://open?vault=Almanac&file=Dentist";

#[tokio::test]
async fn clicking_a_fired_reminder_opens_its_action_url() {
    require_desktop_session();
    let instance = AppHarness::new();
    let opened = instance.register_url_handler();
    let monitor = NotifyMonitor::start().await;
    // `dunstctl action 0` acts on the topmost notification: start with none.
    assert!(
        Command::new("dunstctl")
            .arg("close-all")
            .status()
            .unwrap()
            .success()
    );
    let _app = instance.spawn(&[]);
    eventually("the reminder daemon", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;

    instance
        .sync_reminders(json!([{
            "id": "dentist", "title": "E2E dentist", "body": "Bring the forms",
            "trigger_at_epoch": epoch_now() + 2, "action_url": URL,
        }]))
        .await;

    // The notification reaches the notification server over D-Bus.
    let notify = eventually("the Notify call", || async {
        let seen = monitor.seen();
        seen.contains("E2E dentist").then_some(seen)
    })
    .await;
    assert!(notify.contains("Bring the forms"), "{notify}");
    assert!(
        notify.contains("\"default\""),
        "the notification has a default action: {notify}"
    );

    // Activate it as a click would: dunst sends ActionInvoked(id, "default").
    eventually("dunst to show the notification", || async {
        let shown = Command::new("dunstctl")
            .arg("count")
            .arg("displayed")
            .output()
            .unwrap();
        (String::from_utf8_lossy(&shown.stdout).trim() != "0").then_some(())
    })
    .await;
    let status = Command::new("dunstctl")
        .args(["action", "0"])
        .status()
        .unwrap();
    assert!(status.success());

    let recorded = eventually("xdg-open to run the obsidian: handler", || async {
        std::fs::read_to_string(&opened)
            .ok()
            .filter(|s| !s.is_empty())
    })
    .await;
    assert_eq!(recorded.trim(), URL, "app log:\n{}", instance.log());
    support::dismiss_notifications();
}
