//! Binding `127.0.0.1:port` and serving a router there until stopped.
//!
//! Binding and serving are two steps ([`Bound`], then [`Bound::serve`]) so a
//! server can claim its port before anything else (a second instance then
//! fails on the port, with a clear message) and build its router for the
//! port actually bound (the `Host` check needs it; port 0 picks a free one).
//!
//! A [`Listening`] server stops in one of two ways: [`Listening::shutdown`]
//! returns as soon as the port is free again — what a rebind needs, and what
//! a request that moved the server itself can wait for — while requests in
//! flight finish in the background; [`Listening::drain`] also waits for
//! them, so whatever they use can be closed afterwards. Dropping it stops
//! accepting too. Every connection is served within [`ConnectionLimits`]
//! (header-read timeout, connection cap; see [`crate::connections`]).

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::connections::{self, ConnectionLimits};

/// The port could not be bound.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {addr}: {source}")]
pub struct BindError {
    /// The address asked for.
    pub addr: SocketAddr,
    pub source: io::Error,
}

/// A bound loopback port, not yet served.
#[derive(Debug)]
pub struct Bound {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Bound {
    /// Binds `127.0.0.1:port` (never another interface); port 0 picks a
    /// free one.
    pub async fn bind(port: u16) -> Result<Self, BindError> {
        let wanted = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let error = |source| BindError {
            addr: wanted,
            source,
        };
        let listener = TcpListener::bind(wanted).await.map_err(error)?;
        let addr = listener.local_addr().map_err(error)?;
        Ok(Self { listener, addr })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `router` in a background task, within the default
    /// [`ConnectionLimits`].
    pub fn serve(self, router: Router) -> Listening {
        self.serve_within(router, ConnectionLimits::default())
    }

    /// Serves `router` in a background task, within `limits`.
    pub fn serve_within(self, router: Router, limits: ConnectionLimits) -> Listening {
        let Self { listener, addr } = self;
        let (closed_tx, closed) = oneshot::channel();
        let (stop, stop_rx) = oneshot::channel::<()>();
        let task = tokio::spawn(connections::serve(
            listener, closed_tx, router, limits, stop_rx,
        ));
        Listening {
            addr,
            stop,
            closed,
            task,
        }
    }
}

/// One router served on a loopback port.
#[derive(Debug)]
pub struct Listening {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    /// Resolves (with an error) once the listening socket is closed.
    closed: oneshot::Receiver<()>,
    /// Ends once the socket is closed and every connection is done.
    task: JoinHandle<()>,
}

impl Listening {
    /// Binds `127.0.0.1:port` and serves the router `make_router` builds for
    /// the port actually bound.
    pub async fn bind(
        port: u16,
        make_router: impl FnOnce(u16) -> Router,
    ) -> Result<Self, BindError> {
        let bound = Bound::bind(port).await?;
        let router = make_router(bound.addr().port());
        Ok(bound.serve(router))
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting and returns once the port is free again. Requests in
    /// flight finish in the background.
    pub async fn shutdown(self) {
        drop(self.stop);
        let _ = self.closed.await;
    }

    /// Stops accepting, lets the requests in flight finish, and returns once
    /// the port is closed and they are done.
    pub async fn drain(self) {
        drop(self.stop);
        if let Err(error) = self.task.await
            && error.is_panic()
        {
            tracing::error!(addr = %self.addr, "a loopback server panicked: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use axum::routing::get;
    use tokio::sync::Notify;
    use tokio::task::JoinHandle;

    use super::*;

    /// A request in flight: its handler has started, and answers once
    /// `release` is notified, then sets `finished`.
    struct InFlight {
        release: Arc<Notify>,
        finished: Arc<AtomicBool>,
        request: JoinHandle<reqwest::Result<reqwest::Response>>,
    }

    impl InFlight {
        /// A server with one request in flight.
        async fn start() -> (Listening, Self) {
            let entered = Arc::new(Notify::new());
            let release = Arc::new(Notify::new());
            let finished = Arc::new(AtomicBool::new(false));
            let handler = {
                let (entered, release, finished) =
                    (entered.clone(), release.clone(), finished.clone());
                move || async move {
                    entered.notify_one();
                    release.notified().await;
                    finished.store(true, Ordering::SeqCst);
                    "done"
                }
            };
            let server = Listening::bind(0, |_| Router::new().route("/slow", get(handler)))
                .await
                .unwrap();
            let url = format!("http://{}/slow", server.local_addr());
            let request = tokio::spawn(reqwest::get(url));
            entered.notified().await;
            let in_flight = Self {
                release,
                finished,
                request,
            };
            (server, in_flight)
        }

        fn finished(&self) -> bool {
            self.finished.load(Ordering::SeqCst)
        }

        /// The answer, which must arrive whole.
        async fn answer(self) -> String {
            self.request.await.unwrap().unwrap().text().await.unwrap()
        }
    }

    #[tokio::test]
    async fn a_taken_port_is_a_clear_error() {
        let first = Bound::bind(0).await.unwrap();
        let error = Bound::bind(first.addr().port()).await.unwrap_err();
        assert_eq!(error.addr, first.addr());
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot listen on {}", first.addr()))
        );
    }

    #[tokio::test]
    async fn serves_the_router_built_for_the_bound_port() {
        let server = Listening::bind(0, |port| {
            Router::new().route("/port", get(move || async move { port.to_string() }))
        })
        .await
        .unwrap();
        let addr = server.local_addr();
        assert_eq!(addr.ip(), Ipv4Addr::LOCALHOST);
        let body = reqwest::get(format!("http://{addr}/port"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(body, addr.port().to_string());
        server.shutdown().await;
    }

    #[tokio::test]
    async fn shutdown_frees_the_port_while_requests_still_run() {
        let (server, in_flight) = InFlight::start().await;
        let addr = server.local_addr();
        server.shutdown().await;
        // The port can be bound again at once (a rebind on the same port),
        // though the request has not been answered yet...
        let again = Bound::bind(addr.port()).await.unwrap();
        assert!(!in_flight.finished());
        // ...and it still gets its answer.
        in_flight.release.notify_one();
        assert_eq!(in_flight.answer().await, "done");
        drop(again);
    }

    #[tokio::test]
    async fn drain_returns_once_requests_in_flight_are_done() {
        let (server, in_flight) = InFlight::start().await;
        let addr = server.local_addr();
        let drained = tokio::spawn(server.drain());
        // Give the drain every chance to return early: on this one thread,
        // each yield runs the server's and the drain's tasks as far as they
        // can go. With the handler still waiting, the drain must not end.
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert!(!drained.is_finished());
        in_flight.release.notify_one();
        drained.await.unwrap();
        assert!(in_flight.finished());
        assert_eq!(in_flight.answer().await, "done");
        // New connections are refused once drained.
        assert!(reqwest::get(format!("http://{addr}/slow")).await.is_err());
    }
}
