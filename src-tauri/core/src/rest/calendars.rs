//! `/api/v1/calendars` and `/api/v1/providers/revalidate`: the configured
//! calendar sources, and refreshing the remote ones.

use axum::Json;
use axum::Router;
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Authorized, ProvidersRead, ProvidersWrite};
use super::error::RestError;
use super::extract::JsonBody;
use super::fallback::method_not_allowed;
use super::{RestState, Success};
use crate::calendar::{SourceInfo, VaultStatus};

/// The calendar and provider routes.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/api/v1/calendars", get(list).fallback(method_not_allowed))
        .route(
            "/api/v1/providers/revalidate",
            post(revalidate).fallback(method_not_allowed),
        )
}

/// `GET /calendars`'s answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct CalendarList {
    success: bool,
    /// The configured sources, in settings order.
    calendars: Vec<SourceInfo>,
    /// Whether the vault can be used. While it is `unavailable`, note
    /// calendars list no events and writes to them answer 503.
    vault: VaultStatus,
}

/// Lists the configured calendar sources.
///
/// Without `system:full-access`, the userinfo, path, query and fragment of feed URLs are shown as `***`.
#[utoipa::path(
    get, path = "/api/v1/calendars", operation_id = "listCalendars", tag = "calendars",
    responses((status = 200, description = "The calendar sources", body = CalendarList)),
)]
pub async fn list(
    Authorized(api, ..): Authorized<ProvidersRead>,
) -> Result<Json<CalendarList>, RestError> {
    Ok(Json(CalendarList {
        success: true,
        calendars: api.get_sources()?,
        vault: api.get_vault_status()?,
    }))
}

/// `POST /providers/revalidate`'s (optional) body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Revalidate {
    /// Refetch even feeds fetched within the minimum interval.
    #[serde(default)]
    force: bool,
}

/// Starts a background refetch of the remote (ICS) calendars; returns at once.
#[utoipa::path(
    post, path = "/api/v1/providers/revalidate", operation_id = "revalidateProviders", tag = "calendars",
    request_body(content = Option<Revalidate>, description = "Optional"),
    responses(
        (status = 200, description = "Refetch started", body = Success),
        (status = 400, description = "Invalid body", body = super::ErrorBody),
    ),
)]
pub async fn revalidate(
    Authorized(api, ..): Authorized<ProvidersWrite>,
    JsonBody(body): JsonBody<Revalidate>,
) -> Result<Json<Success>, RestError> {
    api.revalidate(body.force)?;
    Ok(Json(Success::new()))
}
