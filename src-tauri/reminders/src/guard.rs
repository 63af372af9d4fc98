//! Browser hardening. The daemon has no authentication by contract, so it
//! must not be usable from web pages the user happens to visit:
//!
//! - `Host` must name loopback with the daemon's own port (127.0.0.1,
//!   localhost, [::1]), and so must an absolute-form request target
//!   (`GET http://host:port/path`); anything else is a DNS-rebinding attempt
//!   → 421. The rule is `almanac_loopback::host`, shared with the REST
//!   server.
//! - An `Origin`, when present, must be on the allowlist (app origins such
//!   as Obsidian's `app://obsidian.md` or Tauri's); web origins → 403.
//! - A `POST` must declare a JSON body; a form or text/plain POST (which a
//!   page can send cross-origin without a preflight) → 415.
//!
//! Allowed origins get CORS headers, and their preflights a 204, so an app
//! renderer can call the daemon with `fetch`.

use std::sync::Arc;

use almanac_loopback::host::{self, Misdirected};
use axum::extract::{Request, State};
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    CONTENT_TYPE, ORIGIN, VARY,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::HttpError;

/// What the guard checks against.
#[derive(Debug, Clone)]
pub struct Guard {
    /// The bound port, the only one a `Host` may name.
    port: u16,
    allowed_origins: Vec<String>,
}

impl Guard {
    pub fn new(port: u16, allowed_origins: &[String]) -> Self {
        Self {
            port,
            allowed_origins: allowed_origins
                .iter()
                .map(|o| o.to_ascii_lowercase())
                .collect(),
        }
    }

    fn check_host(&self, headers: &HeaderMap) -> Result<(), HttpError> {
        host::check_host(headers, self.port).map_err(|refused| self.misdirected(refused))
    }

    /// The authority of an absolute-form request target must name us too.
    fn check_target(&self, uri: &Uri) -> Result<(), HttpError> {
        host::check_target(uri, self.port).map_err(|refused| self.misdirected(refused))
    }

    fn misdirected(&self, refused: Misdirected) -> HttpError {
        let port = self.port;
        HttpError::MisdirectedHost(format!(
            "{refused}: this is the loopback reminder daemon (127.0.0.1:{port}, \
             localhost:{port} or [::1]:{port})"
        ))
    }

    /// The request's origin if it is present and allowed; `Err` if present
    /// and refused.
    fn check_origin<'h>(
        &self,
        headers: &'h HeaderMap,
    ) -> Result<Option<&'h HeaderValue>, HttpError> {
        let Some(origin) = headers.get(ORIGIN) else {
            return Ok(None);
        };
        let text = origin.to_str().unwrap_or_default().to_ascii_lowercase();
        let allowed = self.allowed_origins.iter().any(|entry| {
            if entry.ends_with("://") {
                text.starts_with(entry.as_str()) && text.len() > entry.len()
            } else {
                *entry == text
            }
        });
        if allowed {
            Ok(Some(origin))
        } else {
            Err(HttpError::ForbiddenOrigin(text))
        }
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The middleware.
pub async fn guard(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    if let Err(refused) = guard
        .check_host(headers)
        .and_then(|()| guard.check_target(request.uri()))
    {
        return refused.into_response();
    }
    let origin = match guard.check_origin(headers) {
        Ok(origin) => origin.cloned(),
        Err(refused) => return refused.into_response(),
    };
    let mut response = if request.method() == Method::OPTIONS {
        preflight()
    } else if request.method() == Method::POST && !is_json(headers) {
        HttpError::UnsupportedMediaType.into_response()
    } else {
        next.run(request).await
    };
    if let Some(origin) = origin {
        let headers = response.headers_mut();
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(VARY, HeaderValue::from_static("Origin"));
    }
    response
}

fn preflight() -> Response {
    (
        StatusCode::NO_CONTENT,
        [
            (ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, OPTIONS"),
            (ACCESS_CONTROL_ALLOW_HEADERS, "Content-Type"),
        ],
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use axum::http::header::HOST;

    use super::*;

    fn headers(pairs: &[(axum::http::HeaderName, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| (name.clone(), HeaderValue::from_str(value).unwrap()))
            .collect()
    }

    #[test]
    fn hosts_must_be_loopback_with_our_port() {
        let guard = Guard::new(45677, &[]);
        for ok in [
            "127.0.0.1:45677",
            "localhost:45677",
            "LOCALHOST:45677",
            "[::1]:45677",
        ] {
            assert!(guard.check_host(&headers(&[(HOST, ok)])).is_ok(), "{ok}");
        }
        for bad in [
            "127.0.0.1",
            "127.0.0.1:80",
            "evil.example:45677",
            "localhost.evil:45677",
        ] {
            assert!(guard.check_host(&headers(&[(HOST, bad)])).is_err(), "{bad}");
        }
        assert!(guard.check_host(&HeaderMap::new()).is_err());
    }

    #[test]
    fn absolute_form_targets_must_be_loopback_with_our_port() {
        let guard = Guard::new(45677, &[]);
        for ok in [
            "/status",
            "http://127.0.0.1:45677/status",
            "http://LOCALHOST:45677/status",
            "http://[::1]:45677/status",
        ] {
            assert!(guard.check_target(&Uri::from_static(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "http://evil.example:45677/status",
            "http://127.0.0.1:80/status",
            "http://127.0.0.1/status",
            "http://user@localhost:45677/status",
        ] {
            let refused = guard.check_target(&Uri::from_static(bad)).unwrap_err();
            assert!(
                matches!(refused, HttpError::MisdirectedHost(_)),
                "{bad}: {refused:?}"
            );
        }
    }

    #[test]
    fn hosts_are_parsed_as_authorities() {
        // Compared as strings, these once passed or failed by accident of
        // spelling; parsed, only a loopback host with our port passes.
        let guard = Guard::new(45677, &[]);
        for bad in [
            "user@localhost:45677",
            "localhost:45677:1",
            "127.0.0.2:45677",
            "0.0.0.0:45677",
            "",
        ] {
            assert!(guard.check_host(&headers(&[(HOST, bad)])).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_app_origins_pass() {
        let guard = Guard::new(1, &["app://".into(), "https://tauri.localhost".into()]);
        assert!(guard.check_origin(&HeaderMap::new()).unwrap().is_none());
        for ok in ["app://obsidian.md", "https://tauri.localhost"] {
            assert!(
                guard
                    .check_origin(&headers(&[(ORIGIN, ok)]))
                    .unwrap()
                    .is_some(),
                "{ok}"
            );
        }
        for bad in [
            "https://evil.example",
            "null",
            "app://",
            "http://127.0.0.1:45677",
            "https://tauri.localhost.evil",
        ] {
            assert!(
                guard.check_origin(&headers(&[(ORIGIN, bad)])).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn json_content_types() {
        assert!(is_json(&headers(&[(CONTENT_TYPE, "application/json")])));
        assert!(is_json(&headers(&[(
            CONTENT_TYPE,
            "Application/JSON; charset=utf-8"
        )])));
        assert!(!is_json(&headers(&[(CONTENT_TYPE, "text/plain")])));
        assert!(!is_json(&headers(&[(CONTENT_TYPE, "application/jsonx")])));
        assert!(!is_json(&HeaderMap::new()));
    }
}
