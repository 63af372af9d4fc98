//! The WebDAV requests a CalDAV source makes, over a blocking reqwest
//! client with HTTP Basic authentication, and their multistatus answers.
//! Errors name the status or the failure, never the password.
//!
//! The client is pinned to the account's origin (scheme, host and port of
//! the server address the user entered): a request to any other origin is
//! refused before it is sent, and redirects are followed only within the
//! origin, so the Basic password never leaves it and https is never
//! downgraded to http. Answers are read incrementally up to a cap.

use std::io::Read;
use std::time::Duration;

use reqwest::blocking::{Client, Response};
use reqwest::{Method, StatusCode, Url, redirect};
use url::Origin;

use crate::webdav::xml::{self, CALDAV, DAV, Element};

/// Why a request failed, in the terms the source's status shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DavError {
    /// No answer: the server is down or unreachable.
    #[error("the CalDAV server cannot be reached: {0}")]
    Unreachable(String),
    /// 401: the user name or password is wrong (or missing).
    #[error("the CalDAV server refused the user name or password (401)")]
    Unauthorized,
    /// 412: the resource changed on the server since it was read.
    #[error("the event changed on the CalDAV server since it was read")]
    PreconditionFailed,
    /// Any other failing status, or an answer that cannot be read.
    #[error("the CalDAV server answered unexpectedly: {0}")]
    Protocol(String),
    /// The server named (in an href or a redirect) an address outside the
    /// account's origin: nothing is sent there. Holds that origin.
    #[error(
        "the CalDAV server pointed to {0}, outside the account's address; Almanac sends \
         nothing there (if that is the right server, enter it as the account's address)"
    )]
    OffOrigin(String),
    /// An answer, a resource or the calendar is larger than Almanac reads.
    #[error("the CalDAV server's {0}")]
    TooLarge(String),
    /// 429 or 503: the server asked to be left alone for this long
    /// (its `Retry-After`, else [`DEFAULT_RETRY_AFTER`]).
    #[error("the CalDAV server is busy and asked to wait {} s", .0.as_secs())]
    Busy(Duration),
}

/// The most of one multistatus answer (PROPFIND, REPORT) that is read.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// The largest event resource kept; a larger one is set aside.
pub const MAX_RESOURCE_BYTES: usize = 1024 * 1024;
/// The most event resources one calendar may hold.
pub const MAX_RESOURCES: usize = 20_000;
/// How long to wait on a busy server (429, 503) that did not say.
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(60);
/// The longest `Retry-After` taken at its word: a server asking for more
/// is asked again after this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(6 * 60 * 60);
/// Redirects followed (within the origin) before a request gives up.
const MAX_REDIRECTS: usize = 10;

/// One `<response>` of a multistatus: its href (absolute URL), its status
/// (of the response or of its found properties) and the found properties.
#[derive(Debug, Clone)]
pub struct DavResponse {
    pub href: Url,
    /// `None` when only the property stats carry a status.
    pub status: Option<u16>,
    /// The `<prop>` elements of the 200 property stats.
    pub props: Vec<Element>,
}

impl DavResponse {
    /// The found property `ns:local`.
    pub fn prop(&self, ns: &str, local: &str) -> Option<&Element> {
        self.props.iter().find_map(|p| p.child(ns, local))
    }

    /// The text of the found property `ns:local`, trimmed.
    pub fn text(&self, ns: &str, local: &str) -> Option<String> {
        self.prop(ns, local).map(|e| e.text.trim().to_string())
    }

    /// The first `DAV:href` inside property `ns:local`, resolved.
    pub fn href_in(&self, ns: &str, local: &str) -> Option<Url> {
        let prop = self.prop(ns, local)?;
        let href = prop.child(DAV, "href")?;
        self.href.join(href.text.trim()).ok()
    }
}

/// A multistatus answer: its responses and, for sync-collection, the new
/// sync token.
#[derive(Debug, Clone, Default)]
pub struct Multistatus {
    pub responses: Vec<DavResponse>,
    pub sync_token: Option<String>,
}

/// A CalDAV account: who to authenticate as, over which client.
#[derive(Clone)]
pub struct DavClient {
    http: Client,
    /// The account's origin: the only one requests go to.
    origin: Origin,
    username: String,
    password: String,
}

impl std::fmt::Debug for DavClient {
    // The password stays out of every debug print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DavClient")
            .field("origin", &self.origin.ascii_serialization())
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

fn method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).expect("a valid method name")
}

