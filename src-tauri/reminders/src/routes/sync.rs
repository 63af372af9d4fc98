//! `POST /sync`: replace the host's reminder set.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;

use super::Shared;
use crate::engine::blocking;
use crate::error::HttpError;
use crate::payload;
use crate::reminder::Rules;
use crate::schedule::SyncSummary;

#[derive(serde::Serialize)]
pub struct SyncAnswer {
    status: &'static str,
    #[serde(flatten)]
    summary: SyncSummary,
}

/// Validates the whole body first (off the async threads: a large payload
/// takes milliseconds); answers only after the new set is on disk.
pub async fn sync(
    state: Shared,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SyncAnswer>, HttpError> {
    let config = state.engine.config();
    let body = super::body(body, config.limits.max_sync_body_bytes)?;
    let reminders = blocking(move || payload::parse_sync(&body, &Rules::of(&config))).await?;
    let summary = state.engine.sync(reminders).await?;
    Ok(Json(SyncAnswer {
        status: "ok",
        summary,
    }))
}
