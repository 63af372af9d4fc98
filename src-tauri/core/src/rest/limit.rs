//! The 1 MiB request body limit.
//!
//! Two halves: a declared `Content-Length` over the limit is refused before any
//! byte is read (on every route, whether it reads a body or not), and bodies
//! without a length (chunked) are cut off by axum's `DefaultBodyLimit` while
//! [`JsonBody`](super::extract::JsonBody) reads them.

use axum::extract::{DefaultBodyLimit, Request};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::loopback_server::error::{BODY_LIMIT, RestError};

/// The streaming half, for `Router::layer`.
pub fn streaming() -> DefaultBodyLimit {
    DefaultBodyLimit::max(BODY_LIMIT)
}

/// Middleware: `413` for a declared length over the limit.
pub async fn declared_length(request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    match declared {
        Some(length) if length > BODY_LIMIT as u64 => RestError::PayloadTooLarge.into_response(),
        _ => next.run(request).await,
    }
}