impl DavClient {
    /// A client for the account at `server` (the address the user
    /// entered): every request stays on its origin.
    pub fn new(server: &Url, username: &str, password: &str) -> Result<Self, DavError> {
        let origin = server.origin();
        if !matches!(server.scheme(), "http" | "https") || !origin.is_tuple() {
            return Err(DavError::Protocol(
                "the server address must start with https:// or http://".into(),
            ));
        }
        let pinned = origin.clone();
        let http = Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("Almanac/", env!("CARGO_PKG_VERSION")))
            // Stopped (not failed) off the origin: `send` names the target.
            .redirect(redirect::Policy::custom(move |attempt| {
                if attempt.url().origin() != pinned || attempt.previous().len() > MAX_REDIRECTS {
                    attempt.stop()
                } else {
                    attempt.follow()
                }
            }))
            .build()
            .map_err(|e| DavError::Protocol(format!("cannot build HTTP client: {e}")))?;
        Ok(Self {
            http,
            origin,
            username: username.to_string(),
            password: password.to_string(),
        })
    }

    /// `url` if it is on the account's origin, else the refusal naming it.
    pub fn on_origin<'u>(&self, url: &'u Url) -> Result<&'u Url, DavError> {
        if url.origin() == self.origin {
            Ok(url)
        } else {
            Err(off_origin(url))
        }
    }

    /// Sends `method` to `url` with `headers` and `body`; maps 401 and no
    /// answer to their errors and returns every other response.
    pub fn send(
        &self,
        name: &str,
        url: &Url,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Result<Response, DavError> {
        let mut request = self
            .http
            .request(method(name), self.on_origin(url)?.clone())
            .basic_auth(&self.username, Some(&self.password));
        for (header, value) in headers {
            request = request.header(*header, *value);
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        let response = request
            .send()
            .map_err(|e| DavError::Unreachable(e.without_url().to_string()))?;
        if response.status() == StatusCode::UNAUTHORIZED {
            return Err(DavError::Unauthorized);
        }
        if matches!(
            response.status(),
            StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
        ) {
            let asked = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(retry_after);
            return Err(DavError::Busy(
                asked.unwrap_or(DEFAULT_RETRY_AFTER).min(MAX_RETRY_AFTER),
            ));
        }
        if response.status().is_redirection() {
            // Only a redirect off the origin (or too many) is left unfollowed.
            let target = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|location| response.url().join(location).ok());
            return Err(match target {
                Some(target) if self.on_origin(&target).is_err() => off_origin(&target),
                _ => DavError::Protocol(format!("status {} (redirects)", response.status())),
            });
        }
        Ok(response)
    }

    /// PROPFIND (`depth` 0 or 1) or REPORT with an XML `body`; the
    /// multistatus answer.
    pub fn multistatus(
        &self,
        name: &str,
        url: &Url,
        depth: &str,
        body: &str,
    ) -> Result<Multistatus, DavError> {
        let response = self.send(
            name,
            url,
            &[
                ("Depth", depth),
                ("Content-Type", "application/xml; charset=utf-8"),
            ],
            Some(body.to_string()),
        )?;
        let status = response.status();
        let base = response.url().clone();
        if status != StatusCode::MULTI_STATUS {
            return Err(status_error(status));
        }
        let text = read_capped(response, MAX_ANSWER_BYTES)?;
        let answer = parse_multistatus(&base, &text)?;
        // An href off the origin is refused before anything acts on it.
        for response in &answer.responses {
            self.on_origin(&response.href)?;
        }
        Ok(answer)
    }
}

impl DavClient {
    /// PUTs `ics` to `url`, only over the version `if_match` (an ETag), or
    /// only as a new resource when `None`. Returns the new ETag, if given.
    pub fn put(
        &self,
        url: &Url,
        ics: &str,
        if_match: Option<&str>,
    ) -> Result<Option<String>, DavError> {
        let precondition = match if_match {
            Some(etag) => ("If-Match", etag),
            None => ("If-None-Match", "*"),
        };
        let response = self.send(
            "PUT",
            url,
            &[
                precondition,
                ("Content-Type", "text/calendar; charset=utf-8"),
            ],
            Some(ics.to_string()),
        )?;
        if !response.status().is_success() {
            return Err(status_error(response.status()));
        }
        Ok(response
            .headers()
            .get(reqwest::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string))
    }

    /// DELETEs `url` if it is still the version `if_match`; one already
    /// gone counts as deleted.
    pub fn delete(&self, url: &Url, if_match: &str) -> Result<(), DavError> {
        let response = self.send("DELETE", url, &[("If-Match", if_match)], None)?;
        match response.status() {
            status if status.is_success() || status == StatusCode::NOT_FOUND => Ok(()),
            status => Err(status_error(status)),
        }
    }
}

/// The body of `response` as text, read no further than `max_bytes`.
fn read_capped(response: Response, max_bytes: usize) -> Result<String, DavError> {
    let too_large = || {
        DavError::TooLarge(format!(
            "answer is larger than the {} MiB limit; reading stopped there",
            max_bytes / (1024 * 1024)
        ))
    };
    if response
        .content_length()
        .is_some_and(|n| n > max_bytes as u64)
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    response
        .take(max_bytes as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| DavError::Unreachable(format!("reading the answer failed: {e}")))?;
    if bytes.len() > max_bytes {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| DavError::Protocol("the answer is not UTF-8".into()))
}

/// A `Retry-After` value: seconds, or an HTTP date (the wait until then).
fn retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = at.signed_duration_since(chrono::Utc::now());
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

/// The refusal of `url`, naming its origin only (never a path or query).
fn off_origin(url: &Url) -> DavError {
    DavError::OffOrigin(url.origin().ascii_serialization())
}

