//! The REST port within its connection bounds (docs/security.md,
//! "Connections"): a client trickling its headers is dropped after the
//! header-read timeout, and past 256 connections a new one waits in the
//! backlog until a served one closes.

use std::time::Duration;

use almanac_loopback::connections::{HEADER_READ_TIMEOUT, MAX_CONNECTIONS};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::rest::support::RestHarness;

#[tokio::test]
async fn a_client_trickling_its_headers_is_dropped_after_ten_seconds() {
    let instance = RestHarness::start().await;
    let addr = instance.server.local_addr();
    assert_eq!(HEADER_READ_TIMEOUT, Duration::from_secs(10));
    almanac_testkit::net::assert_trickled_headers_dropped_after_ten_seconds(addr).await;
}

/// Sends a whole request on `stream` and reads the start of the answer.
async fn status_line(stream: &mut TcpStream, addr: std::net::SocketAddr) -> String {
    let request = format!("GET /api/v1/calendars HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut buf = [0; 12];
    stream.read_exact(&mut buf).await.unwrap();
    String::from_utf8_lossy(&buf).into_owned()
}

#[tokio::test]
async fn past_256_connections_a_new_one_waits_until_one_closes() {
    let instance = RestHarness::start().await;
    let addr = instance.server.local_addr();
    assert_eq!(MAX_CONNECTIONS, 256);
    let mut held = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        held.push(TcpStream::connect(addr).await.unwrap());
    }
    // The last one is served, so all of them were accepted (in order).
    let last = held.last_mut().unwrap();
    assert!(status_line(last, addr).await.starts_with("HTTP/1.1 "));
    // One more connects (the kernel queues it) but is not served...
    let mut extra = TcpStream::connect(addr).await.unwrap();
    let waiting = tokio::time::timeout(Duration::from_secs(1), status_line(&mut extra, addr)).await;
    assert!(waiting.is_err(), "served past the cap: {waiting:?}");
    // ...until a served one closes.
    drop(held.swap_remove(0));
    let mut buf = [0; 12];
    extra.read_exact(&mut buf).await.unwrap();
    assert!(
        buf.starts_with(b"HTTP/1.1 "),
        "{:?}",
        String::from_utf8_lossy(&buf)
    );
}
