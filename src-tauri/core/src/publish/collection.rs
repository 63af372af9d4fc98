//! A new collection for a published calendar: `MKCALENDAR` (RFC 4791
//! § 5.3.1) in the account's calendar home set, found as the CalDAV
//! account form finds it, named and coloured as the vault calendar
//! (`displayname`, and Apple's `calendar-color`, which phones show).
//!
//! The collection's path is the name made URL-safe plus a few random hex
//! digits, so a second calendar of the same name never lands on the first
//! one's collection (a server answers that with `405`).

use reqwest::{StatusCode, Url};

use crate::calendar::sources::caldav::discover::{self, Discovered};
use crate::calendar::sources::caldav::{DavClient, DavError};

/// Longest name part of a new collection's path.
const MAX_SLUG: usize = 40;

/// Makes a calendar collection called `name`, coloured `color` (`#RRGGBB`;
/// anything else is left to the server), in the account's home set found
/// from `server`; the collection made.
pub fn create(
    client: &DavClient,
    server: &str,
    name: &str,
    color: &str,
) -> Result<Discovered, DavError> {
    let home = discover::home(client, server)?;
    let url = home
        .join(&format!("{}/", segment(name)))
        .map_err(|e| DavError::Protocol(format!("no address for the new calendar: {e}")))?;
    let color = color.starts_with('#').then(|| color.to_string());
    let response = client.send(
        "MKCALENDAR",
        &url,
        &[("Content-Type", "application/xml; charset=utf-8")],
        Some(body(name, color.as_deref())),
    )?;
    match response.status() {
        StatusCode::CREATED => Ok(Discovered {
            url: url.to_string(),
            name: name.to_string(),
            color,
        }),
        status => Err(refused(status, &url)),
    }
}

/// The `MKCALENDAR` request body: the name, and the colour when there is one.
fn body(name: &str, color: Option<&str>) -> String {
    let color = color
        .map(|c| {
            format!(
                "<a:calendar-color>{}</a:calendar-color>",
                quick_xml::escape::escape(c)
            )
        })
        .unwrap_or_default();
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><d:displayname>{}</d:displayname>{color}</d:prop></d:set></c:mkcalendar>"#,
        quick_xml::escape::escape(name)
    )
}

/// A server's refusal of `MKCALENDAR` at `url`, in plain words.
fn refused(status: StatusCode, url: &Url) -> DavError {
    let why = match status {
        StatusCode::FORBIDDEN => {
            "the server does not let this account create calendars; create one there and choose it"
        }
        StatusCode::METHOD_NOT_ALLOWED | StatusCode::CONFLICT => {
            "there is something at that address already, or no calendars can be made there"
        }
        StatusCode::INSUFFICIENT_STORAGE => "the account has no space left",
        _ => "the server refused it",
    };
    DavError::Protocol(format!(
        "the calendar was not created at {}: {why} (status {status})",
        url.path()
    ))
}

/// `name` as one path segment: lower-case ASCII letters and digits, dashes
/// between words, then a dash and 8 random hex digits.
fn segment(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= MAX_SLUG {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    let random = &uuid::Uuid::new_v4().simple().to_string()[..8];
    match slug {
        "" => format!("almanac-{random}"),
        slug => format!("{slug}-{random}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_becomes_one_safe_segment() {
        let made = segment("Work / Ünï  Plans!");
        let (slug, random) = made.rsplit_once('-').unwrap();
        assert_eq!(slug, "work-n-plans");
        assert_eq!(random.len(), 8);
        assert!(segment("ÄÖÜ").starts_with("almanac-"));
        assert_ne!(segment("x"), segment("x"));
    }

    #[test]
    fn the_name_is_escaped_in_the_body() {
        let body = body("<Tom & Jerry>", Some("#112233"));
        assert!(body.contains("<d:displayname>&lt;Tom &amp; Jerry&gt;</d:displayname>"));
        assert!(body.contains("<a:calendar-color>#112233</a:calendar-color>"));
        assert!(!super::body("x", None).contains("calendar-color"));
    }
}
