//! CORS: the spec's three headers on every response, and `OPTIONS` preflights.
//!
//! The headers are set unconditionally (not only when an `Origin` is sent, as
//! tower-http's `CorsLayer` does) because the spec requires them on every
//! response, errors included. Preflights are answered `204` before any token
//! check: browsers never send credentials on a preflight.

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

const ALLOW_ORIGIN: HeaderValue = HeaderValue::from_static("*");
const ALLOW_METHODS: HeaderValue = HeaderValue::from_static("GET, POST, PUT, DELETE, OPTIONS");
const ALLOW_HEADERS: HeaderValue = HeaderValue::from_static("Content-Type, Authorization");

/// Adds the three `Access-Control-Allow-*` headers to a response.
pub async fn add_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ALLOW_ORIGIN);
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW_METHODS);
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOW_HEADERS);
    response
}

/// Answers any `OPTIONS` request with `204 No Content`, on any path.
pub async fn preflight(request: Request, next: Next) -> Response {
    if request.method() == Method::OPTIONS {
        StatusCode::NO_CONTENT.into_response()
    } else {
        next.run(request).await
    }
}
