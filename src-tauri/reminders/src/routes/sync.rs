//! `POST /sync`: replace the host's reminder set.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;

use super::Shared;
use crate::error::ApiError;
use crate::schedule::SyncSummary;

#[derive(serde::Serialize)]
pub struct SyncAnswer {
    status: &'static str,
    #[serde(flatten)]
    summary: SyncSummary,
}

/// Answers only after the new set is on disk.
pub async fn sync(
    state: Shared,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SyncAnswer>, ApiError> {
    let body = super::body(body, state.engine.config().limits.max_sync_body_bytes)?;
    let summary = state.engine.sync(body).await?;
    Ok(Json(SyncAnswer {
        status: "ok",
        summary,
    }))
}
