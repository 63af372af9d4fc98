//! `/sync` latency, durable (answered after the flush), at 10k and 100k
//! reminders, over real HTTP on loopback. Baselines measured in the same
//! run: a typed `serde_json` parse of the same body (the parse floor) and a
//! bare sled batch + flush of the same records (the storage floor).
//!
//! cargo bench -p almanac-reminders --bench sync

mod support;

use std::time::{Duration, Instant};

use almanac_reminders::Reminder;
use almanac_reminders::clock::now_epoch;

const RUNS: usize = 5;

fn median_max(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    (samples[samples.len() / 2], *samples.last().unwrap())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let client = reqwest::Client::new();
    println!("| reminders | scenario | median | max | runs |");
    println!("|---|---|---|---|---|");
    for count in [10_000, 100_000] {
        let first = now_epoch() + 86_400;
        let bodies: Vec<Vec<u8>> = (0..=RUNS)
            .map(|run| {
                serde_json::to_vec(&support::payload(count, &format!("s{run}"), first)).unwrap()
            })
            .collect();
        let mut initial = Vec::new();
        let mut replace = Vec::new();
        let mut identical = Vec::new();
        for run in 0..RUNS {
            let dir = tempfile::tempdir().unwrap();
            let (daemon, _) = support::start(dir.path()).await;
            let url = format!("http://{}/sync", daemon.addr());
            let post = |body: Vec<u8>| {
                let request = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(body);
                async move {
                    let started = Instant::now();
                    let response = request.send().await.unwrap();
                    assert_eq!(response.status(), 200);
                    response.bytes().await.unwrap();
                    started.elapsed()
                }
            };
            initial.push(post(bodies[run].clone()).await);
            // Every id different: all removed, all inserted.
            replace.push(post(bodies[run + 1].clone()).await);
            // The host re-sending an unchanged set (the common debounce case).
            identical.push(post(bodies[run + 1].clone()).await);
            daemon.shutdown().await;
        }
        for (scenario, samples) in [
            ("into an empty store", initial),
            ("replacing a disjoint set of the same size", replace),
            ("re-sending the same set", identical),
        ] {
            let (median, max) = median_max(samples);
            println!(
                "| {count} | {scenario} | {} | {} | {RUNS} |",
                ms(median),
                ms(max)
            );
        }

        // Baselines.
        let parse: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                let parsed: Vec<Reminder> = serde_json::from_slice(&bodies[0]).unwrap();
                assert_eq!(parsed.len(), count);
                started.elapsed()
            })
            .collect();
        let (median, max) = median_max(parse);
        println!(
            "| {count} | baseline: typed serde_json parse only | {} | {} | {RUNS} |",
            ms(median),
            ms(max)
        );
        let reminders: Vec<Reminder> = serde_json::from_slice(&bodies[0]).unwrap();
        let storage: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let db = sled::Config::new()
                    .path(dir.path())
                    .flush_every_ms(None)
                    .open()
                    .unwrap();
                let started = Instant::now();
                let mut batch = sled::Batch::default();
                for reminder in &reminders {
                    batch.insert(
                        reminder.id.as_bytes(),
                        serde_json::to_vec(reminder).unwrap(),
                    );
                }
                db.apply_batch(batch).unwrap();
                db.flush().unwrap();
                started.elapsed()
            })
            .collect();
        let (median, max) = median_max(storage);
        println!(
            "| {count} | baseline: bare sled batch + flush only | {} | {} | {RUNS} |",
            ms(median),
            ms(max)
        );
    }
}
