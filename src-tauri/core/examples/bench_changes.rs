//! Change-feed delivery: from a note edited on disk to a waiting long-poll
//! of `GET /api/v1/changes` answering, over real HTTP on loopback, on a
//! generated vault. Run inside `scripts/session.sh` (tokens live in the OS
//! keyring), release build:
//!
//! ```sh
//! cargo build -p almanac-core --release --examples
//! target/release/examples/gen_vault /tmp/v10k 10000
//! scripts/session.sh target/release/examples/bench_changes /tmp/v10k 30
//! ```
//!
//! Each round: a long-poll waits on the current cursor; one note's title is
//! changed on disk; the time until the poll's answer (the entry naming that
//! note) is recorded. The edit is seen through the file watcher, so the
//! figure includes its debounce, as it would for an edit made in Obsidian.

use std::time::{Duration, Instant};

use almanac_core::rest::{RestServer, ServerState};
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, free_port, new_token};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(vault) = args.next() else {
        eprintln!("usage: bench_changes VAULT [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(30);
    let port = free_port();
    let core = InstanceBuilder::new()
        .vault(&vault)
        .settings(|s| {
            s.rest_server_enabled = true;
            s.local_server_port = port;
        })
        .try_open()
        .await?;
    let token = new_token(&core, "bench_changes", &[Scope::EventsRead], Expiry::Never).await;
    let server = RestServer::start(&core);
    server
        .subscribe()
        .wait_for(|s| matches!(s, ServerState::Listening(_)))
        .await?;
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/api/v1/changes");
    let page = |since: Option<u64>| {
        let query = since.map_or(String::new(), |s| format!("?since={s}&timeout=30"));
        client
            .get(format!("{url}{query}"))
            .bearer_auth(&token)
            .send()
    };
    let first: serde_json::Value = page(None).await?.json().await?;
    let mut since = first["last"].as_u64().unwrap_or(0);

    // gen_vault spreads the notes over numbered subfolders of `events`.
    let mut notes = Vec::new();
    for folder in std::fs::read_dir(std::path::Path::new(&vault).join("events"))? {
        for note in std::fs::read_dir(folder?.path())? {
            notes.push(note?.path());
        }
    }
    notes.retain(|p| p.extension().is_some_and(|x| x == "md"));
    notes.sort();
    notes.truncate(rounds);
    let mut times = Vec::new();
    for (round, note) in notes.iter().enumerate() {
        let poll = tokio::spawn(page(Some(since)));
        // The poll is waiting once the server holds it; a short pause makes
        // sure the edit, not an earlier entry, answers it.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let text = std::fs::read_to_string(note)?;
        let edited = text.replacen("title: ", &format!("title: R{round} "), 1);
        let started = Instant::now();
        std::fs::write(note, edited)?;
        let answer: serde_json::Value = poll.await??.json().await?;
        times.push(started.elapsed());
        since = answer["last"].as_u64().unwrap_or(since);
        std::fs::write(note, text)?;
        // Let the restore's entry pass before the next round.
        let settled: serde_json::Value = page(Some(since)).await?.json().await?;
        since = settled["last"].as_u64().unwrap_or(since);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let n = times.len();
    println!(
        "{n} edits on disk → long-poll answered: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        ms(times[n / 2]),
        ms(times[(n * 95).div_ceil(100) - 1]),
        ms(times[n - 1])
    );
    server.shutdown().await;
    Ok(())
}
