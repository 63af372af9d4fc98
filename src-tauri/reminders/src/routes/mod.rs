//! The HTTP routes of spec B, one module per concern, behind the browser
//! guard. Unknown paths answer 404 and wrong methods 405, both as JSON; a
//! panic (a bug) is logged and answered as the JSON 500 `internal_error`.

mod doctor;
mod lifecycle;
mod read;
mod snooze;
mod sync;
mod updates;

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::BytesRejection;
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::from_fn_with_state;
use axum::response::IntoResponse;
use axum::routing::{any, get, post};

use tokio::sync::Semaphore;

use crate::answers::StorageInfo;
use crate::engine::{Engine, Settled};
use crate::error::HttpError;
use crate::guard::{self, Guard};
use crate::updates::Updates;

/// Extra `/doctor` diagnostics supplied by the host app (keyring state,
/// REST server state, …); called on each `/doctor` request, on the blocking
/// pool (it may read files or start a process), so anything costly in it
/// must be cached by the provider.
pub type DiagnosticsProvider = Arc<dyn Fn() -> serde_json::Value + Send + Sync>;

/// The live instance, as `/doctor` identifies it.
#[derive(Debug, Clone)]
pub struct Instance {
    pub pid: u32,
    pub version: &'static str,
    pub started_at_ms: i64,
}

/// Where the daemon listens now.
#[derive(Debug, Clone)]
pub(crate) struct Listen {
    pub addr: SocketAddr,
    /// Why the configured port is not the one listened on (a rebind failed;
    /// the old listener keeps serving).
    pub problem: Option<String>,
}

/// What the handlers share.
pub(crate) struct AppState {
    pub engine: Arc<Engine>,
    pub updates: Arc<Updates>,
    pub instance: Instance,
    pub listen: RwLock<Listen>,
    /// Where the database lives (paths and file URLs, computed once).
    pub storage: StorageInfo,
    pub diagnostics: Option<DiagnosticsProvider>,
    /// What start-up did with reminders missed while the app was closed.
    pub at_start: Settled,
}

type Shared = axum::extract::State<Arc<AppState>>;

impl AppState {
    pub fn listen(&self) -> Listen {
        self.listen.read().expect("listen lock poisoned").clone()
    }
}

/// The routes, for a listener bound to `addr` (the `Host` check needs it).
pub(crate) fn router(state: Arc<AppState>, addr: SocketAddr) -> Router {
    let config = state.engine.config();
    let limits = config.limits.clone();
    let guard = Arc::new(Guard::new(addr.port(), &config.allowed_origins));
    Router::new()
        .route(
            "/sync",
            post(sync::sync)
                .layer(DefaultBodyLimit::max(limits.max_sync_body_bytes))
                .layer(from_fn_with_state(
                    Arc::new(Semaphore::new(sync::SYNCS_AT_ONCE)),
                    sync::in_turn,
                )),
        )
        .route(
            "/snooze",
            post(snooze::snooze).layer(DefaultBodyLimit::max(limits.max_snooze_body_bytes)),
        )
        .route("/status", get(read::status))
        .route("/events", get(read::events))
        .route("/next", get(read::next))
        .route("/storage", get(read::storage))
        .route("/doctor", get(doctor::doctor))
        .route("/updates", get(updates::updates))
        .route("/lifecycle/{action}", any(lifecycle::refuse))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
        // Inside the guard, so the 500 of a panic carries CORS headers too.
        .layer(PANIC_ANSWER.layer())
        .layer(from_fn_with_state(guard, guard::guard))
}

/// A panic is a bug: log it, answer the JSON `500` (without its details).
const PANIC_ANSWER: almanac_loopback::PanicAnswer = almanac_loopback::PanicAnswer {
    server: "reminder daemon",
    internal_error: || HttpError::Internal.into_response(),
};

async fn not_found(uri: Uri) -> HttpError {
    HttpError::NotFound(uri.path().chars().take(200).collect())
}

async fn method_not_allowed(method: Method, uri: Uri) -> HttpError {
    HttpError::MethodNotAllowed {
        method: method.to_string(),
        path: uri.path().chars().take(200).collect(),
    }
}

/// A request body, or the JSON error for why it could not be read.
fn body(
    body: Result<axum::body::Bytes, BytesRejection>,
    limit: usize,
) -> Result<axum::body::Bytes, HttpError> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            HttpError::TooLarge { limit }
        } else {
            HttpError::BadBody(rejection.body_text())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_is_the_json_internal_error_without_its_details() {
        let (parts, body) = PANIC_ANSWER
            .answer(Box::new(String::from("secret detail")))
            .into_parts();
        let body = axum::body::to_bytes(body, 4096).await.unwrap();
        assert_eq!(parts.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
            serde_json::json!({
                "error": "internal_error",
                "message": "internal error; the daemon's log has the details",
            })
        );
    }
}
