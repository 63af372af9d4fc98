//! The WebDAV XML tree (`crate::webdav::xml`, shared with the CalDAV
//! client), with the server's cap on what one request body may hold.

pub use crate::webdav::xml::*;

use super::limits::MAX_XML_NODES;

/// Parses a request body: at most [`MAX_XML_NODES`] elements and
/// attributes, so a small body of many tiny elements cannot become a tree
/// many times its size.
pub fn parse_request(body: &str) -> Result<Element, String> {
    parse_within(body, MAX_XML_NODES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_bodies_are_capped_in_nodes_and_depth() {
        let elements = |n: usize| format!("<a xmlns='DAV:'>{}</a>", "<b/>".repeat(n));
        // The root and its `xmlns` attribute are two nodes.
        assert!(parse_request(&elements(MAX_XML_NODES - 2)).is_ok());
        let refused = parse_request(&elements(MAX_XML_NODES - 1)).unwrap_err();
        assert!(refused.contains("more than 20000"), "{refused}");
        // Attributes count as nodes too.
        let attributes = format!("<a xmlns='DAV:' {}/>", {
            (0..MAX_XML_NODES)
                .map(|i| format!("x{i}=''"))
                .collect::<Vec<_>>()
                .join(" ")
        });
        assert!(parse_request(&attributes).is_err());
        let deep = format!("{}{}", "<a>".repeat(100_000), "</a>".repeat(100_000));
        assert_eq!(
            parse_request(&deep).unwrap_err(),
            "the XML is nested too deeply"
        );
    }
}
