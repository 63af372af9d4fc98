//! How the desktop app shows reminder notifications on each OS.
//!
//! - Linux (and the BSDs): the reminders crate's own D-Bus client of the
//!   desktop's notification server, with Open and Snooze buttons where the
//!   server has actions.
//! - macOS and Windows: Tauri's notification plugin (Notification Center, a
//!   toast). It shows title and body without buttons; the Reminders window
//!   offers Open and Snooze there, as it does on servers without actions.

use std::sync::Arc;

use almanac_reminders::Notifier;
use tauri::AppHandle;

/// Registers what [`for_desktop`] needs with the app builder.
pub fn register(builder: tauri::Builder<tauri::Wry>) -> tauri::Builder<tauri::Wry> {
    #[cfg(any(target_os = "macos", target_os = "windows"))]
    let builder = builder.plugin(tauri_plugin_notification::init());
    builder
}

/// The notifier for reminders shown by `app`.
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub async fn for_desktop(_app: &AppHandle) -> Arc<dyn Notifier> {
    crate::wiring::system_notifier().await
}

#[cfg(any(target_os = "macos", target_os = "windows"))]
pub async fn for_desktop(app: &AppHandle) -> Arc<dyn Notifier> {
    Arc::new(plugin::PluginNotifier(app.clone()))
}

#[cfg(any(target_os = "macos", target_os = "windows"))]
mod plugin {
    use almanac_reminders::{Notification, Notifier, NotifierInfo, summary_text};
    use tauri::AppHandle;
    use tauri_plugin_notification::NotificationExt;

    pub struct PluginNotifier(pub AppHandle);

    impl Notifier for PluginNotifier {
        fn notify(&self, notification: Notification) {
            let (title, body) = match notification {
                Notification::Reminder { reminder, .. } => (reminder.title, reminder.body),
                Notification::MissedSummary { missed } => summary_text(&missed),
            };
            let shown = self
                .0
                .notification()
                .builder()
                .title(title)
                .body(body)
                .show();
            if let Err(error) = shown {
                tracing::warn!("could not show a reminder notification: {error}");
            }
        }

        fn info(&self) -> NotifierInfo {
            NotifierInfo {
                backend: "tauri-plugin-notification".into(),
                ..NotifierInfo::default()
            }
        }
    }
}
