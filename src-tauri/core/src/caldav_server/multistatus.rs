//! Writing `207 Multi-Status` bodies (RFC 4918 §13): one `response` per
//! resource, found properties in a `200` `propstat`, unknown ones in a `404`.

use axum::http::StatusCode;
use quick_xml::escape::escape;

use super::error::DavRefusal;
use super::xml::{APPLE_ICAL, CALDAV, CALSERVER, DAV, Name};

/// What a multistatus says about one resource.
pub enum Reply {
    /// Its properties: values (inner XML, already escaped) and names it lacks.
    Props {
        href: String,
        found: Vec<(Name, String)>,
        missing: Vec<Name>,
    },
    /// A bare status (a `404` for a resource that is gone).
    Status { href: String, status: u16 },
    /// A status per property, as a `PROPPATCH` answers (each status one
    /// `propstat`, in the order first met).
    PropStatuses {
        href: String,
        statuses: Vec<(Name, u16)>,
    },
}

const PREFIXES: [(&str, &str); 4] = [
    (DAV, "D"),
    (CALDAV, "C"),
    (CALSERVER, "CS"),
    (APPLE_ICAL, "I"),
];

/// A multistatus document written one reply at a time, refused (`507`)
/// as soon as it would pass its byte limit: the answer is never held twice
/// (replies, then text), and never grows past the limit plus one reply.
pub struct Multistatus {
    out: String,
    limit: usize,
}

impl Multistatus {
    /// An answer of at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        let mut out = String::from(r#"<?xml version="1.0" encoding="utf-8"?>"#);
        out.push_str("<D:multistatus");
        for (ns, prefix) in PREFIXES {
            out.push_str(&format!(r#" xmlns:{prefix}="{ns}""#));
        }
        out.push('>');
        Self { out, limit }
    }

    /// Appends `reply`; `507 Insufficient Storage` once the answer is too big.
    pub fn push(&mut self, reply: Reply) -> Result<(), DavRefusal> {
        write_reply(&mut self.out, &reply);
        if self.out.len() > self.limit {
            return Err(DavRefusal::Status(
                StatusCode::INSUFFICIENT_STORAGE,
                format!(
                    "the answer would be larger than {} MiB; ask for fewer properties \
                     (calendar-data) or fewer resources (a time-range, multiget batches)",
                    self.limit / (1024 * 1024)
                ),
            ));
        }
        Ok(())
    }

    /// The finished document; `sync_token` ends a sync-collection answer.
    pub fn finish(mut self, sync_token: Option<&str>) -> String {
        if let Some(token) = sync_token {
            self.out
                .push_str(&format!("<D:sync-token>{}</D:sync-token>", escape(token)));
        }
        self.out.push_str("</D:multistatus>");
        self.out
    }
}

fn write_reply(out: &mut String, reply: &Reply) {
    out.push_str("<D:response>");
    match reply {
        Reply::Props {
            href,
            found,
            missing,
        } => {
            href_element(out, href);
            if !found.is_empty() {
                out.push_str("<D:propstat><D:prop>");
                for (name, value) in found {
                    element(out, name, value);
                }
                out.push_str("</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>");
            }
            if !missing.is_empty() {
                out.push_str("<D:propstat><D:prop>");
                for name in missing {
                    element(out, name, "");
                }
                out.push_str("</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>");
            }
        }
        Reply::PropStatuses { href, statuses } => {
            href_element(out, href);
            let mut seen: Vec<u16> = Vec::new();
            for (_, status) in statuses {
                if !seen.contains(status) {
                    seen.push(*status);
                }
            }
            for status in seen {
                out.push_str("<D:propstat><D:prop>");
                for (name, _) in statuses.iter().filter(|(_, s)| *s == status) {
                    element(out, name, "");
                }
                out.push_str(&format!(
                    "</D:prop><D:status>HTTP/1.1 {}</D:status></D:propstat>",
                    status_line(status)
                ));
            }
        }
        Reply::Status { href, status } => {
            href_element(out, href);
            out.push_str(&format!(
                "<D:status>HTTP/1.1 {}</D:status>",
                status_line(*status)
            ));
        }
    }
    out.push_str("</D:response>");
}

/// `<D:href>` around an (already percent-encoded) path.
pub fn href(path: &str) -> String {
    format!("<D:href>{}</D:href>", escape(path))
}

fn href_element(out: &mut String, path: &str) {
    out.push_str("<D:href>");
    out.push_str(&escape(path));
    out.push_str("</D:href>");
}

/// `<p:name>value</p:name>`, declaring a namespace we have no prefix for.
fn element(out: &mut String, name: &Name, value: &str) {
    let (tag, declaration) = match PREFIXES.iter().find(|(ns, _)| *ns == name.ns) {
        Some((_, prefix)) => (format!("{prefix}:{}", name.local), String::new()),
        None if name.ns.is_empty() => (name.local.clone(), String::new()),
        None => (
            format!("X:{}", name.local),
            format!(r#" xmlns:X="{}""#, escape(name.ns.as_str())),
        ),
    };
    // Pieces rather than one `format!`: a value may be a whole iCalendar
    // text, copied once here rather than twice.
    out.push('<');
    out.push_str(&tag);
    out.push_str(&declaration);
    if value.is_empty() {
        out.push_str("/>");
    } else {
        out.push('>');
        out.push_str(value);
        out.push_str("</");
        out.push_str(&tag);
        out.push('>');
    }
}

fn status_line(status: u16) -> String {
    let reason = axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    format!("{status} {reason}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_missing_and_gone() {
        let mut answer = Multistatus::new(1024);
        answer
            .push(Reply::Props {
                href: "/calendars/a/".into(),
                found: vec![(Name::new(DAV, "displayname"), escape("A & B").into_owned())],
                missing: vec![Name::new("urn:x", "odd")],
            })
            .unwrap();
        answer
            .push(Reply::Status {
                href: "/calendars/a/x.ics".into(),
                status: 404,
            })
            .unwrap();
        let body = answer.finish(Some("urn:t"));
        assert!(body.contains("<D:displayname>A &amp; B</D:displayname>"));
        assert!(body.contains(r#"<X:odd xmlns:X="urn:x"/>"#));
        assert!(body.contains("<D:status>HTTP/1.1 404 Not Found</D:status>"));
        assert!(body.ends_with("<D:sync-token>urn:t</D:sync-token></D:multistatus>"));
        assert!(super::super::xml::parse(&body).is_ok());
    }

    #[test]
    fn an_answer_past_its_limit_is_refused_with_507() {
        let mut answer = Multistatus::new(300);
        let gone = |n: usize| Reply::Status {
            href: format!("/calendars/a/{n}.ics"),
            status: 404,
        };
        answer.push(gone(1)).unwrap();
        let refused = (2..10).find_map(|n| answer.push(gone(n)).err()).unwrap();
        match refused {
            DavRefusal::Status(status, message) => {
                assert_eq!(status, StatusCode::INSUFFICIENT_STORAGE);
                assert!(message.contains("ask for fewer"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
