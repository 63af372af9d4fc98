//! The tray icon and its menu. The menu's "Enable REST Server" check item
//! mirrors the `restServerEnabled` setting (kept in step by the bridge) and a
//! disabled item under it says what the REST server is doing, errors included.
//! Another disabled item says whether the vault can be used, and if not, why,
//! and one names the next reminder and when it is due (in the settings'
//! `displayTimezone`), kept current by the bridge.
//!
//! On Linux the menu is exported over D-Bus (StatusNotifierItem +
//! `com.canonical.dbusmenu`) by libayatana-appindicator; a click arrives here
//! through the same [`on_menu_event`] path whatever the tray host.

use std::sync::Arc;

use almanac_core::calendar::VaultStatus;
use almanac_core::settings::class::Actor;
use almanac_reminders::Reminder;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Wry};

use super::windows;
use crate::cli::WindowKind;
use crate::wiring::Services;

const REST_TOGGLE: &str = "rest-enabled";
const REST_STATUS: &str = "rest-status";
const VAULT_STATUS: &str = "vault-status";
const NEXT_REMINDER: &str = "next-reminder";
const QUIT: &str = "quit";

/// The menu items whose state follows the services.
///
/// Updates are posted to the main thread and never waited for: a menu item
/// changed from another thread blocks that thread until the main thread has
/// done it, and a tokio worker blocked so would hold the tasks queued behind
/// it, shutdown's included, while the main thread waits for shutdown (seen:
/// a SIGTERM right after start not obeyed).
#[derive(Clone)]
pub struct Tray {
    app: AppHandle,
    rest_toggle: CheckMenuItem<Wry>,
    rest_status: MenuItem<Wry>,
    vault_status: MenuItem<Wry>,
    next_reminder: MenuItem<Wry>,
}

impl Tray {
    /// Shows the `restServerEnabled` setting.
    pub fn show_rest_enabled(&self, enabled: bool) {
        let item = self.rest_toggle.clone();
        self.on_main_thread(move || item.set_checked(enabled));
    }

    /// Shows what the REST server is doing, e.g. `listening on …` or the bind error.
    pub fn show_rest_status(&self, status: &str) {
        let (item, text) = (self.rest_status.clone(), format!("REST server: {status}"));
        self.on_main_thread(move || item.set_text(text));
    }

    /// Shows whether the vault can be used.
    pub fn show_vault_status(&self, status: &VaultStatus) {
        let (item, text) = (self.vault_status.clone(), vault_line(status));
        self.on_main_thread(move || item.set_text(text));
    }

    /// Shows the next pending reminder, or that there is none.
    pub fn show_next_reminder(&self, next: Option<&Reminder>, zone: Tz) {
        let (item, text) = (self.next_reminder.clone(), next_reminder_line(next, zone));
        self.on_main_thread(move || item.set_text(text));
    }

    /// Runs `update` on the main thread, without waiting for it.
    fn on_main_thread(&self, update: impl FnOnce() -> tauri::Result<()> + Send + 'static) {
        let posted = self.app.run_on_main_thread(move || {
            if let Err(error) = update() {
                tracing::warn!("could not update the tray menu: {error}");
            }
        });
        if let Err(error) = posted {
            tracing::warn!("could not update the tray menu: {error}");
        }
    }
}

/// The next reminder's line, e.g. `Next reminder: Call Ann — Mon 23 Nov 14:45`
/// (its title and trigger time in `zone`).
pub fn next_reminder_line(next: Option<&Reminder>, zone: Tz) -> String {
    let Some(reminder) = next else {
        return "Next reminder: none".to_string();
    };
    let when = DateTime::<Utc>::from_timestamp(reminder.trigger_at_epoch, 0)
        .map(|at| {
            at.with_timezone(&zone)
                .format("%a %-d %b %H:%M")
                .to_string()
        })
        .unwrap_or_default();
    format!("Next reminder: {} — {when}", reminder.title)
}

/// The vault's status line, e.g. `Vault: unavailable — I/O error on …`.
pub fn vault_line(status: &VaultStatus) -> String {
    match status {
        VaultStatus::Available => "Vault: ready".to_string(),
        VaultStatus::Unavailable { reason, .. } => format!("Vault: unavailable — {reason}"),
    }
}

