//! Forwards changes in the core to the windows (as Tauri events) and to the
//! tray menu. Each forwarder awaits a watch channel: nothing polls.

use std::sync::Arc;

use tauri::{AppHandle, Emitter};

use super::commands::RestView;
use super::tray::Tray;
use crate::wiring::Services;
use almanac_core::rest::ServerState;

/// Payload: the whole settings object.
pub const SETTINGS_CHANGED: &str = "settings-changed";
/// Payload: [`RestView`], what the REST server is doing.
pub const REST_STATE: &str = "rest-state";
/// No payload: calendar windows refetch their events, the settings window
/// the vault's status.
pub const CALENDAR_CHANGED: &str = "calendar-changed";
/// No payload: the Reminders window refetches.
pub const REMINDERS_CHANGED: &str = "reminders-changed";
/// No payload: the settings window refetches the token list.
pub const TOKENS_CHANGED: &str = "tokens-changed";
/// No payload (never the secret itself): the settings window takes the
/// secret of a token allowed in a consent dialog with `granted_secret_take`.
pub const SECRET_GRANTED: &str = "secret-granted";

/// Starts the forwarders; they end when the app's services go away.
pub async fn spawn(app: &AppHandle, services: &Arc<Services>, tray: Tray) {
    if let Some(daemon) = services.reminders().await.as_ref() {
        let mut reminders = daemon.subscribe();
        let reminders_app = app.clone();
        tauri::async_runtime::spawn(async move {
            while reminders.changed().await.is_ok() {
                reminders.borrow_and_update();
                let _ = reminders_app.emit(REMINDERS_CHANGED, ());
            }
        });
    }

    let mut calendar = services.core.calendar.subscribe();
    let engine = services.core.calendar.clone();
    let (calendar_app, calendar_tray) = (app.clone(), tray.clone());
    tauri::async_runtime::spawn(async move {
        loop {
            calendar.borrow_and_update();
            calendar_tray.show_vault_status(&engine.vault_status());
            if calendar.changed().await.is_err() {
                break;
            }
            let _ = calendar_app.emit(CALENDAR_CHANGED, ());
        }
    });

    let mut rest = services.rest_state();
    let (rest_app, rest_tray) = (app.clone(), tray.clone());
    tauri::async_runtime::spawn(async move {
        loop {
            let state = rest.borrow_and_update().clone();
            rest_tray.show_rest_status(&match &state {
                ServerState::Disabled => "off".to_string(),
                ServerState::Listening(addr) => format!("listening on {addr}"),
                ServerState::Failed(error) => error.clone(),
            });
            let _ = rest_app.emit(REST_STATE, RestView::from(&state));
            if rest.changed().await.is_err() {
                break;
            }
        }
    });

    let mut settings = services.core.settings.subscribe();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        while settings.changed().await.is_ok() {
            let current = settings.borrow_and_update().clone();
            tray.show_rest_enabled(current.rest_server_enabled);
            if let Err(error) = app.emit(SETTINGS_CHANGED, &*current) {
                tracing::warn!("could not tell the windows about new settings: {error}");
            }
        }
    });
}
