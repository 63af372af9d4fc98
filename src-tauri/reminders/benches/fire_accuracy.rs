//! Notification lateness: how long after a reminder's trigger instant the
//! daemon hands its notification to the notifier (after the fired keys are
//! durable). 200 reminders over 10 seconds, 20 sharing each second.
//!
//! cargo bench -p almanac-reminders --bench fire_accuracy

mod support;

use std::time::{Duration, UNIX_EPOCH};

use almanac_reminders::Notification;
use almanac_reminders::clock::now_epoch;

const REMINDERS: usize = 200;
const SECONDS: i64 = 10;

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, mut fired) = support::start(dir.path()).await;
    let first = now_epoch() + 2;
    let mut payload = support::payload(REMINDERS, "fire", 0);
    for (i, reminder) in payload.as_array_mut().unwrap().iter_mut().enumerate() {
        reminder["trigger_at_epoch"] = (first + (i as i64 % SECONDS)).into();
    }
    let response = reqwest::Client::new()
        .post(format!("http://{}/sync", daemon.addr()))
        .json(&payload)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let mut lateness_ms = Vec::with_capacity(REMINDERS);
    while lateness_ms.len() < REMINDERS {
        let (notification, at) = tokio::time::timeout(Duration::from_secs(60), fired.recv())
            .await
            .expect("fired in time")
            .unwrap();
        let Notification::Reminder { reminder, .. } = notification else {
            panic!("unexpected summary");
        };
        let at_ms = at.duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0;
        lateness_ms.push(at_ms - (reminder.trigger_at_epoch * 1000) as f64);
    }
    lateness_ms.sort_by(f64::total_cmp);
    println!(
        "lateness over {REMINDERS} reminders ({} per second): min {:.2} ms, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        REMINDERS as i64 / SECONDS,
        lateness_ms[0],
        support::percentile(&lateness_ms, 50.0),
        support::percentile(&lateness_ms, 99.0),
        lateness_ms[REMINDERS - 1],
    );
    daemon.shutdown().await;
}
