//! Builds one running Almanac from its [`Paths`]: settings, tokens, the
//! reminder daemon (and, as they land, the calendar, the in-process API and the
//! REST server manager). Desktop and headless mode both start exactly this;
//! they differ only in the [`Hooks`] they pass — how notifications are shown,
//! how the UI is driven and how consent is asked.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use almanac_core::calendar::{Calendar, CalendarError};
use almanac_core::clock::SystemClock;
use almanac_core::paths::Paths;
use almanac_core::settings::{Settings, SettingsError, SettingsStore};
use almanac_core::tokens::{
    DEFAULT_DEBOUNCE, KeyringSecretStore, TokenError, TokenStore, spawn_last_used_writer,
};
use almanac_reminders::{
    DaemonConfig, DaemonHandle, DbusNotifier, LogNotifier, Notifier, SystemOpener, UpdateConfig,
};
use tokio::sync::RwLock;
use tokio::task::JoinHandle;

/// Why the services could not start. A reminder daemon that cannot bind is
/// not one of these: the app runs on and reports it (see
/// [`Services::reminders_problem`]).
#[derive(Debug, thiserror::Error)]
pub enum WiringError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Tokens(#[from] TokenError),
    #[error("cannot open the vault: {0}")]
    Calendar(#[from] CalendarError),
    #[error("a start-up task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// What differs between desktop and headless mode.
pub struct Hooks {
    /// Shows reminder notifications (see [`system_notifier`]).
    pub notifier: Arc<dyn Notifier>,
}

/// The running services of one instance.
pub struct Services {
    pub paths: Paths,
    pub settings: Arc<SettingsStore>,
    pub tokens: Arc<TokenStore>,
    pub calendar: Calendar,
    /// `None` once shut down, or when the daemon could not start.
    reminders: RwLock<Option<DaemonHandle>>,
    reminders_problem: Option<String>,
    background: Vec<JoinHandle<()>>,
}

impl Services {
    /// Starts everything. Must run inside the tokio runtime that will keep
    /// serving (the servers' tasks live there).
    pub async fn start(
        paths: Paths,
        vault: Option<PathBuf>,
        hooks: Hooks,
    ) -> Result<Services, WiringError> {
        let settings = Arc::new(SettingsStore::open(&paths.settings_file())?);
        if let Some(vault) = vault {
            settings.update(&serde_json::json!({ "vaultPath": vault }))?;
        }
        let tokens = {
            let file = paths.tokens_file();
            // Opening reads every secret from the keyring: blocking D-Bus calls.
            tokio::task::spawn_blocking(move || {
                TokenStore::open(
                    file,
                    Arc::new(KeyringSecretStore::new()),
                    Arc::new(SystemClock),
                )
            })
            .await??
        };
        let tokens = Arc::new(tokens);
        let calendar = {
            let (settings, paths) = (settings.get(), paths.clone());
            // Indexing the vault reads every note.
            tokio::task::spawn_blocking(move || Calendar::open(&settings, &paths)).await??
        };
        let background = vec![
            spawn_last_used_writer(&tokens, DEFAULT_DEBOUNCE),
            tokio::spawn(calendar_follows_settings(
                settings.subscribe(),
                calendar.clone(),
            )),
        ];

        let config = daemon_config(&paths, &settings.get());
        let (reminders, reminders_problem) = match almanac_reminders::Daemon::start(
            config,
            hooks.notifier,
            Arc::new(SystemOpener),
            None,
        )
        .await
        {
            Ok(handle) => (Some(handle), None),
            Err(error) => {
                tracing::error!("reminder daemon not started: {error}");
                (None, Some(error.to_string()))
            }
        };

        Ok(Services {
            paths,
            settings,
            tokens,
            calendar,
            reminders: RwLock::new(reminders),
            reminders_problem,
            background,
        })
    }

    /// The running reminder daemon, if it runs. Hold the guard only briefly.
    pub async fn reminders(&self) -> tokio::sync::RwLockReadGuard<'_, Option<DaemonHandle>> {
        self.reminders.read().await
    }

    /// Why the reminder daemon is not running, if it could not start.
    pub fn reminders_problem(&self) -> Option<&str> {
        self.reminders_problem.as_deref()
    }

    /// Stops the servers (their ports are closed when this returns) and
    /// writes what is still only in memory. Safe to call twice.
    pub async fn shutdown(&self) {
        if let Some(daemon) = self.reminders.write().await.take() {
            daemon.shutdown().await;
        }
        for task in &self.background {
            task.abort();
        }
        let tokens = self.tokens.clone();
        let flushed = tokio::task::spawn_blocking(move || tokens.flush_last_used()).await;
        if let Ok(Err(error)) = flushed {
            tracing::warn!("could not save token last-used times: {error}");
        }
        tracing::info!("services stopped");
    }
}

/// Hands the calendar the settings it depends on whenever one of those
/// changes (a rescan is costly, so other changes are ignored).
async fn calendar_follows_settings(
    mut settings: tokio::sync::watch::Receiver<Arc<Settings>>,
    calendar: Calendar,
) {
    let relevant = |s: &Settings| {
        (
            s.vault_path.clone(),
            s.calendar_sources.clone(),
            s.display_timezone.clone(),
        )
    };
    let mut applied = relevant(&settings.borrow_and_update());
    while settings.changed().await.is_ok() {
        let current = settings.borrow_and_update().clone();
        if relevant(&current) == applied {
            continue;
        }
        applied = relevant(&current);
        let calendar = calendar.clone();
        match tokio::task::spawn_blocking(move || calendar.apply_settings(&current)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::error!("the calendar kept its old settings: {error}"),
            Err(error) => tracing::error!("applying settings to the calendar failed: {error}"),
        }
    }
}

/// The daemon's configuration from `settings.reminders`.
fn daemon_config(paths: &Paths, settings: &Settings) -> DaemonConfig {
    let reminders = &settings.reminders;
    let mut config = DaemonConfig::new(paths.reminders_db());
    config.port = reminders.daemon_port;
    config.grace_window = Duration::from_secs(u64::from(reminders.grace_window_hours) * 3600);
    config.allowed_schemes = reminders.allowed_schemes.clone();
    config.updates = UpdateConfig {
        enabled: reminders.check_updates,
        feed_url: reminders.update_feed_url.clone(),
        ..UpdateConfig::default()
    };
    config
}

/// Native notifications through the session bus's notification server, or
/// log lines when there is none (a headless server, say).
pub async fn system_notifier() -> Arc<dyn Notifier> {
    match DbusNotifier::connect().await {
        Ok(notifier) => Arc::new(notifier),
        Err(error) => {
            let reason = format!("no D-Bus notification server: {error}");
            tracing::warn!("{reason}; reminders are logged instead of shown");
            Arc::new(LogNotifier::new(reason))
        }
    }
}
