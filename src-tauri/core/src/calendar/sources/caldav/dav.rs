//! The WebDAV requests a CalDAV source makes, over a blocking reqwest
//! client with HTTP Basic authentication, and their multistatus answers.
//! Errors name the status or the failure, never the password.

use std::time::Duration;

use reqwest::blocking::{Client, Response};
use reqwest::{Method, StatusCode, Url};

use crate::caldav::xml::{self, CALDAV, DAV, Element};

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
}

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
    username: String,
    password: String,
}

impl std::fmt::Debug for DavClient {
    // The password stays out of every debug print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DavClient")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

fn method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).expect("a valid method name")
}

impl DavClient {
    pub fn new(username: &str, password: &str) -> Result<Self, DavError> {
        let http = Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("Almanac/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| DavError::Protocol(format!("cannot build HTTP client: {e}")))?;
        Ok(Self {
            http,
            username: username.to_string(),
            password: password.to_string(),
        })
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
            .request(method(name), url.clone())
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
        let text = response
            .text()
            .map_err(|e| DavError::Unreachable(e.without_url().to_string()))?;
        parse_multistatus(&base, &text)
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
}
