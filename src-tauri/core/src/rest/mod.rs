//! The calendar REST server (spec section A): `http://127.0.0.1:<port>/api/v1`.
//!
//! A thin HTTP layer over the in-process API. Layers, outermost first — the
//! order is the spec's validation order:
//!
//! 1. [`cors`] headers on every response (errors and panics included);
//! 2. a panic becomes a JSON `500` (last resort: no client input should panic);
//! 3. [`host`]: `Host` must be a loopback name with our port (DNS rebinding);
//! 4. [`cors::preflight`]: `OPTIONS` → `204`, no token needed;
//! 5. [`auth`]: `401` without a Bearer header, `403` for an unknown, expired or
//!    revoked token;
//! 6. [`limit`]: `413` over 1 MiB;
//! 7. routing: the feature routers ([`events`], [`calendars`], [`ui`],
//!    [`settings`]), `404` for unknown paths, `405` + `Allow` for wrong methods.
//!    A missing scope is the handler's `403`, reported by the API object.
//!
//! [`server`] binds the listener and follows the settings; [`openapi`]
//! describes the whole API from these handlers.

mod cors;
mod error;
mod extract;
mod fallback;
mod host;
mod limit;
mod params;
mod server;

pub use error::{BODY_LIMIT, ErrorBody, RestError};
pub use server::{Listening, RestServer, ServerState};

use axum::Router;
use axum::middleware;
use tower_http::catch_panic::CatchPanicLayer;

/// Wraps `routes` in the layers every request goes through (see the module
/// docs), for a server listening on `port`.
fn guarded(routes: Router, port: u16) -> Router {
    routes
        .fallback(fallback::not_found)
        .layer(limit::streaming())
        .layer(middleware::from_fn(limit::declared_length))
        .layer(middleware::from_fn(cors::preflight))
        .layer(middleware::from_fn_with_state(
            host::OwnPort(port),
            host::check,
        ))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(middleware::map_response(cors::add_headers))
}

/// A panic is a bug: log it, answer the JSON `500`.
fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    let what = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload");
    tracing::error!(panic = what, "REST handler panicked");
    axum::response::IntoResponse::into_response(RestError::Internal)
}
