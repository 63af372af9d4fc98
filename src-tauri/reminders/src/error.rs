//! The HTTP layer's one error type. Every refusal is JSON
//! `{"error": "<short id>", "message": "<explanation>"}` with a fitting
//! status; nothing a client sends can produce a 500 (only a failing disk,
//! or a bug: a panic is logged and answered as `internal_error`).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::payload::PayloadError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("{0}")]
    Payload(#[from] PayloadError),
    #[error("the request body is larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("cannot read the request body: {0}")]
    BadBody(String),
    #[error("POST bodies must be JSON (Content-Type: application/json)")]
    UnsupportedMediaType,
    #[error("requests from the web origin {0:?} are refused")]
    ForbiddenOrigin(String),
    #[error("{0}")]
    MisdirectedHost(String),
    #[error("no route {0}")]
    NotFound(String),
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    #[error(
        "/lifecycle/{0} is not served: the reminder daemon has no authentication, so any \
         program or other user on this machine could stop your reminders through it. Start, \
         stop or restart it with Almanac itself (its tray menu), or with the service manager \
         that runs the standalone reminder-daemon"
    )]
    LifecycleRefused(String),
    #[error("{0}")]
    Storage(#[from] StoreError),
    /// A bug (a panic); the details are in the log, not in the answer.
    #[error("internal error; the daemon's log has the details")]
    Internal,
}

impl HttpError {
    fn status_and_id(&self) -> (StatusCode, &'static str) {
        match self {
            HttpError::Payload(PayloadError::Malformed(_)) => {
                (StatusCode::BAD_REQUEST, "invalid_json")
            }
            HttpError::Payload(PayloadError::Invalid(_)) => {
                (StatusCode::BAD_REQUEST, "invalid_payload")
            }
            HttpError::TooLarge { .. } => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"),
            HttpError::BadBody(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            HttpError::UnsupportedMediaType => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type")
            }
            HttpError::ForbiddenOrigin(_) => (StatusCode::FORBIDDEN, "forbidden_origin"),
            HttpError::MisdirectedHost(_) => {
                (StatusCode::MISDIRECTED_REQUEST, "misdirected_request")
            }
            HttpError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            HttpError::MethodNotAllowed { .. } => {
                (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed")
            }
            HttpError::LifecycleRefused(_) => (StatusCode::FORBIDDEN, "lifecycle_not_served"),
            HttpError::Storage(_) => (StatusCode::INTERNAL_SERVER_ERROR, "storage_error"),
            HttpError::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal_error"),
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let (status, id) = self.status_and_id();
        (
            status,
            Json(json!({"error": id, "message": self.to_string()})),
        )
            .into_response()
    }
}
