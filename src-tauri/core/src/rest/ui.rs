//! `/api/v1/ui/*`: open the calendar, open the sidebar, change the view.
//! Without windows (headless mode) these answer `503`.

use axum::Json;
use axum::Router;
use axum::routing::post;
use serde::Deserialize;
use utoipa::ToSchema;

use super::auth::{Authorized, UiChangeView, UiOpenCalendar, UiOpenSidebar};
use super::extract::JsonBody;
use super::fallback::method_not_allowed;
use super::{RestState, Success};
use crate::loopback_server::error::RestError;

/// The UI routes.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route(
            "/api/v1/ui/open-calendar",
            post(open_calendar).fallback(method_not_allowed),
        )
        .route(
            "/api/v1/ui/open-sidebar",
            post(open_sidebar).fallback(method_not_allowed),
        )
        .route(
            "/api/v1/ui/change-view",
            post(change_view).fallback(method_not_allowed),
        )
}

/// Focuses or opens the main calendar window.
#[utoipa::path(
    post, path = "/api/v1/ui/open-calendar", operation_id = "openCalendar", tag = "ui",
    responses(
        (status = 200, description = "Done", body = Success),
        (status = 503, description = "No windows (headless mode)", body = super::ErrorBody),
    ),
)]
pub async fn open_calendar(
    Authorized(api, ..): Authorized<UiOpenCalendar>,
) -> Result<Json<Success>, RestError> {
    api.open_calendar()?;
    Ok(Json(Success::new()))
}

/// Focuses or opens the calendar sidebar.
#[utoipa::path(
    post, path = "/api/v1/ui/open-sidebar", operation_id = "openSidebar", tag = "ui",
    responses(
        (status = 200, description = "Done", body = Success),
        (status = 503, description = "No windows (headless mode)", body = super::ErrorBody),
    ),
)]
pub async fn open_sidebar(
    Authorized(api, ..): Authorized<UiOpenSidebar>,
) -> Result<Json<Success>, RestError> {
    api.open_sidebar()?;
    Ok(Json(Success::new()))
}

/// `POST /ui/change-view`'s body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangeView {
    /// A FullCalendar view id.
    #[schema(example = "timeGridWeek")]
    view_name: String,
}

/// Switches the calendar window to another view.
#[utoipa::path(
    post, path = "/api/v1/ui/change-view", operation_id = "changeView", tag = "ui",
    request_body = ChangeView,
    responses(
        (status = 200, description = "Done", body = Success),
        (status = 400, description = "Missing or unknown `viewName`", body = super::ErrorBody),
        (status = 503, description = "No windows (headless mode)", body = super::ErrorBody),
    ),
)]
pub async fn change_view(
    Authorized(api, ..): Authorized<UiChangeView>,
    JsonBody(body): JsonBody<ChangeView>,
) -> Result<Json<Success>, RestError> {
    api.change_view(&body.view_name)?;
    Ok(Json(Success::new()))
}
