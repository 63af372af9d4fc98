//! Starting, reconfiguring and stopping the daemon, and the handle the
//! shell keeps.

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};

use almanac_loopback::{BindError, Bound, Listening};
use tokio::sync::{Mutex, watch};
use tokio::task::JoinHandle;

use crate::answers::StorageInfo;
use crate::clock;
use crate::config::DaemonConfig;
use crate::engine::{ActionError, Engine, Scheduled, Settled};
use crate::history::HistoryEntry;
use crate::notifier::Notifier;
use crate::opener::Opener;
use crate::reminder::Reminder;
use crate::routes::{self, AppState, DiagnosticsProvider, Instance, Listen};
use crate::schedule::SyncSummary;
use crate::scheduler;
use crate::store::{SledStore, StoreError};
use crate::updates::{UpdateState, Updates};

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
    /// Opening the store or loading the reminders panicked (a bug; logged).
    #[error("loading the reminders failed unexpectedly: {0}")]
    Panicked(String),
}

/// Why [`DaemonHandle::reconfigure`] did not apply all of a config.
#[derive(Debug, thiserror::Error)]
pub enum ReconfigureError {
    /// The new port could not be bound. Everything else in the config was
    /// applied; the daemon keeps serving on the old port, `/doctor` says
    /// why, and the next reconfigure tries the port again.
    #[error(
        "cannot listen on {addr}: {source} (still serving on {serving}; is another program using the port?)"
    )]
    Bind {
        addr: SocketAddr,
        serving: SocketAddr,
        source: io::Error,
    },
    /// This field is fixed at start; nothing was applied.
    #[error("`{0}` cannot change while the daemon runs")]
    Fixed(&'static str),
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
        // Bound first, so a second instance fails on the port with a clear
        // message before it touches the (locked) store.
        let bound = Bound::bind(config.port)
            .await
            .map_err(|BindError { addr, source }| StartError::Bind { addr, source })?;
        let addr = bound.addr();

        let updates = Arc::new(Updates::new(config.updates.clone()));
        let engine = almanac_loopback::blocking(move || {
            let store = SledStore::open(&config.db_path)?;
            Engine::load(config, Arc::new(store), notifier, opener)
        })
        .await
        .map_err(|panicked| StartError::Panicked(panicked.message().to_owned()))??;
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
            storage: StorageInfo::of(engine.store().path()),
            engine: engine.clone(),
            updates: updates.clone(),
            instance: Instance {
                pid: std::process::id(),
                version: env!("CARGO_PKG_VERSION"),
                started_at_ms,
            },
            listen: RwLock::new(Listen {
                addr,
                problem: None,
            }),
            diagnostics,
            at_start,
        });
        let serving = bound.serve(routes::router(state.clone(), addr));
        let tasks = vec![
            tokio::spawn(scheduler::run(engine.clone(), stop.clone())),
            tokio::spawn({
                let updates = updates.clone();
                async move { updates.run(stop).await }
            }),
        ];
        tracing::info!("reminder daemon listening on http://{addr}");
        Ok(DaemonHandle {
            state,
            serving: Mutex::new(Some(serving)),
            shutdown,
            tasks,
        })
    }
}