/// Whether `server` is plain http to a host that is not this machine: an
/// account's password and events then travel unencrypted.
pub fn is_plain_http_off_machine(server: &Url) -> bool {
    let loopback = match server.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => true,
    };
    server.scheme() == "http" && !loopback
}

/// A failing status as an error.
pub fn status_error(status: StatusCode) -> DavError {
    match status {
        StatusCode::UNAUTHORIZED => DavError::Unauthorized,
        StatusCode::PRECONDITION_FAILED => DavError::PreconditionFailed,
        other => DavError::Protocol(format!("status {other}")),
    }
}

/// `HTTP/1.1 200 OK` → 200.
fn status_code(element: Option<&Element>) -> Option<u16> {
    element?.text.split_whitespace().nth(1)?.parse().ok()
}

/// Reads a multistatus body, resolving hrefs against `base`.
pub fn parse_multistatus(base: &Url, body: &str) -> Result<Multistatus, DavError> {
    let root = xml::parse(body).map_err(|e| DavError::Protocol(format!("bad XML: {e}")))?;
    if !root.name.is(DAV, "multistatus") {
        return Err(DavError::Protocol("not a multistatus".into()));
    }
    let mut out = Multistatus {
        sync_token: root
            .child(DAV, "sync-token")
            .map(|e| e.text.trim().to_string()),
        ..Default::default()
    };
    for response in root.children.iter().filter(|c| c.name.is(DAV, "response")) {
        let Some(href) = response.child(DAV, "href") else {
            continue;
        };
        let Ok(href) = base.join(href.text.trim()) else {
            continue;
        };
        let props = response
            .children
            .iter()
            .filter(|c| c.name.is(DAV, "propstat"))
            .filter(|p| status_code(p.child(DAV, "status")) == Some(200))
            .filter_map(|p| p.child(DAV, "prop").cloned())
            .collect();
        out.responses.push(DavResponse {
            href,
            status: status_code(response.child(DAV, "status")),
            props,
        });
    }
    Ok(out)
}

/// Whether a response's `resourcetype` says it is a calendar collection.
pub fn is_calendar(response: &DavResponse) -> bool {
    response
        .prop(DAV, "resourcetype")
        .is_some_and(|t| t.child(CALDAV, "calendar").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multistatus_keeps_found_props_and_resolves_hrefs() {
        let base = Url::parse("http://h/dav/").unwrap();
        let body = r#"<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:"><d:response><d:href>/dav/a.ics</d:href>
<d:propstat><d:prop><d:getetag>"1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
<d:propstat><d:prop><d:displayname/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
</d:response><d:response><d:href>b.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>
<d:sync-token>t2</d:sync-token></d:multistatus>"#;
        let ms = parse_multistatus(&base, body).unwrap();
        assert_eq!(ms.sync_token.as_deref(), Some("t2"));
        assert_eq!(ms.responses[0].href.as_str(), "http://h/dav/a.ics");
        assert_eq!(
            ms.responses[0].text(DAV, "getetag").as_deref(),
            Some("\"1\"")
        );
        assert_eq!(ms.responses[0].props.len(), 1);
        assert_eq!(ms.responses[1].status, Some(404));
        assert_eq!(ms.responses[1].href.as_str(), "http://h/dav/b.ics");
    }

    #[test]
    fn retry_after_is_read_as_seconds_or_a_date() {
        assert_eq!(retry_after("120"), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO),
            "a date gone by: at once"
        );
        let soon = (chrono::Utc::now() + chrono::Duration::seconds(90)).to_rfc2822();
        let wait = retry_after(&soon).unwrap();
        assert!((80..=90).contains(&wait.as_secs()), "{wait:?}");
        assert_eq!(retry_after("soon"), None);
    }

    #[test]
    fn plain_http_is_flagged_only_off_this_machine() {
        let flagged = |url: &str| is_plain_http_off_machine(&Url::parse(url).unwrap());
        assert!(flagged("http://dav.example.org/"));
        assert!(flagged("http://192.168.1.5:5232/"));
        assert!(!flagged("https://dav.example.org/"));
        assert!(!flagged("http://127.0.0.1:5232/"));
        assert!(!flagged("http://localhost:5232/"));
        assert!(!flagged("http://[::1]:5232/"));
    }

    #[test]
    fn a_client_is_pinned_to_its_origin() {
        let client =
            DavClient::new(&Url::parse("https://dav.example.org/").unwrap(), "a", "p").unwrap();
        let on = |url: &str| client.on_origin(&Url::parse(url).unwrap()).is_ok();
        assert!(on("https://dav.example.org/cal/a.ics"));
        assert!(on("https://dav.example.org:443/x"));
        assert!(!on("http://dav.example.org/cal/"), "a downgrade");
        assert!(!on("https://dav.example.org:8443/cal/"));
        assert!(!on("https://evil.example.org/cal/"));
        assert!(DavClient::new(&Url::parse("file:///etc/").unwrap(), "a", "p").is_err());
    }
}
