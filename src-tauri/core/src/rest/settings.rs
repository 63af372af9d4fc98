//! `/api/v1/settings`: read and update the settings.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::routing::get;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::auth::{Authorized, SettingsRead, SettingsWrite};
use super::extract::JsonBody;
use super::fallback::method_not_allowed;
use super::{RestState, blocking};
use crate::loopback_server::error::RestError;
use crate::settings::Settings;

/// The settings routes.
pub fn routes() -> Router<RestState> {
    Router::new().route(
        "/api/v1/settings",
        get(read).put(update).fallback(method_not_allowed),
    )
}

/// The settings, as read or as stored after an update.
#[derive(Debug, Serialize, ToSchema)]
pub struct SettingsAnswer {
    success: bool,
    #[schema(value_type = Settings)]
    settings: Arc<Settings>,
}

/// The current settings.
///
/// Without `system:full-access`, the userinfo, path, query and fragment of ICS feed URLs are shown as `***` (they carry the
/// secrets of private calendar links).
#[utoipa::path(
    get, path = "/api/v1/settings", operation_id = "getSettings", tag = "settings",
    responses((status = 200, description = "The settings", body = SettingsAnswer)),
)]
pub async fn read(
    Authorized(api, ..): Authorized<SettingsRead>,
) -> Result<Json<SettingsAnswer>, RestError> {
    Ok(Json(SettingsAnswer {
        success: true,
        settings: api.get_settings()?,
    }))
}

/// `PUT /settings`'s body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSettings {
    /// A partial settings object: the keys sent replace their values
    /// (`reminders` merges one level); unknown keys are refused.
    #[schema(value_type = Object)]
    settings: Map<String, Value>,
    /// Accepted for the spec's request shape; no settings option exists.
    #[schema(value_type = Option<Object>)]
    #[serde(default)]
    #[allow(dead_code)]
    options: Option<IgnoredAny>,
}

/// Updates and persists settings.
///
/// `settings:write` may change the display
/// settings (`initialView`, `firstDay`, `timeFormat24h`); changing any other key
/// (`displayTimezone`, which sets when vault reminders fire, `vaultPath`,
/// `calendarSources`, `restServerEnabled`, `localServerPort`, `reminders.*`)
/// needs `system:full-access`, and no token may set a source's
/// `allowPrivateNetwork`. A new `vaultPath` must be an existing folder that is
/// not `/`, the home folder or a system folder. Changing `restServerEnabled`
/// or `localServerPort` stops or moves this server right after the answer.
#[utoipa::path(
    put, path = "/api/v1/settings", operation_id = "updateSettings", tag = "settings",
    request_body = UpdateSettings,
    responses(
        (status = 200, description = "The settings as stored", body = SettingsAnswer),
        (status = 400, description = "Unknown key, wrong type or invalid value; nothing changed", body = super::ErrorBody),
    ),
)]
pub async fn update(
    Authorized(api, ..): Authorized<SettingsWrite>,
    JsonBody(body): JsonBody<UpdateSettings>,
) -> Result<Json<SettingsAnswer>, RestError> {
    let patch = Value::Object(body.settings);
    let settings = blocking(move || api.update_settings(&patch)).await?;
    Ok(Json(SettingsAnswer {
        success: true,
        settings,
    }))
}
