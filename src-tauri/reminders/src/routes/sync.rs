//! `POST /sync`: replace the host's reminder set.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio::sync::Semaphore;

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

/// `/sync` requests whose bodies are read and parsed at once. A body is held
/// whole in memory, so without this every connection the port serves could
/// hold one; later requests wait their turn (the store applies one set at a
/// time anyway).
pub const SYNCS_AT_ONCE: usize = 2;

/// Holds a `/sync` request until one of [`SYNCS_AT_ONCE`] turns is free,
/// before its body is read.
pub async fn in_turn(
    State(turns): State<Arc<Semaphore>>,
    request: Request,
    next: Next,
) -> Response {
    // The semaphore lives as long as the router and is never closed.
    let _turn = turns.acquire().await;
    next.run(request).await
}
