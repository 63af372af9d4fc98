//! Shared by the benchmarks: a daemon in this process with a recording
//! notifier, and payload generators.

#![allow(dead_code)] // each bench uses part of it

use std::sync::Arc;
use std::time::SystemTime;

use almanac_reminders::{
    Daemon, DaemonConfig, DaemonHandle, Limits, Notification, Notifier, NotifierInfo, SystemOpener,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Records each notification with the wall-clock instant it was handed out.
pub struct TimedNotifier(pub mpsc::UnboundedSender<(Notification, SystemTime)>);

impl Notifier for TimedNotifier {
    fn notify(&self, notification: Notification) {
        let _ = self.0.send((notification, SystemTime::now()));
    }

    fn info(&self) -> NotifierInfo {
        NotifierInfo {
            backend: "bench".into(),
            ..NotifierInfo::default()
        }
    }
}

pub async fn start(
    dir: &std::path::Path,
) -> (
    DaemonHandle,
    mpsc::UnboundedReceiver<(Notification, SystemTime)>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let handle = Daemon::start(
        DaemonConfig {
            port: 0,
            // The benchmarks measure how the daemon scales, to 100 000
            // reminders: past the default limits (20 000 in 16 MiB).
            limits: Limits {
                max_reminders: 200_000,
                max_sync_body_bytes: 64 * 1024 * 1024,
                ..Limits::default()
            },
            ..DaemonConfig::new(dir.join("reminders.sled"))
        },
        Arc::new(TimedNotifier(tx)),
        Arc::new(SystemOpener),
        None,
    )
    .await
    .expect("daemon starts");
    (handle, rx)
}

/// `count` realistic reminders (Obsidian URLs, short texts), ids prefixed so
/// two sets can be disjoint, triggers from `first_trigger` on.
pub fn payload(count: usize, prefix: &str, first_trigger: i64) -> Value {
    Value::from(
        (0..count)
            .map(|i| {
                json!({
                    "id": format!("{prefix}-fullnote:Calendar/2026-05-{:02} Meeting {i}.md#{i}", i % 28 + 1),
                    "title": format!("Meeting {i} with the team"),
                    "body": "Starts in 10 minutes · Room 4 · bring the quarterly numbers",
                    "trigger_at_epoch": first_trigger + i as i64,
                    "action_url": format!("obsidian://open?vault=Almanac&file=Calendar%2F2026-05-{:02}%20Meeting%20{i}", i % 28 + 1),
                })
            })
            .collect::<Vec<_>>(),
    )
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}
