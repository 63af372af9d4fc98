//! The `Host` check against DNS rebinding.
//!
//! A web page can make a browser resolve its own domain to 127.0.0.1 and then
//! talk to a loopback server as if same-origin. The browser still sends the
//! page's domain in `Host`, so a request is refused unless its `Host` — and,
//! for an absolute-form request target (`GET http://host:port/path`), that
//! target's authority too — parses as an authority naming `127.0.0.1`,
//! `localhost` or `[::1]` with the server's own port. The servers answer a
//! refusal with `421 Misdirected Request` in their own error shape.

use axum::http::uri::Authority;
use axum::http::{HeaderMap, Uri, header};

/// Why a request is not addressed to this server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Misdirected {
    #[error("the Host header is missing")]
    MissingHost,
    /// The `Host` header, as sent (see [`shown_host`]).
    #[error("Host {0:?} does not name this loopback server")]
    Host(String),
    /// The authority of an absolute-form request target.
    #[error("the request target's authority {0:?} does not name this loopback server")]
    Target(String),
}

/// Checks the `Host` header, then the request target's authority if it has
/// one (origin-form targets, `/path`, have none and pass).
pub fn check(headers: &HeaderMap, uri: &Uri, port: u16) -> Result<(), Misdirected> {
    check_host(headers, port)?;
    check_target(uri, port)
}

/// Checks the `Host` header alone.
pub fn check_host(headers: &HeaderMap, port: u16) -> Result<(), Misdirected> {
    let Some(host) = headers.get(header::HOST) else {
        return Err(Misdirected::MissingHost);
    };
    let own = host
        .to_str()
        .is_ok_and(|value| is_own_authority(value, port));
    if own {
        Ok(())
    } else {
        Err(Misdirected::Host(shown_host(headers)))
    }
}

/// Checks the authority of an absolute-form request target, if any.
pub fn check_target(uri: &Uri, port: u16) -> Result<(), Misdirected> {
    match uri.authority() {
        Some(authority) if !is_own_authority(authority.as_str(), port) => {
            Err(Misdirected::Target(authority.as_str().to_owned()))
        }
        _ => Ok(()),
    }
}

/// The `Host` header as sent (lossily decoded), to show in a refusal; empty
/// when there is none.
pub fn shown_host(headers: &HeaderMap) -> String {
    headers
        .get(header::HOST)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .unwrap_or_default()
}

/// Whether `authority` is `127.0.0.1`, `localhost` (any case) or `[::1]`
/// with `port`.
pub fn is_own_authority(authority: &str, port: u16) -> bool {
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
    use axum::http::HeaderValue;

    use super::*;

    fn host(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(value).unwrap());
        headers
    }

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
            "[::1]",
            "localhost:08540x",
        ] {
            assert!(!is_own_authority(bad, 8540), "{bad}");
        }
    }

    #[test]
    fn a_missing_or_foreign_host_is_refused_and_shown() {
        let origin_form = Uri::from_static("/status");
        assert_eq!(
            check(&HeaderMap::new(), &origin_form, 80),
            Err(Misdirected::MissingHost)
        );
        let refused = check(&host("evil.example:80"), &origin_form, 80).unwrap_err();
        assert_eq!(refused, Misdirected::Host("evil.example:80".into()));
        assert_eq!(shown_host(&host("evil.example:80")), "evil.example:80");
        assert_eq!(shown_host(&HeaderMap::new()), "");
        assert_eq!(check(&host("localhost:80"), &origin_form, 80), Ok(()));
    }

    #[test]
    fn an_absolute_target_must_name_us_too() {
        let ours = host("127.0.0.1:45677");
        let absolute = Uri::from_static("http://localhost:45677/status");
        assert_eq!(check(&ours, &absolute, 45677), Ok(()));
        let foreign = Uri::from_static("http://evil.example:45677/status");
        assert_eq!(
            check(&ours, &foreign, 45677),
            Err(Misdirected::Target("evil.example:45677".into()))
        );
        // The Host header is checked first, whatever the target says.
        assert!(matches!(
            check(&host("evil.example:45677"), &absolute, 45677),
            Err(Misdirected::Host(_))
        ));
    }
}
