//! JSON answers for requests no route takes: unknown paths (404) and known
//! paths asked with the wrong method (405, with axum's `Allow` header).

use axum::http::{Method, Uri};

use crate::loopback_server::error::RestError;

/// The router's fallback: no route has this path.
pub async fn not_found(uri: Uri) -> RestError {
    RestError::NotFound(format!("no route for {}", uri.path()))
}

/// Each route's method fallback. axum adds the `Allow` header listing the
/// methods the path does serve.
pub async fn method_not_allowed(method: Method, uri: Uri) -> RestError {
    RestError::MethodNotAllowed {
        method: method.to_string(),
        path: uri.path().to_string(),
    }
}
