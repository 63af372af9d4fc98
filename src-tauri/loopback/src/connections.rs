//! Accepting and serving connections within fixed bounds, the same for every
//! port (REST, reminder daemon, CalDAV).
//!
//! - **Header-read timeout.** A connection must deliver a request's whole
//!   head (request line and headers) within [`ConnectionLimits::header_read`]
//!   of starting to read it, or it is closed. The clock starts when the
//!   connection opens and again after each response, so the same timer is
//!   the idle keep-alive timeout: a kept-alive connection that sends no next
//!   request within it is closed too. This is what stops a slowloris client
//!   (headers one byte at a time) from holding a connection forever.
//! - **Body-read timeout.** A request's body must arrive within
//!   [`ConnectionLimits::body_read`] of the handler starting to read it
//!   ([`crate::request_body`]).
//! - **Connection cap.** At most [`ConnectionLimits::max_connections`]
//!   connections are served at once. Past it, the server stops accepting:
//!   new connections wait in the kernel's listen backlog (they are not
//!   closed) and are accepted, in order, as served ones close. Their own
//!   header-read clock only starts once accepted.
//!
//! Served with hyper's HTTP/1.1 connection builder rather than
//! `axum::serve`, which exposes neither the header-read timeout nor a cap.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, oneshot};

/// How long a connection may take to send a request's head, and how many
/// connections are served at once. The defaults hold for every port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Time to deliver a request's head, from the connection's opening or
    /// the previous response (so also the idle keep-alive timeout).
    pub header_read: Duration,
    /// Time to deliver a request's body, once the handler reads it.
    pub body_read: Duration,
    /// Connections served at once; more wait in the listen backlog.
    pub max_connections: usize,
}

/// A whole request head takes a local client microseconds; ten seconds is
/// room for a machine under heavy load, and short enough that a client
/// trickling its headers gives up the connection quickly.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest body any port takes (16 MiB of `/sync`) arrives over
/// loopback in well under a second; thirty is room for a loaded machine.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Far above what a calendar app, Obsidian and a few scripts open together
/// (each keeps a handful), and far below the process's file limit.
pub const MAX_CONNECTIONS: usize = 256;

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read: HEADER_READ_TIMEOUT,
            body_read: BODY_READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// Serves `router` on `listener` until `stop` resolves, then closes the
/// listener (dropping `closed` with it, which tells a rebind the port is
/// free) and returns once every connection is done: idle ones are closed at
/// once, requests in flight finish first.
pub(crate) async fn serve(
    listener: TcpListener,
    closed: oneshot::Sender<()>,
    router: Router,
    limits: ConnectionLimits,
    mut stop: oneshot::Receiver<()>,
) {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    // Every port bounds a body's time and says `Connection: close` on an
    // early answer (REST's 401, the daemon's 413, CalDAV's sign-in
    // challenge), so it is added here.
    let router = router.layer(axum::middleware::from_fn_with_state(
        limits.body_read,
        crate::request_body::guard_body,
    ));
    let service = TowerToHyperService::new(router);
    loop {
        // A free slot first: at the cap, connections stay in the backlog.
        let slot = tokio::select! {
            biased;
            _ = &mut stop => break,
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_closed) => break,
            },
        };
        let stream = tokio::select! {
            biased;
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors or memory: accepting again at
                    // once would spin. Wait a moment for connections to close.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        // Responses are written whole; don't let Nagle hold back their tail.
        let _ = stream.set_nodelay(true);
        let connection = builder.serve_connection(TokioIo::new(stream), service.clone());
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection ending in an error (a timeout, a reset, a
            // malformed request hyper answered itself) is the client's
            // business; nothing to report above debug.
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection closed");
            }
            drop(slot);
        });
    }
    drop(listener);
    drop(closed);
    graceful.shutdown().await;
}

