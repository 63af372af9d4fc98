//! `/next` and `/status` under wrk load with 100k reminders stored, next to
//! a bare axum JSON "hello" route on the same runtime as the baseline.
//! Needs `wrk` on PATH.
//!
//! cargo bench -p almanac-reminders --bench read_load

mod support;

use std::process::Command;

use almanac_reminders::clock::now_epoch;
use axum::Router;
use axum::routing::get;

const STORED: usize = 100_000;

fn wrk(url: &str) {
    let output = Command::new("wrk")
        .args(["-t2", "-c64", "-d10s", "--latency", url])
        .output()
        .expect("wrk is installed");
    let text = String::from_utf8_lossy(&output.stdout);
    let pick = |prefix: &str| {
        text.lines()
            .find(|line| line.trim_start().starts_with(prefix))
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let errors = text
        .lines()
        .filter(|line| line.contains("Non-2xx") || line.contains("Socket errors"))
        .collect::<Vec<_>>()
        .join("; ");
    println!(
        "{url}\n  {}\n  {}\n  {}\n  {}\n  errors: {}",
        pick("Requests/sec"),
        pick("50%"),
        pick("99%"),
        pick("Latency"),
        if errors.is_empty() { "none" } else { &errors }
    );
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let (daemon, _) = support::start(dir.path()).await;
    let response = reqwest::Client::new()
        .post(format!("http://{}/sync", daemon.addr()))
        .json(&support::payload(STORED, "load", now_epoch() + 86_400))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let hello = Router::new().route(
        "/hello",
        get(|| async { axum::Json(serde_json::json!({"status": "running"})) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hello_url = format!("http://{}/hello", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, hello).await });

    // wrk blocks; run it off the runtime so the servers keep serving.
    let base = format!("http://{}", daemon.addr());
    tokio::task::spawn_blocking(move || {
        println!("{STORED} reminders stored; wrk -t2 -c64 -d10s --latency");
        wrk(&hello_url);
        wrk(&format!("{base}/next"));
        wrk(&format!("{base}/status"));
    })
    .await
    .unwrap();
    daemon.shutdown().await;
}
