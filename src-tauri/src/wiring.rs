//! Builds one running Almanac from its [`Paths`]: the core (settings,
//! calendar, tokens, in-process API), the REST server manager and the reminder
//! daemon (and the CalDAV server manager). Desktop and headless mode both start exactly this; they differ only
//! in the [`Hooks`] they pass — how the UI is driven, how consent is asked and
//! how notifications are shown.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use almanac_core::api::{ApiError, ConsentPrompt, UiController};
use almanac_core::app::{Core, CoreError};
use almanac_core::data_lock::DataLock;
use almanac_core::onboarding::import_unattended;
use almanac_core::paths::Paths;
use almanac_core::rest::{RestServer, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::tokens::SecretsInUse;
/// D-Bus notifications, or log lines without a notification server; the
/// standalone daemon starts with the same.
pub use almanac_reminders::system_notifier;
use almanac_reminders::{DaemonHandle, Notifier};
use tokio::sync::{Mutex, watch};

use crate::diagnostics;
use crate::reminder_daemon::ReminderDaemon;

/// Why the services could not start. A server that cannot bind its port is
/// not one of these: the app runs on and reports it.
#[derive(Debug, thiserror::Error)]
pub enum WiringError {
    #[error(transparent)]
    Core(#[from] CoreError),
    #[error("--vault: {0}")]
    Vault(#[from] ApiError),
}

/// What differs between desktop and headless mode.
pub struct Hooks {
    /// Opens and switches the calendar windows for the API.
    pub ui: Arc<dyn UiController>,
    /// Answers `request_access`.
    pub consent: Arc<dyn ConsentPrompt>,
    /// Shows reminder notifications (see [`system_notifier`]).
    pub notifier: Arc<dyn Notifier>,
}

/// The running services of one instance.
pub struct Services {
    pub core: Arc<Core>,
    /// Follows `restServerEnabled` / `localServerPort`; `None` once shut down.
    rest: Mutex<Option<RestServer>>,
    rest_state: watch::Receiver<ServerState>,
    /// Follows `caldavServer`; `None` once shut down.
    caldav: Mutex<Option<RestServer>>,
    /// Follows `settings.reminders`.
    reminders: Arc<ReminderDaemon>,
}

/// How long the app waits for another process (`almanac mcp` serving the
/// vault itself, a command line run) to hand the data folder over. Either
/// lets go within a second or two; one that does not is a stuck process the
/// user has to know about.
const HANDOVER_PATIENCE: Duration = Duration::from_secs(30);

/// The data folder, for this instance alone: never a second engine beside
/// another process (see [`almanac_core::data_lock`]).
async fn take_data_folder(paths: &Paths) -> Result<DataLock, CoreError> {
    let paths = paths.clone();
    tokio::task::spawn_blocking(move || DataLock::take_over(&paths, HANDOVER_PATIENCE))
        .await
        .map_err(|e| CoreError::Startup(e.to_string()))?
        .map_err(CoreError::from)
}

impl Services {
    /// Starts everything. Must run inside the tokio runtime that will keep
    /// serving (the servers' tasks live there).
    pub async fn start(
        paths: Paths,
        vault: Option<PathBuf>,
        hooks: Hooks,
    ) -> Result<Services, WiringError> {
        let lock = take_data_folder(&paths).await?;
        let secrets = SecretsInUse::at_start(&paths);
        let core = Core::open(paths, lock, secrets.store, hooks.ui, hooks.consent).await?;
        let core = Arc::new(core);
        if let Some(vault) = vault {
            let core = core.clone();
            // Moving the vault rescans it: blocking file I/O.
            tokio::task::spawn_blocking(move || {
                let vault_path = serde_json::json!({ "vaultPath": &vault });
                core.plugin().update_settings(Actor::User, &vault_path)?;
                import_unattended(&core, &vault)
            })
            .await
            .map_err(|e| CoreError::Startup(e.to_string()))??;
        }

        let rest = RestServer::start(&core);
        let rest_state = rest.subscribe();
        let caldav = almanac_core::caldav_server::start(
            core.plugin().clone(),
            core.calendar.clone(),
            &core.paths,
            core.settings.subscribe(),
        );

        let reminders = ReminderDaemon::start(
            core.paths.clone(),
            core.settings.subscribe(),
            core.vault_reminders(),
            Arc::new(crate::reminder_fired::Reporting {
                inner: hooks.notifier,
                core: core.clone(),
            }),
            core.events.clone(),
            diagnostics::provider(&core, secrets.backend),
        )
        .await;

        Ok(Services {
            core,
            rest: Mutex::new(Some(rest)),
            rest_state,
            caldav: Mutex::new(Some(caldav)),
            reminders,
        })
    }

    /// What the REST server is doing; wakes on every change.
    pub fn rest_state(&self) -> watch::Receiver<ServerState> {
        self.rest_state.clone()
    }

    /// The running reminder daemon, if it runs. Hold the guard only briefly.
    pub async fn reminders(&self) -> tokio::sync::RwLockReadGuard<'_, Option<DaemonHandle>> {
        self.reminders.handle().await
    }

    /// Why the reminder daemon is not running, or not on the configured port.
    pub fn reminders_problem(&self) -> Option<String> {
        self.reminders.problem()
    }

    /// Stops the servers (their ports are closed when this returns) and
    /// writes what is still only in memory. Safe to call twice.
    pub async fn shutdown(&self) {
        if let Some(rest) = self.rest.lock().await.take() {
            rest.shutdown().await;
        }
        tracing::debug!("REST server stopped");
        if let Some(caldav) = self.caldav.lock().await.take() {
            caldav.shutdown().await;
        }
        tracing::debug!("CalDAV server stopped");
        self.reminders.shutdown().await;
        tracing::debug!("reminder daemon stopped");
        let tokens = self.core.tokens.clone();
        let flushed = tokio::task::spawn_blocking(move || tokens.flush_last_used()).await;
        if let Ok(Err(error)) = flushed {
            tracing::warn!("could not save token last-used times: {error}");
        }
        tracing::info!("services stopped");
    }
}
