//! The notifier the desktop app gives the reminder daemon: the system one,
//! plus a nudge to the Reminders window, which lists fired reminders (the
//! activation path that works where notifications have no buttons).

use std::sync::Arc;

use almanac_reminders::{Notification, Notifier, NotifierInfo};
use tauri::{AppHandle, Emitter};

pub struct UiNotifier {
    system: Arc<dyn Notifier>,
    app: AppHandle,
}

impl UiNotifier {
    pub fn new(system: Arc<dyn Notifier>, app: AppHandle) -> Self {
        Self { system, app }
    }
}

impl Notifier for UiNotifier {
    fn notify(&self, notification: Notification) {
        self.system.notify(notification);
        let _ = self.app.emit(super::bridge::REMINDERS_CHANGED, ());
    }

    fn info(&self) -> NotifierInfo {
        self.system.info()
    }
}
