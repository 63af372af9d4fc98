//! Which iCalendar components a collection holds and a query asks for:
//! events are `VEVENT`s, tasks (events with `completed`) `VTODO`s.
//!
//! Note calendars (Full Note folders, daily notes) hold both; an Obsidian
//! Tasks calendar holds tasks only; a feed holds what it was read from,
//! which Almanac keeps as events.

use super::collection::ServedResource;
use super::xml::Element;
use crate::calendar::SourceInfo;

/// The components a calendar collection of `source` holds
/// (`supported-calendar-component-set`, RFC 4791 §5.2.3).
/// A calendar a client made for one kind (`MKCALENDAR` with a component
/// set, kept as the source's `components`) holds only that kind.
pub fn held(source: &SourceInfo) -> &'static [&'static str] {
    let by_kind = source.kind.components();
    let Some(limited) = &source.components else {
        return by_kind;
    };
    let wants = |kind: &str| by_kind.contains(&kind) && limited.iter().any(|c| c == kind);
    match (wants("VEVENT"), wants("VTODO")) {
        (true, false) => &["VEVENT"],
        (false, true) => &["VTODO"],
        _ => by_kind,
    }
}

/// The kinds of component (`VEVENT`, `VTODO`) a client's iCalendar text
/// holds, as its `BEGIN:` lines name them.
pub fn in_text(text: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    for line in text.lines().map(str::trim) {
        let Some((begin, kind)) = line.split_once(':') else {
            continue;
        };
        if !begin.eq_ignore_ascii_case("BEGIN") {
            continue;
        }
        let kind = match kind.trim().to_ascii_uppercase().as_str() {
            "VEVENT" => "VEVENT",
            "VTODO" => "VTODO",
            _ => continue,
        };
        if !found.contains(&kind) {
            found.push(kind);
        }
    }
    found
}

/// The `supported-calendar-component-set` property of `source`'s collection.
pub fn supported_set(source: &SourceInfo) -> String {
    held(source)
        .iter()
        .map(|c| format!(r#"<C:comp name="{c}"/>"#))
        .collect()
}

/// The component a resource is served as.
pub fn of_resource(resource: &ServedResource) -> &'static str {
    if resource.events.first().is_some_and(|e| e.is_task()) {
        "VTODO"
    } else {
        "VEVENT"
    }
}

/// The `Content-Type` of a resource.
pub fn content_type(resource: &ServedResource) -> &'static str {
    match of_resource(resource) {
        "VTODO" => "text/calendar; charset=utf-8; component=vtodo",
        _ => "text/calendar; charset=utf-8; component=vevent",
    }
}

/// The kind of resource a `calendar-query`'s `comp-filter`s select.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// No component named below `VCALENDAR`: every resource.
    Any,
    /// `VEVENT` or `VTODO`.
    Only(&'static str),
    /// A component this server holds none of (`VJOURNAL`, …).
    Nothing,
}

impl Asked {
    /// What the `comp-filter` elements of a query ask for.
    pub fn of(filters: &[&Element]) -> Asked {
        let mut asked = Asked::Any;
        for name in filters.iter().filter_map(|f| f.attribute("name")) {
            let name = name.trim().to_ascii_uppercase();
            let this = match name.as_str() {
                // Alarms are inside events and tasks: they narrow nothing.
                "VCALENDAR" | "VALARM" => continue,
                "VEVENT" => Asked::Only("VEVENT"),
                "VTODO" => Asked::Only("VTODO"),
                _ => return Asked::Nothing,
            };
            if asked != Asked::Any && asked != this {
                // Nested VEVENT and VTODO filters: no resource is both.
                return Asked::Nothing;
            }
            asked = this;
        }
        asked
    }

    /// Whether `resource` is of the kind asked.
    pub fn admits(self, resource: &ServedResource) -> bool {
        match self {
            Asked::Any => true,
            Asked::Only(kind) => of_resource(resource) == kind,
            Asked::Nothing => false,
        }
    }

    /// The engine's task filter for the kind asked.
    pub fn is_task(self) -> Option<bool> {
        match self {
            Asked::Only("VTODO") => Some(true),
            Asked::Only(_) => Some(false),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caldav_server::xml::{CALDAV, parse_request};
    use crate::calendar::{Completion, Event};

    fn asked(xml: &str) -> Asked {
        let root = parse_request(xml).unwrap();
        let mut filters = Vec::new();
        root.descendants(CALDAV, "comp-filter", &mut filters);
        Asked::of(&filters)
    }

    fn filter(inner: &str) -> String {
        format!(
            r#"<c:filter xmlns:c="urn:ietf:params:xml:ns:caldav"><c:comp-filter name="VCALENDAR">{inner}</c:comp-filter></c:filter>"#
        )
    }

    fn resource(completed: Option<Completion>) -> ServedResource {
        ServedResource {
            name: "a.ics".into(),
            etag: "\"1\"".into(),
            uid: "a".into(),
            events: [Event {
                completed,
                ..Event::default()
            }]
            .into(),
            expanded: None,
            kept: Default::default(),
        }
    }

    #[test]
    fn a_clients_text_names_the_kinds_it_holds() {
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nEND:VTIMEZONE\r\n\
                    begin:vtodo\r\nEND:VTODO\r\nBEGIN:VEVENT\r\nEND:VEVENT\r\n\
                    BEGIN:VTODO\r\nEND:VTODO\r\nEND:VCALENDAR\r\n";
        assert_eq!(in_text(text), ["VTODO", "VEVENT"]);
        assert!(in_text("BEGIN:VCALENDAR\r\nBEGIN:VJOURNAL\r\n").is_empty());
    }

    #[test]
    fn queries_select_events_tasks_or_nothing() {
        assert_eq!(asked(&filter("")), Asked::Any);
        assert_eq!(
            asked(&filter(r#"<c:comp-filter name="VTODO"/>"#)),
            Asked::Only("VTODO")
        );
        assert_eq!(
            asked(&filter(r#"<c:comp-filter name="vevent"/>"#)),
            Asked::Only("VEVENT")
        );
        assert_eq!(
            asked(&filter(r#"<c:comp-filter name="VJOURNAL"/>"#)),
            Asked::Nothing
        );
        let task = resource(Some(Completion::Open));
        let event = resource(None);
        assert!(Asked::Only("VTODO").admits(&task));
        assert!(!Asked::Only("VTODO").admits(&event));
        assert!(Asked::Only("VEVENT").admits(&event));
        assert!(Asked::Any.admits(&task));
        assert_eq!(Asked::Only("VTODO").is_task(), Some(true));
        assert_eq!(Asked::Only("VEVENT").is_task(), Some(false));
        assert_eq!(
            content_type(&task),
            "text/calendar; charset=utf-8; component=vtodo"
        );
    }
}
