//! Tells the core when a reminder fires ([`Core::reminder_fired`]: the change
//! feed's entry, the user's reminder hook), around whichever notifier shows
//! it.

use std::sync::Arc;

use almanac_core::app::Core;
use almanac_core::reminder_fired::FiredReminder;
use almanac_reminders::{Notification, Notifier, NotifierInfo};

/// `inner`, reporting each reminder it is handed to `core` first.
pub struct Reporting {
    pub inner: Arc<dyn Notifier>,
    pub core: Arc<Core>,
}

impl Notifier for Reporting {
    fn notify(&self, notification: Notification) {
        if let Notification::Reminder { reminder, .. } = &notification {
            self.core.reminder_fired(FiredReminder {
                id: reminder.id.clone(),
                event_id: reminder.event.as_ref().map(|event| event.id.clone()),
                json: serde_json::to_value(reminder).unwrap_or_default(),
            });
        }
        self.inner.notify(notification);
    }

    fn info(&self) -> NotifierInfo {
        self.inner.info()
    }
}
