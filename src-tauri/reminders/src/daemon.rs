//! Starting and stopping the daemon, and the handle the shell keeps.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::clock;
use crate::config::DaemonConfig;
use crate::engine::{ActionError, Engine, Scheduled, Settled};
use crate::history::HistoryEntry;
use crate::notifier::Notifier;
use crate::opener::Opener;
use crate::reminder::Reminder;
use crate::routes::{self, AppState, DiagnosticsProvider, Instance};
use crate::store::{SledStore, StoreError};
use crate::updates::{UpdateState, Updates};
use crate::view::StorageView;
use crate::{scheduler, server};

/// Why the daemon did not start. The app keeps running either way; the
/// shell logs this and shows it in diagnostics.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "cannot listen on {addr}: {source} (is another Almanac or FCR Reminder instance running?)"
    )]
    Bind { addr: SocketAddr, source: io::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Entry point: see [`Daemon::start`].
pub struct Daemon;

impl Daemon {
    /// Binds the port, opens the store, settles reminders missed while the
    /// app was closed (one summary notification), then serves and schedules
    /// in the background. Must run inside a tokio runtime.
    pub async fn start(
        config: DaemonConfig,
        notifier: Arc<dyn Notifier>,
        opener: Arc<dyn Opener>,
        diagnostics: Option<DiagnosticsProvider>,
    ) -> Result<DaemonHandle, StartError> {
        let started_at_ms = clock::now_ms();
        let listener = server::bind(config.port)
            .await
            .map_err(|(addr, source)| StartError::Bind { addr, source })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            addr: SocketAddr::from(([127, 0, 0, 1], config.port)),
            source,
        })?;

        let updates = Arc::new(Updates::new(config.updates.clone()));
        let engine = tokio::task::spawn_blocking(move || {
            let store = SledStore::open(&config.db_path)?;
            Engine::load(config, Arc::new(store), notifier, opener)
        })
        .await
        .unwrap_or_else(|error| std::panic::resume_unwind(error.into_panic()))?;
        let at_start = engine.settle_due(None).await;
        if at_start != Settled::default() {
            tracing::info!(
                missed = at_start.missed,
                dropped = at_start.dropped,
                "settled reminders that came due while the app was closed"
            );
        }

        let (shutdown, stop) = watch::channel(false);
        let state = Arc::new(AppState {
            storage: StorageView::of(engine.store().path()),
            engine: engine.clone(),
            updates: updates.clone(),
            instance: Instance {
                pid: std::process::id(),
                version: env!("CARGO_PKG_VERSION"),
                started_at_ms,
                addr,
            },
            diagnostics,
            at_start,
        });
        let tasks = vec![
            tokio::spawn(scheduler::run(engine.clone(), stop.clone())),
            server::spawn(listener, routes::router(state), stop.clone()),
            tokio::spawn({
                let updates = updates.clone();
                async move { updates.run(stop).await }
            }),
        ];
        tracing::info!("reminder daemon listening on http://{addr}");
        Ok(DaemonHandle {
            engine,
            updates,
            addr,
            shutdown,
            tasks,
        })
    }
}

/// The running daemon. Dropping it signals shutdown; [`Self::shutdown`]
/// also waits for the server and scheduler to stop and closes the store.
pub struct DaemonHandle {
    engine: Arc<Engine>,
    updates: Arc<Updates>,
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl DaemonHandle {
    /// The bound loopback address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Pending reminders in trigger order, at most `limit`.
    pub fn upcoming(&self, limit: usize) -> Vec<Scheduled> {
        self.engine.upcoming(limit)
    }

    /// Fired, missed and dropped reminders, newest first.
    pub fn recently_fired(&self) -> Vec<HistoryEntry> {
        self.engine.recently_fired()
    }

    /// A receiver that wakes after every change of the pending reminders or
    /// the recently fired list.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.engine.subscribe()
    }

    /// The cached `/updates` state.
    pub fn updates(&self) -> UpdateState {
        self.updates.snapshot()
    }

    /// Snoozes a pending or recently fired reminder for `minutes`.
    pub async fn snooze(&self, id: &str, minutes: i64) -> Result<Reminder, ActionError> {
        let reminder = self.engine.find(id)?;
        self.engine.snooze_reminder(&reminder, minutes).await
    }

    /// Opens the `action_url` of a pending or recently fired reminder.
    pub fn open(&self, id: &str) -> Result<(), ActionError> {
        let reminder = self.engine.find(id)?;
        self.engine.open_url(&reminder.action_url)
    }

    /// Stops the server (draining requests in flight) and the scheduler,
    /// then closes the store; every acknowledged change is already on disk.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        for task in std::mem::take(&mut self.tasks) {
            if let Err(error) = task.await
                && error.is_panic()
            {
                tracing::error!("a reminder daemon task panicked: {error}");
            }
        }
    }
}

impl Drop for DaemonHandle {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}
