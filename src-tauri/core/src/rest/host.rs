//! The `Host` check against DNS rebinding.
//!
//! A web page can make a browser resolve its own domain to 127.0.0.1 and then
//! talk to this server as if same-origin. The browser still sends the page's
//! domain in `Host`, so requests whose `Host` (or absolute-form URI authority)
//! is not a loopback name with this server's own port are refused with
//! `421 Misdirected Request` before anything else happens.

use axum::extract::{Request, State};
use axum::http::header;
use axum::http::uri::Authority;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::RestError;

/// The port this server listens on; the only one a `Host` may name.
#[derive(Debug, Clone, Copy)]
pub struct OwnPort(pub u16);

/// Middleware: refuses requests addressed to any other authority.
pub async fn check(State(OwnPort(port)): State<OwnPort>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST);
    let host_ok = host
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| is_own_authority(value, port));
    let uri_ok = request
        .uri()
        .authority()
        .is_none_or(|authority| is_own_authority(authority.as_str(), port));
    if host_ok && uri_ok {
        return next.run(request).await;
    }
    let shown = host
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .unwrap_or_default();
    RestError::MisdirectedRequest(shown).into_response()
}

/// Whether `authority` is `127.0.0.1`, `localhost` or `[::1]` with `port`.
fn is_own_authority(authority: &str, port: u16) -> bool {
    let Ok(authority) = authority.parse::<Authority>() else {
        return false;
    };
    // `user@host` is not a valid `Host`; `Authority` would accept it.
    if authority.as_str().contains('@') {
        return false;
    }
    let loopback = matches!(authority.host(), "127.0.0.1" | "[::1]")
        || authority.host().eq_ignore_ascii_case("localhost");
    loopback && authority.port_u16() == Some(port)
}

#[cfg(test)]
mod tests {
    use super::is_own_authority;

    #[test]
    fn only_loopback_names_with_our_port() {
        for ok in [
            "127.0.0.1:8540",
            "localhost:8540",
            "LocalHost:8540",
            "[::1]:8540",
        ] {
            assert!(is_own_authority(ok, 8540), "{ok}");
        }
        for bad in [
            "127.0.0.1",
            "127.0.0.1:8541",
            "evil.example:8540",
            "localhost.evil.example:8540",
            "127.0.0.2:8540",
            "0.0.0.0:8540",
            "user@localhost:8540",
            "",
            "localhost:8540:1",
        ] {
            assert!(!is_own_authority(bad, 8540), "{bad}");
        }
    }
}
