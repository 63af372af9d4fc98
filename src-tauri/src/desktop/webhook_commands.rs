//! The Tauri commands behind Settings › API & Security › Webhooks: the
//! settings window is the only way to set a hook (no token can), and the
//! core's `webhooks` decides everything.

use std::sync::Arc;

use almanac_core::webhooks::{Delivery, Hook, NewHook, Webhooks};
use serde::Serialize;
use tauri::State;
use uuid::Uuid;

use crate::wiring::Services;

/// Every hook (never a secret).
#[tauri::command]
pub fn webhooks_list(services: State<'_, Arc<Services>>) -> Result<Vec<Hook>, String> {
    services.core.webhooks.hooks().map_err(|e| e.to_string())
}

/// A hook just made: the only answer that carries its signing secret.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MadeHook {
    hook: Hook,
    secret: String,
}

/// Adds a hook to `url` for the entry types `events`.
#[tauri::command]
pub async fn webhook_create(
    services: State<'_, Arc<Services>>,
    url: String,
    events: Vec<String>,
) -> Result<MadeHook, String> {
    let made = blocking(&services, move |webhooks| {
        webhooks.create(NewHook { url, events })
    })
    .await?;
    Ok(MadeHook {
        secret: made.secret.expose().to_string(),
        hook: made.hook,
    })
}

/// Turns hook `id` on or off.
#[tauri::command]
pub fn webhook_set_enabled(
    services: State<'_, Arc<Services>>,
    id: Uuid,
    enabled: bool,
) -> Result<Hook, String> {
    services
        .core
        .webhooks
        .set_enabled(id, enabled)
        .map_err(|e| e.to_string())
}

/// Deletes hook `id` and its secret.
#[tauri::command]
pub async fn webhook_delete(services: State<'_, Arc<Services>>, id: Uuid) -> Result<(), String> {
    blocking(&services, move |webhooks| webhooks.delete(id)).await
}

/// Hook `id`'s last attempts, newest first.
#[tauri::command]
pub fn webhook_deliveries(
    services: State<'_, Arc<Services>>,
    id: Uuid,
) -> Result<Vec<Delivery>, String> {
    let mut log = services
        .core
        .webhooks
        .deliveries(id)
        .map_err(|e| e.to_string())?;
    log.reverse();
    Ok(log)
}

/// Runs keyring work off the async threads.
async fn blocking<T: Send + 'static, E: ToString + Send + 'static>(
    services: &Services,
    work: impl FnOnce(Webhooks) -> Result<T, E> + Send + 'static,
) -> Result<T, String> {
    let webhooks = services.core.webhooks.clone();
    tauri::async_runtime::spawn_blocking(move || work(webhooks))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}
