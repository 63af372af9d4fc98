//! `GET /updates`: the cached release-awareness state; never fetches.

use axum::Json;

use super::Shared;
use crate::updates::UpdateState;

pub async fn updates(state: Shared) -> Json<UpdateState> {
    Json(state.updates.snapshot())
}
