//! Every `Notify` call on the session bus, as `dbus-monitor` prints it: what
//! the app asked the notification server to show, and when.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use super::eventually;

pub struct NotifyMonitor {
    child: Child,
    output: Arc<Mutex<String>>,
}

impl NotifyMonitor {
    /// Starts monitoring; returns once the monitor is subscribed.
    pub async fn start() -> Self {
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
        let monitor = Self { child, output };
        eventually("dbus-monitor to subscribe", || async {
            monitor.seen().contains("NameAcquired").then_some(())
        })
        .await;
        monitor
    }

    /// Everything printed so far.
    pub fn seen(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// The `Notify` calls whose summary is `title`, each with the epoch time
    /// (seconds, microsecond precision) dbus-monitor saw it at.
    pub fn calls(&self, title: &str) -> Vec<f64> {
        let quoted = format!("string \"{title}\"");
        self.seen()
            .split("method call time=")
            .skip(1)
            .filter(|call| call.contains("member=Notify") && call.contains(&quoted))
            .map(|call| {
                let time = call.split_whitespace().next().unwrap();
                time.parse().expect("dbus-monitor's time stamp")
            })
            .collect()
    }
}

impl Drop for NotifyMonitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
