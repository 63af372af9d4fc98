//! The `Host` check against DNS rebinding (the rule itself is
//! `almanac_loopback::host`, shared with the reminder daemon): a request whose
//! `Host` or absolute-form target does not name a loopback host with this
//! server's own port is refused with `421 Misdirected Request` before
//! anything else happens.

use almanac_loopback::host;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::RestError;

/// The port this server listens on; the only one a `Host` may name.
#[derive(Debug, Clone, Copy)]
pub struct OwnPort(pub u16);

/// Middleware: refuses requests addressed to any other authority.
pub async fn check(State(OwnPort(port)): State<OwnPort>, request: Request, next: Next) -> Response {
    match host::check(request.headers(), request.uri(), port) {
        Ok(()) => next.run(request).await,
        // The answer shows the `Host` as sent, whichever part was refused.
        Err(_) => {
            RestError::MisdirectedRequest(host::shown_host(request.headers())).into_response()
        }
    }
}
