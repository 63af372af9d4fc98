//! `almanac --request-access`: a script asks the running app for a token.
//! The core's `request_access` asks the user through the consent dialog; an
//! allowed token's secret is kept here, in memory only, until the settings
//! window takes it (once) to show it to the user.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use almanac_core::api::AccessRequest;
use almanac_core::tokens::Secret;
use tauri::{AppHandle, Emitter, Manager};

use super::bridge::SECRET_GRANTED;
use super::windows;
use crate::cli::WindowKind;
use crate::wiring::Services;

/// A token the user allowed, its secret not yet shown.
pub struct GrantedSecret {
    pub name: String,
    pub secret: Secret,
}

/// Secrets waiting for the settings window, oldest first. Taking one
/// forgets it: each is handed out exactly once.
#[derive(Default)]
pub struct GrantedSecrets(Mutex<VecDeque<GrantedSecret>>);

impl GrantedSecrets {
    pub fn take(&self) -> Option<GrantedSecret> {
        self.lock().pop_front()
    }

    fn push(&self, granted: GrantedSecret) {
        self.lock().push_back(granted);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<GrantedSecret>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Asks the user for the token `request` describes, without waiting: the
/// dialog may stay open for minutes. If allowed, the settings window opens
/// and shows the secret.
pub fn request(app: &AppHandle, request: AccessRequest) {
    let Some(services) = app.try_state::<Arc<Services>>() else {
        tracing::error!("access request ignored: the app is still starting");
        return;
    };
    let plugin = services.core.plugin().clone();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let name = request.name.clone();
        // Blocks until the user answers; the consent dialog must not wait on
        // a runtime worker (nor on the GUI thread).
        let asked = tauri::async_runtime::spawn_blocking(move || {
            plugin.request_access(&request.name, &request.reason, request.scopes)
        })
        .await;
        let secret = match asked {
            Ok(Some(secret)) => secret,
            // Declined or refused: the core logged why; nothing was created.
            Ok(None) => return,
            Err(error) => {
                tracing::error!("access request failed: {error}");
                return;
            }
        };
        // The token store announced the new token (the bridge tells the
        // windows); its secret waits here for the settings window.
        app.state::<GrantedSecrets>()
            .push(GrantedSecret { name, secret });
        if let Err(error) = windows::show(&app, WindowKind::Settings) {
            tracing::error!("could not open Settings to show the new token: {error}");
        }
        // An already open settings window takes the secret now.
        let _ = app.emit(SECRET_GRANTED, ());
    });
}
