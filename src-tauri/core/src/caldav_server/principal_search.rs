//! `DAV:principal-property-search` (RFC 3744 §9.4), the report a client
//! sends to find principals by name. The server has one principal (the
//! token's owner), so the answer is that principal when the search
//! matches its properties, and nothing otherwise.

use quick_xml::escape::unescape;

use super::error::DavRefusal;
use super::limits::MAX_ANSWER_BYTES;
use super::multistatus::Multistatus;
use super::propfind::Wanted;
use super::props::Subject;
use super::xml::{DAV, Element};

/// The `207` body answering search `root`.
pub fn answer(root: &Element) -> Result<String, DavRefusal> {
    let searches: Vec<&Element> = root
        .children
        .iter()
        .filter(|c| c.name.is(DAV, "property-search"))
        .collect();
    let any_of = root.attribute("test") == Some("anyof");
    let found = |search: &&Element| matches_principal(search);
    let matched = if any_of && !searches.is_empty() {
        searches.iter().any(found)
    } else {
        searches.iter().all(found)
    };
    let mut answer = Multistatus::new(MAX_ANSWER_BYTES);
    if matched {
        let wanted = match Wanted::of(root)? {
            Wanted::Props(names) => Wanted::Props(names),
            _ => Wanted::All,
        };
        answer.push(wanted.reply(&Subject::Principal))?;
    }
    Ok(answer.finish(None))
}

/// Whether one `property-search` (its `prop` names and `match` text)
/// matches the principal: the text is in one of the named properties,
/// ignoring case (RFC 3744's default, `contains`).
fn matches_principal(search: &Element) -> bool {
    let wanted = search
        .child(DAV, "match")
        .map(|m| m.text.to_lowercase())
        .unwrap_or_default();
    let Some(prop) = search.child(DAV, "prop") else {
        return false;
    };
    prop.children.iter().any(|property| {
        Subject::Principal
            .value(&property.name)
            .is_some_and(|value| {
                let value = unescape(&value).map(|v| v.into_owned()).unwrap_or(value);
                value.to_lowercase().contains(&wanted)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caldav_server::xml::parse;

    fn search(body: &str) -> String {
        answer(&parse(body).unwrap()).unwrap()
    }

    const BY_NAME: &str = r#"<D:principal-property-search xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
        <D:property-search><D:prop><D:displayname/></D:prop><D:match>alman</D:match></D:property-search>
        <D:prop><C:calendar-home-set/><D:displayname/></D:prop></D:principal-property-search>"#;

    #[test]
    fn a_name_the_principal_has_finds_it_with_its_calendar_home() {
        let body = search(BY_NAME);
        assert!(body.contains("<D:href>/principal/</D:href>"), "{body}");
        assert!(body.contains("/calendars/"), "{body}");
        assert!(body.contains("Almanac"), "{body}");
    }

    #[test]
    fn another_name_finds_nobody() {
        let body = search(&BY_NAME.replace("alman", "bob"));
        assert!(!body.contains("<D:response>"), "{body}");
    }

    #[test]
    fn a_search_without_a_filter_lists_the_principal() {
        let body = search(
            r#"<D:principal-property-search xmlns:D="DAV:"><D:prop><D:displayname/></D:prop></D:principal-property-search>"#,
        );
        assert!(body.contains("<D:href>/principal/</D:href>"), "{body}");
    }
}