/// The running daemon. Dropping it signals shutdown; [`Self::shutdown`]
/// also waits for the server and scheduler to stop and closes the store.
pub struct DaemonHandle {
    state: Arc<AppState>,
    /// The listener; `None` once shut down. Locked across a rebind.
    /// Dropping it (with the handle) stops it.
    serving: Mutex<Option<Listening>>,
    /// Stops the scheduler and the update checks.
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl DaemonHandle {
    fn engine(&self) -> &Engine {
        &self.state.engine
    }

    /// The loopback address listened on now.
    pub fn addr(&self) -> SocketAddr {
        self.state.listen().addr
    }

    /// Why the configured port is not the one listened on (a failed rebind),
    /// if it is not.
    pub fn listen_problem(&self) -> Option<String> {
        self.state.listen().problem
    }

    /// Puts `config` in force without a restart: the scheme allowlist and
    /// the grace window apply to the next request and the next settling,
    /// update checks follow the new switch and feed at once, and a new port
    /// is bound before the old one is closed (requests in flight on the old
    /// one finish). `db_path`, `limits` and `allowed_origins` are fixed at
    /// start.
    pub async fn reconfigure(&self, config: DaemonConfig) -> Result<(), ReconfigureError> {
        let mut serving = self.serving.lock().await;
        let current = self.engine().config();
        if config.db_path != current.db_path {
            return Err(ReconfigureError::Fixed("db_path"));
        }
        if config.limits != current.limits {
            return Err(ReconfigureError::Fixed("limits"));
        }
        if config.allowed_origins != current.allowed_origins {
            return Err(ReconfigureError::Fixed("allowed_origins"));
        }
        let port = config.port;
        self.state.updates.reconfigure(config.updates.clone());
        self.engine().reconfigure(config);

        let Some(old) = serving.take_if(|old| needs_rebind(port, current.port, old.local_addr()))
        else {
            // Same port (or shut down): nothing to move; an earlier failure
            // to move is moot.
            self.state
                .listen
                .write()
                .expect("listen lock poisoned")
                .problem = None;
            return Ok(());
        };
        match Bound::bind(port).await {
            Ok(bound) => {
                let addr = bound.addr();
                *serving = Some(bound.serve(routes::router(self.state.clone(), addr)));
                *self.state.listen.write().expect("listen lock poisoned") = Listen {
                    addr,
                    problem: None,
                };
                tracing::info!("reminder daemon moved to http://{addr}");
                old.drain().await;
                Ok(())
            }
            Err(BindError { addr, source }) => {
                let serving_addr = old.local_addr();
                *serving = Some(old);
                let error = ReconfigureError::Bind {
                    addr,
                    serving: serving_addr,
                    source,
                };
                tracing::error!("reminder daemon not moved: {error}");
                self.state
                    .listen
                    .write()
                    .expect("listen lock poisoned")
                    .problem = Some(error.to_string());
                Err(error)
            }
        }
    }

    /// Pending reminders in trigger order, at most `limit`.
    pub fn upcoming(&self, limit: usize) -> Vec<Scheduled> {
        self.engine().upcoming(limit)
    }

    /// Replaces the reminders derived from the vault with `reminders` (the
    /// complete current set), durably, as a host's `/sync` replaces its
    /// own; the host's reminders are untouched. Returns what changed.
    pub async fn replace_vault_reminders(
        &self,
        reminders: Vec<Reminder>,
    ) -> Result<SyncSummary, StoreError> {
        self.engine().replace_vault(reminders).await
    }

    /// Fired, missed and dropped reminders, newest first.
    pub fn recently_fired(&self) -> Vec<HistoryEntry> {
        self.engine().recently_fired()
    }

    /// A receiver that wakes after every change of the pending reminders or
    /// the recently fired list.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.engine().subscribe()
    }

    /// The cached `/updates` state.
    pub fn updates(&self) -> UpdateState {
        self.state.updates.snapshot()
    }

    /// Snoozes a pending or recently fired reminder for `minutes`.
    pub async fn snooze(&self, id: &str, minutes: i64) -> Result<Reminder, ActionError> {
        let reminder = self.engine().find(id)?;
        self.engine().snooze_reminder(&reminder, minutes).await
    }

    /// Opens the `action_url` of a pending or recently fired reminder.
    pub fn open(&self, id: &str) -> Result<(), ActionError> {
        let reminder = self.engine().find(id)?;
        self.engine().open_url(&reminder.action_url)
    }

    /// Stops the server (draining requests in flight) and the scheduler,
    /// then closes the store; every acknowledged change is already on disk.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        if let Some(serving) = self.serving.lock().await.take() {
            serving.drain().await;
        }
        for task in std::mem::take(&mut self.tasks) {
            if let Err(error) = task.await
                && error.is_panic()
            {
                tracing::error!("a reminder daemon task panicked: {error}");
            }
        }
    }
}

/// Whether a listener on `bound` must move for the configured `port` (the
/// previous config said `previous`). Port 0 means "any free port": kept if
/// it was already the wish, else a fresh one is picked.
fn needs_rebind(port: u16, previous: u16, bound: SocketAddr) -> bool {
    if port == 0 {
        previous != 0
    } else {
        port != bound.port()
    }
}

impl Drop for DaemonHandle {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebinds_follow_the_configured_port() {
        let bound = SocketAddr::from(([127, 0, 0, 1], 5000));
        assert!(!needs_rebind(5000, 5000, bound));
        assert!(needs_rebind(5001, 5000, bound));
        // A failed move is retried by the next reconfigure.
        assert!(needs_rebind(5001, 5001, bound));
        assert!(!needs_rebind(0, 0, bound));
        assert!(needs_rebind(0, 5000, bound));
        assert!(!needs_rebind(5000, 0, bound));
    }
}
