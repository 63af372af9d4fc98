//! Who may talk to the CalDAV server: no web pages (a request carrying an
//! `Origin` is refused: CalDAV clients never send one, browsers always do on
//! the requests that could change something), and only holders of a token,
//! sent as the password of HTTP Basic (any user name), the way calendar apps
//! ask for credentials. `events:read` reads, `events:write` writes.
//!
//! The token check is the REST server's ([`CalendarPlugin::authorize`]): in
//! memory, constant-time, and the secret is never logged.

use std::sync::Arc;

use axum::http::{HeaderMap, header};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::error::DavRefusal;
use crate::api::{ApiError, AuthorizedApi, CalendarPlugin};
use crate::tokens::{REFUSED_TOKEN, Scope};

/// Refuses requests sent by a web page.
pub fn refuse_browsers(headers: &HeaderMap) -> Result<(), DavRefusal> {
    if headers.contains_key(header::ORIGIN) {
        return Err(DavRefusal::forbidden(
            "the CalDAV server does not answer web pages (the request carries an Origin)",
        ));
    }
    Ok(())
}

/// The API of the token in the `Authorization` header.
pub fn authenticate(
    plugin: &Arc<CalendarPlugin>,
    headers: &HeaderMap,
) -> Result<AuthorizedApi, DavRefusal> {
    let secret = secret(headers)?;
    // One answer for every refused token; the token check logged why.
    plugin
        .authorize(&secret)
        .map_err(|_| DavRefusal::Unauthorized(REFUSED_TOKEN.into()))
}

/// The token: Basic's password (what calendar apps send), or a Bearer token.
fn secret(headers: &HeaderMap) -> Result<String, DavRefusal> {
    let missing = || {
        DavRefusal::Unauthorized(
            "sign in with any user name and an Almanac token (events:read, events:write) as the password"
                .into(),
        )
    };
    let value = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(missing)?;
    let (scheme, rest) = value.trim().split_once(' ').ok_or_else(missing)?;
    if scheme.eq_ignore_ascii_case("Bearer") {
        return Ok(rest.trim().to_string());
    }
    if !scheme.eq_ignore_ascii_case("Basic") {
        return Err(missing());
    }
    let decoded = STANDARD
        .decode(rest.trim())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(missing)?;
    let (_user, password) = decoded.split_once(':').ok_or_else(missing)?;
    Ok(password.to_string())
}

/// Refuses unless the token grants `scope`.
pub fn require(api: &AuthorizedApi, scope: Scope) -> Result<(), DavRefusal> {
    if api.scopes().grants(scope) {
        Ok(())
    } else {
        Err(ApiError::MissingScope(scope).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    #[test]
    fn the_password_is_the_token() {
        let basic = format!("Basic {}", STANDARD.encode("anyone:alm_secret:with:colons"));
        assert_eq!(secret(&headers(&basic)).unwrap(), "alm_secret:with:colons");
        assert_eq!(secret(&headers("Bearer abc")).unwrap(), "abc");
        assert!(matches!(
            secret(&headers("Basic !!!")),
            Err(DavRefusal::Unauthorized(_))
        ));
        assert!(matches!(
            secret(&HeaderMap::new()),
            Err(DavRefusal::Unauthorized(_))
        ));
    }
}
