//! kill -9 at random moments during syncs and snoozes: after every restart
//! the store must hold exactly the last acknowledged state, or the one in
//! flight when the process died, never a mix of the two.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;

/// Stop after this many restarts and acknowledged operations, or this long.
const MIN_ROUNDS: usize = 100;
const MIN_ACKED_OPS: usize = 1000;
const TIME_BUDGET: Duration = Duration::from_secs(50);

/// What the store should hold: synced id → (title, trigger), snoozed id →
/// title (a snooze's trigger is computed by the daemon).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Model {
    synced: BTreeMap<String, (String, i64)>,
    snoozed: BTreeMap<String, String>,
}

impl Model {
    fn from_events(events: &Value) -> Self {
        let mut model = Model::default();
        for event in events["events"].as_array().expect("events") {
            let id = event["id"].as_str().unwrap().to_string();
            let title = event["title"].as_str().unwrap().to_string();
            match event["origin"].as_str().unwrap() {
                "synced" => {
                    model
                        .synced
                        .insert(id, (title, event["trigger_at_epoch"].as_i64().unwrap()));
                }
                _ => {
                    model.snoozed.insert(id, title);
                }
            }
        }
        model
    }
}

/// The acknowledged state and the operation in flight.
#[derive(Debug, Clone, Default)]
struct Progress {
    acked: Model,
    in_flight: Option<Model>,
    acked_ops: usize,
}

async fn spawn_daemon(db: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_reminder-daemon"))
        .args([
            "--db",
            db.to_str().unwrap(),
            "--port",
            "0",
            "--notifier",
            "log",
        ])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the daemon");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("daemon starts in time")
        .expect("read stdout")
        .expect("a listening line");
    let base = line
        .strip_prefix("listening on ")
        .expect("listening line")
        .to_string();
    (child, base)
}

/// Sends syncs and snoozes one after another until the daemon dies,
/// publishing what was acknowledged and what is in flight.
async fn drive(
    base: String,
    start: Progress,
    generation: usize,
    progress: watch::Sender<Progress>,
) {
    let client = reqwest::Client::new();
    let trigger_base = almanac_reminders::clock::now_epoch() + 86_400;
    let mut state = start;
    for op in 0.. {
        let (mut next, request) = {
            let mut rng = rand::rng();
            let mut next = state.acked.clone();
            if rng.random_bool(0.7) {
                let count = rng.random_range(0..1500);
                let title = format!("gen {generation} op {op}");
                next.synced = (0..count)
                    .map(|i| (format!("r{i}"), (title.clone(), trigger_base + i as i64)))
                    .collect();
                let body: Vec<Value> = next
                    .synced
                    .iter()
                    .map(|(id, (title, trigger))| {
                        json!({"id": id, "title": title, "body": "", "trigger_at_epoch": trigger, "action_url": "obsidian://x"})
                    })
                    .collect();
                (next, ("/sync", Value::from(body)))
            } else {
                let id = format!("snz-{}", rng.random_range(0..10));
                let title = format!("snoozed gen {generation} op {op}");
                next.snoozed.insert(id.clone(), title.clone());
                let body = json!({"id": id, "title": title, "body": "", "action_url": "https://x", "minutes": 600});
                (next, ("/snooze", body))
            }
        };
        state.in_flight = Some(next.clone());
        progress.send_replace(state.clone());
        let sent = client
            .post(format!("{base}{}", request.0))
            .json(&request.1)
            .send()
            .await;
        match sent {
            Ok(response) if response.status().is_success() => {
                state.acked = std::mem::take(&mut next);
                state.in_flight = None;
                state.acked_ops += 1;
                progress.send_replace(state.clone());
            }
            Ok(response) => panic!("the daemon refused a valid request: {}", response.status()),
            Err(_) => return, // killed
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_syncs_and_snoozes_keeps_last_acknowledged_state() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("reminders.sled");
    let started = Instant::now();
    let mut progress = Progress::default();
    let (mut rounds, mut matched_acked, mut matched_in_flight) = (0, 0, 0);
    while (rounds < MIN_ROUNDS || progress.acked_ops < MIN_ACKED_OPS)
        && started.elapsed() < TIME_BUDGET
    {
        let (mut child, base) = spawn_daemon(&db).await;

        // After the restart: exactly the acknowledged state or the in-flight one.
        let events: Value = reqwest::get(format!("{base}/events"))
            .await
            .expect("restarted daemon answers")
            .json()
            .await
            .unwrap();
        let found = Model::from_events(&events);
        if found == progress.acked {
            matched_acked += 1;
        } else if Some(&found) == progress.in_flight.as_ref() {
            matched_in_flight += 1;
            progress.acked = found;
        } else {
            panic!(
                "round {rounds}: the store holds neither the acknowledged nor the in-flight state\n\
                 found {} synced / {} snoozed, acked {} / {}",
                found.synced.len(),
                found.snoozed.len(),
                progress.acked.synced.len(),
                progress.acked.snoozed.len()
            );
        }
        progress.in_flight = None;

        let (tx, rx) = watch::channel(progress.clone());
        let driver = tokio::spawn(drive(base, progress.clone(), rounds, tx));
        let delay = rand::rng().random_range(5..250);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        child.start_kill().expect("SIGKILL");
        child.wait().await.expect("reaped");
        driver.await.expect("driver ends when the daemon dies");
        progress = rx.borrow().clone();
        rounds += 1;
    }
    println!(
        "{rounds} SIGKILLs during {} acknowledged syncs/snoozes: restart matched the last \
         acknowledged state {matched_acked} times, the in-flight one {matched_in_flight} times, \
         a mix 0 times ({:.1} s)",
        progress.acked_ops,
        started.elapsed().as_secs_f64()
    );
    assert!(
        rounds >= MIN_ROUNDS,
        "only {rounds} rounds in the time budget"
    );
    assert!(
        progress.acked_ops >= MIN_ACKED_OPS / 2,
        "only {} operations",
        progress.acked_ops
    );
}
