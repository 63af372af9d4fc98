//! A reminder synced to the daemon fires as a real notification (dunst, over
//! D-Bus); invoking its default action opens the reminder's `action_url`
//! through the system opener (`xdg-open`), observed via a URL handler
//! registered in the instance's own XDG dirs.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::json;
use support::instance::Instance;
use support::{epoch_now, eventually, port_open, require_desktop_session};

const URL: &str = "obsidian://open?vault=Almanac&file=Dentist";

/// Every `Notify` call on the session bus, as dbus-monitor prints it.
struct NotifyMonitor {
    child: std::process::Child,
    output: Arc<Mutex<String>>,
}

impl NotifyMonitor {
    fn start() -> Self {
        let mut child = Command::new("dbus-monitor")
            .arg("interface='org.freedesktop.Notifications',member='Notify'")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-monitor (dbus package)");
        let output = Arc::new(Mutex::new(String::new()));
        let stdout = child.stdout.take().unwrap();
        let sink = output.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        Self { child, output }
    }

    fn seen(&self) -> String {
        self.output.lock().unwrap().clone()
    }
}

impl Drop for NotifyMonitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn clicking_a_fired_reminder_opens_its_action_url() {
    require_desktop_session();
    let instance = Instance::new();
    let opened = instance.register_url_handler();
    let monitor = NotifyMonitor::start();
    eventually("dbus-monitor to subscribe", || async {
        monitor.seen().contains("NameAcquired").then_some(())
    })
    .await;
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
