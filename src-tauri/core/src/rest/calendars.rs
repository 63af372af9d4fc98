//! `/api/v1/calendars` and `/api/v1/providers/revalidate`: the configured
//! calendar sources, and refreshing the remote ones.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Authorized, ProvidersRead, ProvidersWrite};
use super::extract::JsonBody;
use super::fallback::method_not_allowed;
use super::{RestState, Success};
use crate::calendar::{SourceInfo, VaultStatus};
use crate::loopback_server::error::RestError;
use crate::publish::PublishedReport;

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
    /// The calendars kept in a CalDAV account's collection
    /// (`publishedCalendars`), each with its sync's state.
    published: Vec<PublishedReport>,
}

/// Lists the configured calendar sources.
///
/// Without `system:full-access`, the userinfo, path, query and fragment of feed URLs are shown as `***`.
#[utoipa::path(
    get, path = "/api/v1/calendars", operation_id = "listCalendars", tag = "calendars",
    responses((status = 200, description = "The calendar sources", body = CalendarList)),
)]
pub async fn list(
    State(state): State<RestState>,
    Authorized(api, ..): Authorized<ProvidersRead>,
) -> Result<Json<CalendarList>, RestError> {
    let published = match state.publishing {
        // Counting what waits reads the calendar's events: off the workers.
        Some(publishing) => tokio::task::spawn_blocking(move || publishing.publisher.reports())
            .await
            .unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(Json(CalendarList {
        success: true,
        calendars: api.get_sources()?,
        vault: api.get_vault_status()?,
        published,
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

/// Starts a background refetch of the remote (ICS) calendars and a pass of
/// every published calendar; returns at once.
#[utoipa::path(
    post, path = "/api/v1/providers/revalidate", operation_id = "revalidateProviders", tag = "calendars",
    request_body(content = Option<Revalidate>, description = "Optional"),
    responses(
        (status = 200, description = "Refetch started", body = Success),
        (status = 400, description = "Invalid body", body = super::ErrorBody),
    ),
)]
pub async fn revalidate(
    State(state): State<RestState>,
    Authorized(api, ..): Authorized<ProvidersWrite>,
    JsonBody(body): JsonBody<Revalidate>,
) -> Result<Json<Success>, RestError> {
    api.revalidate(body.force)?;
    if let Some(publishing) = &state.publishing {
        publishing.now.request();
    }
    Ok(Json(Success::new()))
}
