//! Showing notifications, and what the user can do with them.
//!
//! The daemon hands every notification to a [`Notifier`]. This crate
//! provides a D-Bus one (`org.freedesktop.Notifications`, with Open and
//! Snooze actions where the server supports actions) and a log-only one for
//! machines without a session bus; the desktop shell may plug in its own.
//! A reminder notification carries [`ReminderActions`], through which the
//! notifier reports activation (open the `action_url`) or a snooze.

mod dbus;
mod log;

use std::sync::{Arc, Weak};

use serde::Serialize;

pub use self::dbus::DbusNotifier;
pub use self::log::LogNotifier;
use crate::engine::{ActionError, Engine};
use crate::history::Origin;
use crate::reminder::Reminder;

/// Native notifications through the session bus's notification server, or
/// log lines when there is none (a headless server, say). The desktop shell
/// and the standalone daemon both start with this.
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

/// Shows notifications. `notify` must return quickly: implementations queue
/// the work, they do not wait for the notification server.
pub trait Notifier: Send + Sync + 'static {
    fn notify(&self, notification: Notification);
    /// What the notification server can do, for `/doctor`.
    fn info(&self) -> NotifierInfo;
}

/// Something to show.
#[derive(Debug)]
pub enum Notification {
    /// One reminder, on time.
    Reminder {
        reminder: Reminder,
        origin: Origin,
        /// Boxed: it holds a second copy of the reminder.
        actions: Box<ReminderActions>,
    },
    /// Reminders missed while the app was closed (or the machine asleep),
    /// shown together once. Newest first.
    MissedSummary { missed: Vec<Reminder> },
}

/// What the user can do with a shown reminder. Holds the daemon weakly: a
/// click on a notification after shutdown does nothing.
#[derive(Debug, Clone)]
pub struct ReminderActions {
    engine: Weak<Engine>,
    reminder: Reminder,
}

impl ReminderActions {
    pub(crate) fn new(engine: Weak<Engine>, reminder: Reminder) -> Self {
        Self { engine, reminder }
    }

    pub fn reminder(&self) -> &Reminder {
        &self.reminder
    }

    /// Opens the reminder's `action_url` through the daemon's opener.
    pub fn open(&self) -> Result<(), ActionError> {
        let engine = self.engine.upgrade().ok_or(ActionError::Stopped)?;
        engine.open_url(&self.reminder.action_url)
    }

    /// Snoozes the reminder for `minutes` (durable before it returns).
    pub async fn snooze(&self, minutes: i64) -> Result<Reminder, ActionError> {
        let engine = self.engine.upgrade().ok_or(ActionError::Stopped)?;
        engine.snooze_reminder(&self.reminder, minutes).await
    }
}

/// The notification backend as `/doctor` reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NotifierInfo {
    /// `dbus`, `log`, or the shell's own name.
    pub backend: String,
    pub server_name: Option<String>,
    pub server_vendor: Option<String>,
    pub server_version: Option<String>,
    pub spec_version: Option<String>,
    pub capabilities: Vec<String>,
    /// Whether notifications can carry Open / Snooze buttons.
    pub actions_supported: bool,
    /// Why notifications are degraded, if they are.
    pub problem: Option<String>,
}

/// The text of a missed-reminders summary, shared by the implementations.
pub fn summary_text(missed: &[Reminder]) -> (String, String) {
    const SHOWN: usize = 8;
    let title = match missed.len() {
        1 => "Missed reminder".to_string(),
        n => format!("{n} missed reminders"),
    };
    let mut body: Vec<String> = missed
        .iter()
        .take(SHOWN)
        .map(|r| {
            format!(
                "• {} ({})",
                r.title,
                crate::clock::rfc3339(r.trigger_at_epoch)
            )
        })
        .collect();
    if missed.len() > SHOWN {
        body.push(format!("… and {} more", missed.len() - SHOWN));
    }
    (title, body.join("\n"))
}
