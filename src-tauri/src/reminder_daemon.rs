//! The reminder daemon as `settings.reminders` wants it: started with the
//! services, then reconfigured on every change of those settings (port,
//! schemes, grace window, update checks), so none needs a restart. A daemon
//! that could not start (its port was taken) is started again by the next
//! change. What went wrong last is kept for the Reminders window.
//!
//! The reminders derived from the vault are pushed to it as they change, and
//! again to each daemon that starts ([`VaultFeed`]).
//!
//! Each daemon's changes (a reminder fired, snoozed, dismissed or synced) are
//! forwarded onto the app's event bus as [`AppEvent::RemindersChanged`]: the
//! reminders crate knows nothing of the core, and this is the one place that
//! knows both.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use almanac_core::events::{AppEvent, EventBus};
use almanac_core::paths::Paths;
use almanac_core::settings::{ReminderSettings, Settings};
use almanac_core::vault_reminders::VaultReminders;
use almanac_reminders::{
    Daemon, DaemonConfig, DaemonHandle, DiagnosticsProvider, Notifier, SystemOpener, UpdateConfig,
};
use tokio::sync::{RwLock, RwLockReadGuard, watch};
use tokio::task::JoinHandle;

use crate::vault_feed::VaultFeed;

pub struct ReminderDaemon {
    /// `None` when it could not start, or once shut down.
    handle: RwLock<Option<DaemonHandle>>,
    /// Why the daemon does not run, or runs on another port than configured.
    problem: Mutex<Option<String>>,
    /// Apply settings changes and push vault reminder sets; stopped first
    /// on shutdown.
    followers: Mutex<Vec<JoinHandle<()>>>,
    /// The reminders derived from the vault.
    vault: VaultFeed,
    /// Where the running daemon's changes are announced.
    events: EventBus,
    /// The app's part of `/doctor`.
    diagnostics: DiagnosticsProvider,
}

impl ReminderDaemon {
    /// Starts the daemon as `settings` say, and follows their changes and
    /// the `vault` reminder sets.
    pub async fn start(
        paths: Paths,
        mut settings: watch::Receiver<Arc<Settings>>,
        vault: watch::Receiver<Arc<VaultReminders>>,
        notifier: Arc<dyn Notifier>,
        events: EventBus,
        diagnostics: DiagnosticsProvider,
    ) -> Arc<Self> {
        let daemon = Arc::new(Self {
            handle: RwLock::new(None),
            problem: Mutex::new(None),
            followers: Mutex::new(Vec::new()),
            vault: VaultFeed::new(vault),
            events,
            diagnostics,
        });
        // Marked seen before the first push (in `apply`), so a set
        // published after it wakes the follower below.
        let mut vault_sets = daemon.vault.subscribe();
        vault_sets.borrow_and_update();
        // Marked seen here, before the daemon's port opens: a change made
        // once it is open (a client may be quick) wakes the follower below.
        let started_with = settings.borrow_and_update().clone();
        daemon
            .apply(daemon_config(&paths, &started_with), &notifier)
            .await;
        let follower = tokio::spawn(follow(
            Arc::downgrade(&daemon),
            paths,
            settings,
            started_with.reminders.clone(),
            notifier,
        ));
        let vault_follower = tokio::spawn(follow_vault(Arc::downgrade(&daemon), vault_sets));
        *daemon.followers.lock().expect("follower lock") = vec![follower, vault_follower];
        daemon
    }

