//! The server's URL space, and turning paths into what they name.
//!
//! ```text
//! /.well-known/caldav        → redirect to /  (RFC 6764)
//! /                          the root: names the principal
//! /principal/                the one principal: names the calendar home
//! /calendars/                the calendar home: one collection per source
//! /calendars/<id>/           a calendar collection
//! /calendars/<id>/<name>.ics an event resource
//! /feeds/<secret>.ics        a subscription feed (no Basic auth: the secret is the key)
//! ```

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

pub const PRINCIPAL: &str = "/principal/";
pub const HOME: &str = "/calendars/";
pub const WELL_KNOWN: &str = "/.well-known/caldav";

/// Left as they are in a path segment (RFC 3986 unreserved, plus `@` and
/// `+`, which UIDs use).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'@')
    .remove(b'+');

/// What a request path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    WellKnown,
    Root,
    Principal,
    Home,
    Collection(String),
    ServedResource { calendar: String, name: String },
    Feed(String),
}

/// Reads a path (or a full URL, as a multiget `href` may be); `None` for
/// anything outside the URL space.
pub fn parse(path: &str) -> Option<Target> {
    let path = strip_origin(path);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    if path == WELL_KNOWN || path == "/.well-known/caldav/" {
        return Some(Target::WellKnown);
    }
    let trailing = path.ends_with('/');
    let segments: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| percent_decode_str(s).decode_utf8().map(|s| s.into_owned()))
        .collect::<Result<_, _>>()
        .ok()?;
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match segments.as_slice() {
        [] => Some(Target::Root),
        ["principal"] => Some(Target::Principal),
        ["calendars"] => Some(Target::Home),
        ["calendars", id] => Some(Target::Collection(id.to_string())),
        ["calendars", id, name] if !trailing => Some(Target::ServedResource {
            calendar: id.to_string(),
            name: name.to_string(),
        }),
        ["feeds", file] if !trailing => file
            .strip_suffix(".ics")
            .map(|s| Target::Feed(s.to_string())),
        _ => None,
    }
}

fn strip_origin(path: &str) -> &str {
    match path.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => path,
    }
}

fn segment(text: &str) -> String {
    utf8_percent_encode(text, SEGMENT).to_string()
}

/// The href of calendar `id`.
pub fn collection(id: &str) -> String {
    format!("{HOME}{}/", segment(id))
}

/// The href of resource `name` in calendar `id`.
pub fn resource(id: &str, name: &str) -> String {
    format!("{}{}", collection(id), segment(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_round_trip() {
        let href = resource("my cal/ü", "a b@x.ics");
        assert_eq!(href, "/calendars/my%20cal%2F%C3%BC/a%20b@x.ics");
        assert_eq!(
            parse(&href),
            Some(Target::ServedResource {
                calendar: "my cal/ü".into(),
                name: "a b@x.ics".into()
            })
        );
        assert_eq!(
            parse("http://127.0.0.1:8541/calendars/work/"),
            Some(Target::Collection("work".into()))
        );
        assert_eq!(parse("/feeds/abc.ics"), Some(Target::Feed("abc".into())));
        assert_eq!(parse("/"), Some(Target::Root));
        assert_eq!(parse("/elsewhere/x/y/z"), None);
        assert_eq!(parse("/calendars/%FF/"), None);
    }
}
