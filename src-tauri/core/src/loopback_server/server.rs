//! The loopback listener, and the manager that starts, stops and rebinds it
//! as the settings change (the REST server's, and with
//! [`RestServer::spawn_following`] the CalDAV server's).
//!
//! [`Listening`] (from `almanac-loopback`) is one bound server on
//! `127.0.0.1` (port 0 picks a free one, which tests use). [`RestServer`]
//! follows `restServerEnabled` and `localServerPort` through the settings
//! watch channel — no polling — and publishes its [`ServerState`] on a watch channel of its own, so whoever
//! changed a setting can await the outcome (`Listening` or `Failed`).

use std::net::SocketAddr;
use std::sync::Arc;

pub use almanac_loopback::Listening;
use axum::Router;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::settings::Settings;

/// What the REST server is doing now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// `restServerEnabled` is off.
    Disabled,
    /// Accepting connections on this address.
    Listening(SocketAddr),
    /// Enabled, but the port could not be bound (e.g. already in use). The
    /// next settings change tries again.
    Failed(String),
}

/// The REST server as the settings want it. Dropping the handle stops it.
#[derive(Debug)]
pub struct RestServer {
    state: watch::Receiver<ServerState>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl RestServer {
    /// Starts following `settings`: listens while `restServerEnabled` is on,
    /// on `localServerPort`, serving the router `make_router` builds.
    pub fn spawn<F>(settings: watch::Receiver<Arc<Settings>>, make_router: F) -> Self
    where
        F: Fn(u16) -> Router + Send + Sync + 'static,
    {
        let wanted = |s: &Settings| s.rest_server_enabled.then_some(s.local_server_port);
        Self::spawn_following(settings, "REST server", wanted, make_router)
    }

    /// The same manager for another loopback server (the CalDAV server):
    /// listens on the port `wanted` picks from the settings, while it picks
    /// one. `name` is what the log calls it.
    pub fn spawn_following<F>(
        settings: watch::Receiver<Arc<Settings>>,
        name: &'static str,
        wanted: fn(&Settings) -> Option<u16>,
        make_router: F,
    ) -> Self
    where
        F: Fn(u16) -> Router + Send + Sync + 'static,
    {
        let (state_tx, state) = watch::channel(ServerState::Disabled);
        let (stop, stop_rx) = oneshot::channel();
        let follow = Follow { name, wanted };
        let task = tokio::spawn(follow_settings(
            settings,
            follow,
            make_router,
            state_tx,
            stop_rx,
        ));
        Self { state, stop, task }
    }

    /// The current state.
    pub fn state(&self) -> ServerState {
        self.state.borrow().clone()
    }

    /// A receiver of every state change, e.g. to await `Listening` after
    /// switching the server on.
    pub fn subscribe(&self) -> watch::Receiver<ServerState> {
        self.state.clone()
    }

    /// Stops the server and returns once its port is closed.
    pub async fn shutdown(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// Which server a manager runs, and where the settings want it.
struct Follow {
    name: &'static str,
    wanted: fn(&Settings) -> Option<u16>,
}

/// The manager's loop: reconcile the listener with the settings after every
/// change, until stopped or the settings store goes away.
async fn follow_settings<F>(
    mut settings: watch::Receiver<Arc<Settings>>,
    Follow { name, wanted }: Follow,
    make_router: F,
    state: watch::Sender<ServerState>,
    mut stop: oneshot::Receiver<()>,
) where
    F: Fn(u16) -> Router + Send + Sync + 'static,
{
    let mut current: Option<Listening> = None;
    loop {
        let wanted = wanted(&settings.borrow_and_update());
        let running = current
            .as_ref()
            .map(|listening| listening.local_addr().port());
        // Switching off after a failed bind changes no listener, but the
        // state must say "disabled", not the old error.
        let stale_failure = wanted.is_none() && matches!(*state.borrow(), ServerState::Failed(_));
        if wanted != running || stale_failure {
            if let Some(old) = current.take() {
                old.shutdown().await;
                tracing::info!("{name} stopped");
            }
            let next = match wanted {
                None => ServerState::Disabled,
                Some(port) => match Listening::bind(port, &make_router).await {
                    Ok(listening) => {
                        let addr = listening.local_addr();
                        tracing::info!(%addr, "{name} listening");
                        current = Some(listening);
                        ServerState::Listening(addr)
                    }
                    Err(error) => {
                        tracing::error!(port, %error, "{name} cannot listen");
                        ServerState::Failed(error.to_string())
                    }
                },
            };
            state.send_replace(next);
        }
        tokio::select! {
            changed = settings.changed() => if changed.is_err() { break },
            _ = &mut stop => break,
        }
    }
    if let Some(listening) = current {
        listening.shutdown().await;
    }
    state.send_replace(ServerState::Disabled);
}
