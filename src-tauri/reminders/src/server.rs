//! The loopback listener: bound to 127.0.0.1 only, served until stopped (a
//! rebind to another port, or the daemon's shutdown), then drained
//! gracefully.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

/// One listener serving its router.
pub(crate) struct Serving {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

/// Binds `127.0.0.1:port` (never another interface); port 0 picks a free
/// one. Returns the listener and the address bound.
pub(crate) async fn bind(port: u16) -> Result<(TcpListener, SocketAddr), (SocketAddr, io::Error)> {
    let wanted = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = TcpListener::bind(wanted)
        .await
        .map_err(|error| (wanted, error))?;
    let addr = listener.local_addr().map_err(|error| (wanted, error))?;
    Ok((listener, addr))
}

impl Serving {
    /// Serves `router` on `listener` (bound to `addr`) until [`Self::stop`]
    /// or until `shutdown` turns true.
    pub(crate) fn start(
        listener: TcpListener,
        addr: SocketAddr,
        router: Router,
        mut shutdown: watch::Receiver<bool>,
    ) -> Self {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let stop = async move {
                tokio::select! {
                    _ = stopped => {}
                    _ = shutdown.wait_for(|&stop| stop) => {}
                }
            };
            if let Err(error) = axum::serve(listener, router)
                .with_graceful_shutdown(stop)
                .await
            {
                tracing::error!("the reminder daemon's HTTP server failed: {error}");
            }
        });
        Self { addr, stop, task }
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, lets the requests in flight finish, and returns once
    /// the port is closed and they are done.
    pub(crate) async fn stop(self) {
        drop(self.stop);
        if let Err(error) = self.task.await
            && error.is_panic()
        {
            tracing::error!("the reminder daemon's HTTP server panicked: {error}");
        }
    }
}
