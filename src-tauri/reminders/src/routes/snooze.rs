//! `POST /snooze`: show a reminder again `minutes` from now.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;

use super::Shared;
use crate::clock;
use crate::error::HttpError;
use crate::payload;
use crate::reminder::Rules;

#[derive(serde::Serialize)]
pub struct SnoozeAnswer {
    status: &'static str,
    id: String,
    trigger_at_epoch: i64,
    trigger_at_rfc3339: String,
}

/// Answers only after the snoozed reminder is on disk.
pub async fn snooze(
    state: Shared,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SnoozeAnswer>, HttpError> {
    let config = state.engine.config();
    let body = super::body(body, config.limits.max_snooze_body_bytes)?;
    let request = payload::parse_snooze(&body, &Rules::of(&config))?;
    let snoozed = state.engine.snooze(request).await?;
    Ok(Json(SnoozeAnswer {
        status: "ok",
        trigger_at_rfc3339: clock::rfc3339(snoozed.trigger_at_epoch),
        trigger_at_epoch: snoozed.trigger_at_epoch,
        id: snoozed.id,
    }))
}
