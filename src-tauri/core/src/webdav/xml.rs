//! WebDAV XML read into a small namespace-resolved tree (quick-xml does the
//! parsing), and the namespaces CalDAV uses. Shared by the CalDAV server
//! (request bodies, `crate::caldav_server::xml` adds its cap) and the CalDAV
//! client (`crate::calendar::sources::caldav`, a server's multistatus).

use quick_xml::NsReader;
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;

pub const DAV: &str = "DAV:";
pub const CALDAV: &str = "urn:ietf:params:xml:ns:caldav";
pub const CALSERVER: &str = "http://calendarserver.org/ns/";
pub const APPLE_ICAL: &str = "http://apple.com/ns/ical/";

/// Deeper nesting than this is no CalDAV request.
const MAX_DEPTH: usize = 64;

/// A qualified name: namespace URI and local name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    pub ns: String,
    pub local: String,
}

impl Name {
    pub fn new(ns: &str, local: &str) -> Name {
        Name {
            ns: ns.to_string(),
            local: local.to_string(),
        }
    }

    pub fn is(&self, ns: &str, local: &str) -> bool {
        self.ns == ns && self.local == local
    }
}

/// One element: its name, attributes (by local name), text and children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: Name,
    pub attributes: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    /// The first child called `ns:local`.
    pub fn child(&self, ns: &str, local: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name.is(ns, local))
    }

    /// Every element called `ns:local` below this one, depth first.
    pub fn descendants<'a>(&'a self, ns: &str, local: &str, out: &mut Vec<&'a Element>) {
        for child in &self.children {
            if child.name.is(ns, local) {
                out.push(child);
            }
            child.descendants(ns, local, out);
        }
    }

    pub fn attribute(&self, local: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(name, _)| name == local)
            .map(|(_, value)| value.as_str())
    }
}

/// The namespaces of the `xmlns` and `xml` prefixes: no other prefix may be
/// bound to them, so an element in one could not be written back.
const RESERVED_NAMESPACES: [&str; 2] = [
    "http://www.w3.org/2000/xmlns/",
    "http://www.w3.org/XML/1998/namespace",
];

/// Parses a whole document into its root element.
pub fn parse(body: &str) -> Result<Element, String> {
    parse_within(body, usize::MAX)
}

/// Parses `body`, refusing more than `max_nodes` elements and attributes.
/// The tree is built without recursion, and quick-xml expands no entities
/// (only the predefined ones and character references are resolved here),
/// so neither the stack nor the text can grow past the body's own size.
pub fn parse_within(body: &str, max_nodes: usize) -> Result<Element, String> {
    let mut reader = NsReader::from_str(body);
    let mut stack: Vec<Element> = Vec::new();
    let mut nodes = 0usize;
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(|e| e.to_string())?;
        let ns = match ns {
            ResolveResult::Bound(ns) => {
                let ns = ns.0.to_string();
                if let Some(bad) = ns.chars().find(|c| !is_xml_char(*c)) {
                    return Err(format!("namespace `{}` holds {bad:?}", ns.escape_debug()));
                }
                ns
            }
            ResolveResult::Unbound => String::new(),
            ResolveResult::Unknown(prefix) => {
                return Err(format!("undeclared namespace prefix `{prefix}`"));
            }
        };
        match event {
            Event::Start(ref start) | Event::Empty(ref start) => {
                let empty = matches!(event, Event::Empty(_));
                let local = start.local_name().as_ref().to_string();
                // Names are written back in answers (a `404` propstat): one
                // that is not an XML name would make the answer ill-formed.
                if !is_local_name(&local) {
                    return Err(format!(
                        "`{}` is not an XML element name",
                        local.escape_debug()
                    ));
                }
                // Nor can an element in a namespace reserved to XML itself
                // (`<xmlns:x/>`, which the namespaces spec forbids, or
                // `xml:`): no prefix may be declared for it in the answer.
                if RESERVED_NAMESPACES.contains(&ns.as_str()) {
                    return Err(format!(
                        "`{}` is in a namespace reserved to XML (`{ns}`)",
                        local.escape_debug()
                    ));
                }
                let element = Element {
                    name: Name { ns, local },
                    attributes: start
                        .attributes()
                        .filter_map(Result::ok)
                        .map(|a| {
                            let key = a.key.local_name().as_ref().to_string();
                            let value = a
                                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .map(|v| v.into_owned())
                                .unwrap_or_default();
                            (key, value)
                        })
                        .collect(),
                    text: String::new(),
                    children: Vec::new(),
                };
                nodes += 1 + element.attributes.len();
                if nodes > max_nodes {
                    return Err(format!(
                        "the XML has more than {max_nodes} elements and attributes"
                    ));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err("the XML is nested too deeply".into());
                }
                stack.push(element);
                // An empty root (`<multistatus/>`) is the whole document.
                if empty && let Some(root) = close(&mut stack)? {
                    return Ok(root);
                }
            }
            Event::End(_) => {
                if let Some(root) = close(&mut stack)? {
                    return Ok(root);
                }
            }
            Event::Text(text) => {
                if let Some(current) = stack.last_mut() {
                    current.text.push_str(&text.xml10_content());
                }
            }
            Event::CData(data) => {
                if let Some(current) = stack.last_mut() {
                    current.text.push_str(&data);
                }
            }
            Event::GeneralRef(reference) => {
                let name = reference.to_string();
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(ch)) => ch.to_string(),
                    _ => quick_xml::escape::resolve_predefined_entity(&name)
                        .ok_or_else(|| format!("unknown entity `&{name};`"))?
                        .to_string(),
                };
                if let Some(current) = stack.last_mut() {
                    current.text.push_str(&resolved);
                }
            }
            Event::Eof => return Err("the XML body ends before its root element closes".into()),
            _ => {}
        }
    }
}