    /// The running daemon, if it runs. Hold the guard only briefly.
    pub async fn handle(&self) -> RwLockReadGuard<'_, Option<DaemonHandle>> {
        self.handle.read().await
    }

    /// Why the daemon is not running, or not on the configured port.
    pub fn problem(&self) -> Option<String> {
        self.problem.lock().expect("problem lock").clone()
    }

    /// Stops following the settings, then stops the daemon.
    pub async fn shutdown(&self) {
        let followers = std::mem::take(&mut *self.followers.lock().expect("follower lock"));
        for follower in followers {
            follower.abort();
            let _ = follower.await;
        }
        tracing::debug!("reminder daemon: settings no longer followed");
        if let Some(daemon) = self.handle.write().await.take() {
            daemon.shutdown().await;
        }
    }

    /// Reconfigures the running daemon, or starts it if it does not run.
    async fn apply(&self, config: DaemonConfig, notifier: &Arc<dyn Notifier>) {
        let mut handle = self.handle.write().await;
        let problem = match handle.as_ref() {
            Some(running) => running
                .reconfigure(config)
                .await
                .err()
                .map(|e| e.to_string()),
            None => {
                let started = Daemon::start(
                    config,
                    notifier.clone(),
                    Arc::new(SystemOpener),
                    Some(self.diagnostics.clone()),
                )
                .await;
                match started {
                    Ok(started) => {
                        announce_changes(&started, self.events.clone());
                        self.vault.push(&started).await;
                        *handle = Some(started);
                        None
                    }
                    Err(error) => Some(error.to_string()),
                }
            }
        };
        if let Some(problem) = &problem {
            tracing::error!("reminder daemon: {problem}");
        }
        *self.problem.lock().expect("problem lock") = problem;
    }
}

/// Applies each change of `settings.reminders` (other settings are not the
/// daemon's business) from `applied`, what the daemon was started with, until
/// the settings store or the daemon goes away.
async fn follow(
    daemon: Weak<ReminderDaemon>,
    paths: Paths,
    mut settings: watch::Receiver<Arc<Settings>>,
    mut applied: ReminderSettings,
    notifier: Arc<dyn Notifier>,
) {
    while settings.changed().await.is_ok() {
        let current = settings.borrow_and_update().clone();
        if current.reminders == applied {
            continue;
        }
        applied = current.reminders.clone();
        let Some(daemon) = daemon.upgrade() else {
            return;
        };
        daemon
            .apply(daemon_config(&paths, &current), &notifier)
            .await;
    }
}

/// Pushes each new vault reminder set to the running daemon, until the
/// core's channel or the daemon goes away. (A daemon that is not running
/// gets the current set when it starts.)
async fn follow_vault(
    daemon: Weak<ReminderDaemon>,
    mut sets: watch::Receiver<Arc<VaultReminders>>,
) {
    while sets.changed().await.is_ok() {
        sets.borrow_and_update();
        let Some(daemon) = daemon.upgrade() else {
            return;
        };
        if let Some(running) = daemon.handle.read().await.as_ref() {
            daemon.vault.push(running).await;
        }
    }
}

/// Publishes each change of `daemon`'s reminders until the daemon stops.
fn announce_changes(daemon: &DaemonHandle, events: EventBus) {
    let mut changes = daemon.subscribe();
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            changes.borrow_and_update();
            events.publish(AppEvent::RemindersChanged);
        }
    });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Almanac's default settings must start the daemon exactly as the
    /// daemon's own defaults would (both come from `almanac_loopback::defaults`;
    /// this also covers the conversion in between).
    #[test]
    fn default_settings_make_the_default_daemon() {
        let paths = Paths::new("/config", "/data");
        let from_settings = daemon_config(&paths, &Settings::default());
        let own = DaemonConfig::new(paths.reminders_db());
        assert_eq!(from_settings.port, own.port);
        assert_eq!(from_settings.grace_window, own.grace_window);
        assert_eq!(from_settings.allowed_schemes, own.allowed_schemes);
        assert_eq!(from_settings.allowed_origins, own.allowed_origins);
        assert_eq!(from_settings.updates, own.updates);
        assert_eq!(from_settings.limits, own.limits);
        assert_eq!(from_settings.db_path, own.db_path);
        assert_eq!(own.port, almanac_loopback::defaults::REMINDER_PORT);
    }
}
