//! `/api/v1/history`: the changes made to the vault, newest first, and
//! undoing one, or everything a token did since a time
//! ([`crate::history`]).

use axum::extract::{FromRequestParts, Path, Query};
use axum::http::request::Parts;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::{Authorized, EventsWrite};
use super::extract::JsonBody;
use super::fallback::method_not_allowed;
use super::{RestState, blocking};
use crate::api::history::{ChangePage, UndoReport};
use crate::history::{Change, ChangeFilter};
use crate::loopback_server::error::RestError;

/// A page's size when `limit` is absent.
const DEFAULT_LIMIT: usize = 100;

/// The history routes.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/api/v1/history", get(list).fallback(method_not_allowed))
        .route(
            "/api/v1/history/undo",
            post(undo_all).fallback(method_not_allowed),
        )
        .route(
            "/api/v1/history/{id}/undo",
            post(undo).fallback(method_not_allowed),
        )
}

/// The query string of `GET /history`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryParams {
    /// Only the changes made with the token of this name.
    token: Option<String>,
    /// Only the changes made at or after this time: a date (in the display
    /// zone), a date-time (RFC 3339, or local to the display zone) or epoch
    /// milliseconds.
    since: Option<String>,
    /// Only the changes older than this id: `next` of the previous page.
    before: Option<u64>,
    /// The most changes in the answer, 1 to 500 (default 100).
    limit: Option<usize>,
}

impl<S: Send + Sync> FromRequestParts<S> for HistoryParams {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Query(params) = Query::<HistoryParams>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| RestError::bad_request("query string", rejection.body_text()))?;
        Ok(params)
    }
}

/// `GET /history`'s answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryList {
    success: bool,
    #[serde(flatten)]
    page: ChangePage,
}

/// The changes made to the vault, newest first: every file each wrote,
/// who made it (the window, a token by name, the command line) and when.
#[utoipa::path(
    get, path = "/api/v1/history", operation_id = "listChanges", tag = "history",
    params(HistoryParams),
    responses(
        (status = 200, description = "One page of changes, newest first", body = HistoryList),
        (status = 400, description = "A malformed `since` or `limit`", body = super::ErrorBody),
    ),
)]
pub async fn list(
    Authorized(api, ..): Authorized<EventsWrite>,
    params: HistoryParams,
) -> Result<Json<HistoryList>, RestError> {
    let since = params
        .since
        .as_deref()
        .map(|since| api.parse_since(since))
        .transpose()?;
    let filter = ChangeFilter {
        token: params.token,
        since,
        before: params.before,
    };
    let page = api.list_changes(&filter, params.limit.unwrap_or(DEFAULT_LIMIT))?;
    Ok(Json(HistoryList {
        success: true,
        page,
    }))
}

/// An undo's answer: the change the undo made (`undoes` names the one it
/// took back). Undoing it redoes.
#[derive(Debug, Serialize, ToSchema)]
pub struct Undone {
    success: bool,
    change: Change,
}

/// Undoes one change: every file it wrote back byte for byte (a deleted
/// note comes back with its body). Refused when a note changed since.
#[utoipa::path(
    post, path = "/api/v1/history/{id}/undo", operation_id = "undoChange", tag = "history",
    params(("id" = u64, Path, description = "The change's id (`GET /history`)")),
    responses(
        (status = 200, description = "Undone", body = Undone),
        (status = 404, description = "No such change in the history", body = super::ErrorBody),
        (status = 409, description = "A note changed since (the message names it), or the change was made in another vault", body = super::ErrorBody),
        (status = 503, description = "The vault is unavailable (see `GET /calendars`)", body = super::ErrorBody),
    ),
)]
pub async fn undo(
    Authorized(api, ..): Authorized<EventsWrite>,
    Path(id): Path<String>,
) -> Result<Json<Undone>, RestError> {
    let id: u64 = id.parse().map_err(|_| {
        RestError::bad_request("id", format!("`{id}` is not a change id (a number)"))
    })?;
    let change = blocking(move || api.undo_change(id)).await?;
    Ok(Json(Undone {
        success: true,
        change,
    }))
}

/// `POST /history/undo`'s body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoAll {
    /// The token's name whose changes are undone.
    token: String,
    /// Undo its changes made at or after this time (as `since` of
    /// `GET /history`).
    since: String,
}

/// `POST /history/undo`'s answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct UndoneAll {
    success: bool,
    #[serde(flatten)]
    report: UndoReport,
}

/// Undoes everything a token did since a time, newest first, stopping at
/// the first change that cannot be undone (`refused` says which and why;
/// the ones before it stay undone).
#[utoipa::path(
    post, path = "/api/v1/history/undo", operation_id = "undoChanges", tag = "history",
    request_body = UndoAll,
    responses(
        (status = 200, description = "What was undone, and where it stopped", body = UndoneAll),
        (status = 400, description = "Invalid body or `since`", body = super::ErrorBody),
    ),
)]
pub async fn undo_all(
    Authorized(api, ..): Authorized<EventsWrite>,
    JsonBody(body): JsonBody<UndoAll>,
) -> Result<Json<UndoneAll>, RestError> {
    let filter = ChangeFilter {
        token: Some(body.token),
        since: Some(api.parse_since(&body.since)?),
        before: None,
    };
    let report = blocking(move || api.undo_changes(&filter)).await?;
    Ok(Json(UndoneAll {
        success: true,
        report,
    }))
}
