//! The daemon's port within its bounds (docs/security.md, "Connections" and
//! "Request bodies"): a client trickling its headers is dropped after the
//! header-read timeout, a `/sync` body just past the limit is a 413 in the
//! daemon's error shape, `/sync` bodies are read two at a time, and
//! `/doctor` runs the host's diagnostics off the async workers.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use almanac_reminders::{Daemon, Limits};
use common::{ChannelNotifier, ChannelOpener, TestDaemon, config};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test]
async fn a_client_trickling_its_headers_is_dropped_after_ten_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let addr = daemon.addr();
    almanac_testkit::net::assert_trickled_headers_dropped_after_ten_seconds(addr).await;
    // The daemon still answers.
    assert_eq!(daemon.get("/status").await.0, 200);
}

#[tokio::test]
async fn a_sync_body_just_past_the_default_limit_is_a_413() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let limit = Limits::default().max_sync_body_bytes;
    assert_eq!(limit, 16 * 1024 * 1024);
    // An empty array padded to exactly the limit is read (and is valid)...
    let at_limit = format!("[{}]", " ".repeat(limit - 2));
    let (status, body) = daemon.post_raw("/sync", "application/json", at_limit).await;
    assert_eq!(status, 200, "{body}");
    // ...one byte more is refused, with the limit named, and nothing changes.
    daemon
        .sync(&[common::reminder("kept", common::now_epoch() + 600)])
        .await;
    let past = format!("[{}]", " ".repeat(limit - 1));
    let (status, body) = daemon.post_raw("/sync", "application/json", past).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"], "payload_too_large", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains(&limit.to_string()),
        "{body}"
    );
    assert_eq!(daemon.event_ids().await, vec!["kept"]);
}

/// Starts a `/sync` whose body never finishes arriving.
async fn unfinished_sync(addr: std::net::SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /sync HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n["
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

#[tokio::test]
async fn sync_bodies_are_read_two_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let addr = daemon.addr();
    let mut first = unfinished_sync(addr).await;
    let _second = unfinished_sync(addr).await;
    // Both hold a turn once the server has read their heads (given time to);
    // a third then waits.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let third = {
        let client = daemon.client.clone();
        let url = format!("{}/sync", daemon.base);
        tokio::spawn(async move {
            client
                .post(url)
                .header("content-type", "application/json")
                .body("[]")
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(
        !third.is_finished(),
        "a third /sync was read past two turns"
    );
    // Reads still answer meanwhile.
    assert_eq!(daemon.get("/status").await.0, 200);
    // The first body completes (as an empty array): its turn frees the third.
    first
        .write_all(format!("]{}", " ".repeat(98)).as_bytes())
        .await
        .unwrap();
    let mut answer = [0; 12];
    first.read_exact(&mut answer).await.unwrap();
    assert_eq!(&answer, b"HTTP/1.1 200");
    assert_eq!(third.await.unwrap(), 200);
}

#[tokio::test(flavor = "current_thread")]
async fn doctor_runs_the_host_diagnostics_off_the_async_workers() {
    // On this runtime's single thread, a provider run on the async worker
    // would stall every other request until it returns.
    let dir = tempfile::tempdir().unwrap();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = std::sync::Mutex::new(released);
    let entered = Arc::new(tokio::sync::Notify::new());
    let entering = entered.clone();
    let diagnostics: almanac_reminders::DiagnosticsProvider = Arc::new(move || {
        entering.notify_one();
        // Blocks until the test has seen another request answered; gives
        // up after a while so a failing test ends.
        let _ = released
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10));
        json!({"slow": true})
    });
    let (notify, _notifications) = tokio::sync::mpsc::unbounded_channel();
    let (open, _opened) = tokio::sync::mpsc::unbounded_channel();
    let handle = Daemon::start(
        config(&dir.path().join("db")),
        Arc::new(ChannelNotifier(notify)),
        Arc::new(ChannelOpener(open)),
        Some(diagnostics),
    )
    .await
    .unwrap();
    let base = format!("http://{}", handle.addr());
    let started = std::time::Instant::now();
    let doctor = tokio::spawn(reqwest::get(format!("{base}/doctor")));
    entered.notified().await;
    let status = reqwest::get(format!("{base}/status")).await.unwrap();
    assert_eq!(status.status(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "/status waited for /doctor's diagnostics"
    );
    release.send(()).unwrap();
    let doctor: Value = doctor.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(doctor["host"], json!({"slow": true}));
    handle.shutdown().await;
}