/// The pause after a failed `accept` (no file descriptors left, ...).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::*;
    use crate::{Bound, Listening};

    async fn server(limits: ConnectionLimits) -> Listening {
        let router = Router::new().route(
            "/",
            get(|| async { "ok" }).post(|body: String| async move { body.len().to_string() }),
        );
        Bound::bind(0).await.unwrap().serve_within(router, limits)
    }

    fn limits(header_read_ms: u64, max_connections: usize) -> ConnectionLimits {
        ConnectionLimits {
            header_read: Duration::from_millis(header_read_ms),
            body_read: Duration::from_millis(header_read_ms),
            max_connections,
        }
    }

    /// Reads until the server closes the connection (or resets it).
    async fn until_closed(stream: &mut TcpStream) -> Vec<u8> {
        let mut seen = Vec::new();
        let mut buf = [0; 1024];
        while let Ok(n @ 1..) = stream.read(&mut buf).await {
            seen.extend_from_slice(&buf[..n]);
        }
        seen
    }

    const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

    /// Sends `start`, then one byte every 100 ms (never the end of a head
    /// or a body, always busy) until the server closes the connection.
    /// Returns what the server answered and how long it took to close.
    async fn trickle(server: &Listening, start: &[u8]) -> (String, Duration) {
        let mut stream = TcpStream::connect(server.local_addr()).await.unwrap();
        let started = Instant::now();
        stream.write_all(start).await.unwrap();
        let (mut read, mut write) = stream.into_split();
        let trickle = tokio::spawn(async move {
            while write.write_all(b"X").await.is_ok() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        let mut answer = Vec::new();
        let mut buf = [0; 256];
        while let Ok(n @ 1..) = read.read(&mut buf).await {
            answer.extend_from_slice(&buf[..n]);
        }
        let elapsed = started.elapsed();
        trickle.abort();
        (String::from_utf8_lossy(&answer).into_owned(), elapsed)
    }

    #[tokio::test]
    async fn a_client_trickling_its_headers_is_dropped_after_the_header_timeout() {
        let server = server(limits(600, 8)).await;
        let (_, elapsed) = trickle(&server, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n").await;
        assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    }

    #[tokio::test]
    async fn a_client_trickling_its_body_is_refused_after_the_body_timeout() {
        let server = server(limits(600, 8)).await;
        let head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n";
        let (answer, elapsed) = trickle(&server, head).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "refused: {answer}");
        assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    }

    #[tokio::test]
    async fn an_idle_connection_is_closed_after_the_timeout_and_a_kept_alive_one_too() {
        let server = server(limits(600, 8)).await;
        // Never a byte.
        let mut silent = TcpStream::connect(server.local_addr()).await.unwrap();
        let started = Instant::now();
        assert!(until_closed(&mut silent).await.is_empty());
        assert!(started.elapsed() >= Duration::from_millis(600));
        // One request answered, then no next one.
        let mut kept = TcpStream::connect(server.local_addr()).await.unwrap();
        kept.write_all(REQUEST).await.unwrap();
        let started = Instant::now();
        let answer = String::from_utf8(until_closed(&mut kept).await).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        assert!(answer.ends_with("ok"), "{answer}");
        assert!(started.elapsed() >= Duration::from_millis(600));
    }

    #[tokio::test]
    async fn past_the_cap_a_connection_waits_until_one_closes() {
        let server = server(limits(30_000, 2)).await;
        let addr = server.local_addr();
        // Two connections take both slots (accepted in the order they
        // connected: the backlog is a queue).
        let first = TcpStream::connect(addr).await.unwrap();
        let mut second = TcpStream::connect(addr).await.unwrap();
        second.write_all(REQUEST).await.unwrap();
        let mut buf = [0; 1024];
        assert!(
            second.read(&mut buf).await.unwrap() > 0,
            "the second is served"
        );
        // The third connects (the kernel queues it) but is not served...
        let mut third = TcpStream::connect(addr).await.unwrap();
        third.write_all(REQUEST).await.unwrap();
        let waited = tokio::time::timeout(Duration::from_millis(500), third.read(&mut buf)).await;
        assert!(waited.is_err(), "served past the cap: {waited:?}");
        // ...until a served one closes.
        drop(first);
        let n = third.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200 OK"));
        server.drain().await;
    }

    #[tokio::test]
    async fn the_defaults_are_ten_seconds_thirty_for_a_body_and_256_connections() {
        let defaults = ConnectionLimits::default();
        assert_eq!(defaults.header_read, Duration::from_secs(10));
        assert_eq!(defaults.body_read, Duration::from_secs(30));
        assert_eq!(defaults.max_connections, 256);
    }
}