/// An XML 1.0 name without a prefix (`NCName`: a `Name` with no colon).
fn is_local_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_name_start) && chars.all(is_name_char)
}

fn is_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
        | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
        | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
        | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
        | '\u{10000}'..='\u{EFFFF}')
}

fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// A character XML 1.0 allows in a document at all.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// Closes the innermost element; returns the root once it closes.
fn close(stack: &mut Vec<Element>) -> Result<Option<Element>, String> {
    let done = stack.pop().ok_or("unbalanced XML")?;
    match stack.last_mut() {
        Some(parent) => {
            parent.children.push(done);
            Ok(None)
        }
        None => Ok(Some(done)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_resolve_and_entities_decode() {
        let root = parse(
            r#"<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
               <d:prop><d:getetag/><c:calendar-data/></d:prop>
               <d:href>/a&amp;b&#x41;</d:href></d:propfind>"#,
        )
        .unwrap();
        assert!(root.name.is(DAV, "propfind"));
        let prop = root.child(DAV, "prop").unwrap();
        assert!(prop.children[1].name.is(CALDAV, "calendar-data"));
        assert_eq!(root.child(DAV, "href").unwrap().text, "/a&bA");
    }

    #[test]
    fn entities_other_than_the_predefined_are_refused() {
        let bomb = r#"<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "xxxxxxxxxx"><!ENTITY y "&x;&x;&x;&x;">]><a xmlns="DAV:">&y;</a>"#;
        assert!(parse(bomb).unwrap_err().contains("unknown entity"));
    }

    #[test]
    fn names_that_cannot_be_written_back_are_refused() {
        // The fuzzers' body: quick-xml reads `<">` as an element called `"`.
        let echoed = "<d:propfind xmlns:d=\"DAV:\" x>/<d:prop><\">\n\"/></d:prop>\n</d:propfind>";
        assert!(
            parse(echoed)
                .unwrap_err()
                .contains("not an XML element name")
        );
        assert!(parse("<a xmlns='DAV:'><b&c/></a>").is_err());
        assert!(parse("<a xmlns='DAV:'><1b/></a>").is_err());
        let control = "<a xmlns='DAV:'><x:b xmlns:x='urn:\u{1}'/></a>";
        assert!(parse(control).unwrap_err().contains("namespace"));
        // The fuzzers' body: a property in the `xmlns` prefix's namespace.
        let reserved =
            "<d:propfind xmlns:d=\"DAV:\"><d:prop><xmlns:cdar-home-set/></d:prop></d:propfind>";
        assert!(parse(reserved).unwrap_err().contains("reserved to XML"));
        assert!(parse("<a xmlns='DAV:'><xml:lang/></a>").is_err());
        let fine = parse("<a xmlns='DAV:'><b-1.x xmlns='urn:x&amp;y'/><ü/></a>").unwrap();
        assert_eq!(fine.children.len(), 2);
    }

    #[test]
    fn broken_xml_is_an_error() {
        assert!(parse("<a xmlns='DAV:'><b></a>").is_err());
        assert!(parse("<x:a/>").is_err());
        assert!(parse("<a>").is_err());
    }
}
