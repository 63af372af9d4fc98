//! From a server address to the calendars of the user (RFC 6764 § 6,
//! RFC 5397, RFC 4791 § 6.2.1): ask the address for the current user
//! principal, falling back to `/.well-known/caldav` on the same host; ask
//! the principal for its calendar home set; list the calendar collections
//! in it. An address that already is a calendar collection is taken as is
//! (the only calendar found).
//!
//! Every step stays on the origin of the address given (see `dav`): a
//! redirect to another origin, `/.well-known/caldav`'s included, is not
//! followed, and the refusal names where it pointed, so the user can enter
//! that address instead (trusting it with the password knowingly).

use reqwest::Url;

use super::dav::{DavClient, DavError, DavResponse, is_calendar};
use crate::webdav::xml::{APPLE_ICAL, CALDAV, DAV};

/// A calendar collection found on the server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Discovered {
    pub url: String,
    pub name: String,
    /// The server's colour for it (`#RRGGBB[AA]`), if it has one.
    pub color: Option<String>,
}

const PRINCIPAL: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/><d:resourcetype/></d:prop></d:propfind>"#;

const HOME_SET: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-home-set/></d:prop></d:propfind>"#;

const CALENDARS: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/"><d:prop><d:resourcetype/><d:displayname/><a:calendar-color/><c:supported-calendar-component-set/></d:prop></d:propfind>"#;

/// The event calendars `username` can reach from `server`.
pub fn calendars(client: &DavClient, server: &str) -> Result<Vec<Discovered>, DavError> {
    let server =
        Url::parse(server).map_err(|e| DavError::Protocol(format!("invalid server URL: {e}")))?;
    match client.multistatus("PROPFIND", &server, "0", CALENDARS) {
        Ok(own) => {
            if let Some(calendar) = own.responses.first().filter(|r| is_calendar(r)) {
                return Ok(holds_events(calendar)
                    .then(|| discovered(calendar))
                    .into_iter()
                    .collect());
            }
        }
        // Servers answer PROPFIND on their root oddly (404, 405, a
        // redirect to a page, maybe on another host, which is not
        // followed): the principal's way is tried below.
        Err(DavError::Protocol(_) | DavError::OffOrigin(_)) => {}
        Err(e) => return Err(e),
    }
    let home = home_set(client, &server)?;
    let listing = client.multistatus("PROPFIND", &home, "1", CALENDARS)?;
    Ok(listing
        .responses
        .iter()
        .filter(|r| is_calendar(r) && holds_events(r))
        .map(discovered)
        .collect())
}

/// The account's calendar home set, where its calendars are made
/// (`MKCALENDAR`), found from the address the user entered.
pub fn home(client: &DavClient, server: &str) -> Result<Url, DavError> {
    let server =
        Url::parse(server).map_err(|e| DavError::Protocol(format!("invalid server URL: {e}")))?;
    home_set(client, &server)
}

/// The calendar home set, found from `server`.
fn home_set(client: &DavClient, server: &Url) -> Result<Url, DavError> {
    let principal = match principal_at(client, server) {
        Ok(Some(principal)) => principal,
        Ok(None) | Err(DavError::Protocol(_) | DavError::OffOrigin(_)) => {
            let well_known = server
                .join("/.well-known/caldav")
                .map_err(|e| DavError::Protocol(e.to_string()))?;
            principal_at(client, &well_known)?.ok_or_else(|| {
                DavError::Protocol("the server names no current user principal".into())
            })?
        }
        Err(e) => return Err(e),
    };
    let answer = client.multistatus("PROPFIND", &principal, "0", HOME_SET)?;
    answer
        .responses
        .iter()
        .find_map(|r| r.href_in(CALDAV, "calendar-home-set"))
        .ok_or_else(|| DavError::Protocol("the principal names no calendar home set".into()))
}

/// The current user principal `url` names, if it names one.
fn principal_at(client: &DavClient, url: &Url) -> Result<Option<Url>, DavError> {
    let answer = client.multistatus("PROPFIND", url, "0", PRINCIPAL)?;
    Ok(answer
        .responses
        .iter()
        .find_map(|r| r.href_in(DAV, "current-user-principal")))
}

/// Whether the collection takes events (no component set: all kinds).
fn holds_events(response: &DavResponse) -> bool {
    response
        .prop(CALDAV, "supported-calendar-component-set")
        .is_none_or(|set| {
            set.children.is_empty()
                || set
                    .children
                    .iter()
                    .any(|c| c.attribute("name") == Some("VEVENT"))
        })
}

fn discovered(response: &DavResponse) -> Discovered {
    let url = response.href.to_string();
    let name = response
        .text(DAV, "displayname")
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| {
            url.trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_string()
        });
    Discovered {
        url,
        name,
        color: response
            .text(APPLE_ICAL, "calendar-color")
            .filter(|c| c.starts_with('#')),
    }
}
