//! The loopback listener: bound to 127.0.0.1 only, served until the
//! shutdown signal, then drained gracefully.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Binds `127.0.0.1:port` (never another interface); port 0 picks a free one.
pub async fn bind(port: u16) -> Result<TcpListener, (SocketAddr, io::Error)> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    TcpListener::bind(addr).await.map_err(|error| (addr, error))
}

/// Serves `router` on `listener` until `shutdown` turns true.
pub fn spawn(
    listener: TcpListener,
    router: Router,
    mut shutdown: watch::Receiver<bool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let stop = async move {
            let _ = shutdown.wait_for(|&stop| stop).await;
        };
        if let Err(error) = axum::serve(listener, router)
            .with_graceful_shutdown(stop)
            .await
        {
            tracing::error!("the reminder daemon's HTTP server failed: {error}");
        }
    })
}
