//! The fallback when there is no notification server: reminders still fire
//! on time, are recorded in the history, and appear in the log.

use super::{Notification, Notifier, NotifierInfo, summary_text};

#[derive(Debug, Default, Clone)]
pub struct LogNotifier {
    /// Why the real backend is not in use (reported by `/doctor`).
    reason: Option<String>,
}

impl LogNotifier {
    pub fn new(reason: impl Into<Option<String>>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

impl Notifier for LogNotifier {
    fn notify(&self, notification: Notification) {
        match notification {
            Notification::Reminder { reminder, .. } => tracing::info!(
                id = %reminder.id,
                trigger_at_epoch = reminder.trigger_at_epoch,
                "reminder: {}",
                reminder.title
            ),
            Notification::MissedSummary { missed } => {
                let (title, body) = summary_text(&missed);
                tracing::info!("{title}\n{body}");
            }
        }
    }

    fn info(&self) -> NotifierInfo {
        NotifierInfo {
            backend: "log".into(),
            problem: self.reason.clone(),
            ..NotifierInfo::default()
        }
    }
}