/// Builds the tray icon and its menu.
pub fn build(app: &AppHandle, services: &Services) -> tauri::Result<Tray> {
    let enabled = services.core.settings.get().rest_server_enabled;
    let rest_toggle = CheckMenuItem::with_id(
        app,
        REST_TOGGLE,
        "Enable REST Server",
        true,
        enabled,
        None::<&str>,
    )?;
    let rest_status = MenuItem::with_id(app, REST_STATUS, "REST server: off", false, None::<&str>)?;
    let vault_status = MenuItem::with_id(
        app,
        VAULT_STATUS,
        vault_line(&services.core.calendar.vault_status()),
        false,
        None::<&str>,
    )?;
    let next_reminder = MenuItem::with_id(
        app,
        NEXT_REMINDER,
        next_reminder_line(None, Tz::UTC),
        false,
        None::<&str>,
    )?;
    let item = |kind: WindowKind, text: &str| {
        MenuItem::with_id(app, kind.name(), text, true, None::<&str>)
    };
    let menu = Menu::with_items(
        app,
        &[
            &rest_toggle,
            &rest_status,
            &vault_status,
            &next_reminder,
            &PredefinedMenuItem::separator(app)?,
            &item(WindowKind::Calendar, "Open Calendar")?,
            &item(WindowKind::Sidebar, "Open Sidebar")?,
            &item(WindowKind::Reminders, "Reminders")?,
            &item(WindowKind::Settings, "Settings…")?,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, QUIT, "Quit", true, None::<&str>)?,
        ],
    )?;
    TrayIconBuilder::with_id("almanac")
        .icon(
            app.default_window_icon()
                .cloned()
                .ok_or_else(|| tauri::Error::AssetNotFound("the app icon".into()))?,
        )
        .tooltip("Almanac")
        .menu(&menu)
        .on_menu_event(|app, event| on_menu_event(app, event.id().as_ref()))
        .build(app)?;
    Ok(Tray {
        app: app.clone(),
        rest_toggle,
        rest_status,
        vault_status,
        next_reminder,
    })
}

/// What a click on the menu item `id` does.
pub fn on_menu_event(app: &AppHandle, id: &str) {
    let outcome = match id {
        REST_TOGGLE => {
            toggle_rest(app);
            Ok(())
        }
        QUIT => {
            // Exit runs `Services::shutdown`, which closes both servers.
            app.exit(0);
            Ok(())
        }
        other => match WindowKind::from_name(other) {
            Some(kind) => windows::show(app, kind)
                .map(drop)
                .map_err(|e| e.to_string()),
            None => Ok(()),
        },
    };
    if let Err(error) = outcome {
        tracing::error!("tray menu `{id}`: {error}");
    }
}

/// Flips `restServerEnabled` through the same settings path as the API. The
/// REST manager and the check mark follow the setting, so a refused change
/// leaves both as they were.
fn toggle_rest(app: &AppHandle) {
    let core = app.state::<Arc<Services>>().core.clone();
    let tray = app.state::<Tray>().inner().clone();
    // Off the main thread: applying settings rescans the vault.
    tauri::async_runtime::spawn_blocking(move || {
        let enabled = core.settings.get().rest_server_enabled;
        let patch = serde_json::json!({ "restServerEnabled": !enabled });
        if let Err(error) = core.plugin().update_settings(Actor::User, &patch) {
            tracing::error!("tray: could not switch the REST server: {error}");
            // GTK already flipped the check mark; put it back.
            tray.show_rest_enabled(enabled);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vault_line_says_why_the_vault_cannot_be_used() {
        assert_eq!(vault_line(&VaultStatus::Available), "Vault: ready");
        let line = vault_line(&VaultStatus::Unavailable {
            reason: "I/O error on /notes: this is a file, not a folder".into(),
            since: "2026-01-01T00:00:00+00:00".into(),
        });
        assert_eq!(
            line,
            "Vault: unavailable — I/O error on /notes: this is a file, not a folder"
        );
    }

    #[test]
    fn the_next_reminder_line_shows_its_title_and_time_in_the_display_zone() {
        assert_eq!(next_reminder_line(None, Tz::UTC), "Next reminder: none");
        // As stored (fields added later, such as a source, have defaults).
        let reminder: Reminder = serde_json::from_value(serde_json::json!({
            "id": "r1", "title": "Call Ann", "body": "", "action_url": "",
            // 2026-11-23T13:45:00Z: 14:45 in Berlin (UTC+1 in winter).
            "trigger_at_epoch": 1_795_441_500,
        }))
        .unwrap();
        assert_eq!(
            next_reminder_line(Some(&reminder), Tz::Europe__Berlin),
            "Next reminder: Call Ann — Mon 23 Nov 14:45"
        );
        assert_eq!(
            next_reminder_line(Some(&reminder), Tz::UTC),
            "Next reminder: Call Ann — Mon 23 Nov 13:45"
        );
    }
}
