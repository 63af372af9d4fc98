//! Forwards changes in the core to the windows (as Tauri events) and to the
//! tray menu: one subscription to the application event bus
//! ([`almanac_core::events`]) and one match. The REST server's status is not
//! a change of the app's state but the server's report on itself, so it
//! arrives on the server's own watch channel. Nothing polls.

use std::sync::Arc;

use almanac_core::app::Core;
use almanac_core::events::{AppEvent, Delivery};
use almanac_core::rest::ServerState;
use tauri::{AppHandle, Emitter};

use super::commands::RestStatus;
use super::tray::Tray;
use crate::wiring::Services;

/// Payload: the whole settings object.
pub const SETTINGS_CHANGED: &str = "settings-changed";
/// Payload: [`RestStatus`], what the REST server is doing.
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

/// Starts forwarding; it ends when the app's services go away.
pub fn spawn(app: &AppHandle, services: &Arc<Services>, tray: Tray) {
    spawn_rest_state(app, services, tray.clone());

    // Subscribe before reading the current state, so no change falls between.
    let mut events = services.core.events.subscribe();
    let services = services.clone();
    tray.show_vault_status(&services.core.calendar.vault_status());
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        show_next_reminder(&tray, &services).await;
        while let Some(delivery) = events.recv().await {
            match delivery {
                Delivery::Event(event) => forward(&app, &tray, &services, event).await,
                Delivery::Resync { missed } => {
                    tracing::debug!(missed, "bridge fell behind the event bus; resyncing");
                    for event in current_state(&services.core) {
                        forward(&app, &tray, &services, event).await;
                    }
                }
            }
        }
    });
}

async fn forward(app: &AppHandle, tray: &Tray, services: &Services, event: AppEvent) {
    let core = &services.core;
    let emitted = match event {
        AppEvent::SettingsChanged(settings) => {
            tray.show_rest_enabled(settings.rest_server_enabled);
            // The next reminder's time is shown in the display zone.
            show_next_reminder(tray, services).await;
            app.emit(SETTINGS_CHANGED, &*settings)
        }
        AppEvent::CalendarChanged { .. } => {
            tray.show_vault_status(&core.calendar.vault_status());
            app.emit(CALENDAR_CHANGED, ())
        }
        AppEvent::TokensChanged => app.emit(TOKENS_CHANGED, ()),
        AppEvent::RemindersChanged => {
            show_next_reminder(tray, services).await;
            app.emit(REMINDERS_CHANGED, ())
        }
    };
    if let Err(error) = emitted {
        tracing::warn!("could not tell the windows about a change: {error}");
    }
}

/// The tray's next-reminder line, from the daemon's schedule (none while the
/// daemon is not running).
async fn show_next_reminder(tray: &Tray, services: &Services) {
    let next = match services.reminders().await.as_ref() {
        Some(daemon) => daemon.upcoming(1).pop().map(|scheduled| scheduled.reminder),
        None => None,
    };
    let zone = services
        .core
        .settings
        .get()
        .display_timezone
        .parse()
        .unwrap_or(chrono_tz::Tz::UTC);
    tray.show_next_reminder(next.as_ref(), zone);
}

/// After falling behind: every change, stated as it is now, so the windows
/// and the tray refetch whatever they show.
fn current_state(core: &Core) -> [AppEvent; 4] {
    [
        AppEvent::SettingsChanged(core.settings.get()),
        AppEvent::CalendarChanged {
            generation: *core.calendar.subscribe().borrow(),
        },
        AppEvent::TokensChanged,
        AppEvent::RemindersChanged,
    ]
}

/// The REST server's status, in the tray and the settings window.
fn spawn_rest_state(app: &AppHandle, services: &Services, tray: Tray) {
    let mut rest = services.rest_state();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            let state = rest.borrow_and_update().clone();
            tray.show_rest_status(&match &state {
                ServerState::Disabled => "off".to_string(),
                ServerState::Listening(addr) => format!("listening on {addr}"),
                ServerState::Failed(error) => error.clone(),
            });
            let _ = app.emit(REST_STATE, RestStatus::from(&state));
            if rest.changed().await.is_err() {
                break;
            }
        }
    });
}
