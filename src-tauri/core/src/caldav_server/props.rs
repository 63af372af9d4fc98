//! The WebDAV / CalDAV properties of each kind of resource, as the inner XML
//! of their elements. A property a resource does not have is `None` (a
//! `404` propstat).

use chrono_tz::Tz;
use quick_xml::escape::escape;

use super::collection::ServedResource;
use super::href::{self, HOME, PRINCIPAL};
use super::multistatus::href as href_xml;
use super::xml::{APPLE_ICAL, CALDAV, CALSERVER, DAV, Name};
use crate::calendar::SourceInfo;

/// What a PROPFIND or REPORT describes.
pub enum Subject<'a> {
    Root,
    Principal,
    Home,
    Collection {
        source: &'a SourceInfo,
        /// The collection's sync token (also its ctag).
        token: &'a str,
    },
    ServedResource {
        /// The calendar holding it.
        source: &'a SourceInfo,
        resource: &'a ServedResource,
        display_tz: Tz,
    },
}

impl Subject<'_> {
    pub fn href(&self) -> String {
        match self {
            Subject::Root => "/".to_string(),
            Subject::Principal => PRINCIPAL.to_string(),
            Subject::Home => HOME.to_string(),
            Subject::Collection { source, .. } => href::collection(&source.id),
            Subject::ServedResource {
                source, resource, ..
            } => resource.href(&source.id),
        }
    }

    /// What `allprop` answers (RFC 4918 leaves out the expensive ones:
    /// `calendar-data` is asked for by name).
    pub fn all_props(&self) -> Vec<Name> {
        let dav = |local| Name::new(DAV, local);
        match self {
            Subject::ServedResource { .. } => {
                vec![dav("resourcetype"), dav("getetag"), dav("getcontenttype")]
            }
            Subject::Collection { .. } => vec![
                dav("resourcetype"),
                dav("displayname"),
                dav("sync-token"),
                Name::new(CALSERVER, "getctag"),
                Name::new(CALDAV, "supported-calendar-component-set"),
                Name::new(APPLE_ICAL, "calendar-color"),
            ],
            _ => vec![
                dav("resourcetype"),
                dav("displayname"),
                dav("current-user-principal"),
            ],
        }
    }

    /// The value of property `name`, if this resource has it.
    pub fn value(&self, name: &Name) -> Option<String> {
        let principal = || href_xml(PRINCIPAL);
        match (name.ns.as_str(), name.local.as_str()) {
            (DAV, "current-user-principal") | (DAV, "principal-URL") | (DAV, "owner") => {
                Some(principal())
            }
            (DAV, "principal-collection-set") => Some(href_xml("/")),
            (CALDAV, "calendar-home-set") => Some(href_xml(HOME)),
            (DAV, "resourcetype") => Some(match self {
                Subject::Root | Subject::Home => "<D:collection/>".into(),
                Subject::Principal => "<D:collection/><D:principal/>".into(),
                Subject::Collection { .. } => "<D:collection/><C:calendar/>".into(),
                Subject::ServedResource { .. } => String::new(),
            }),
            (DAV, "displayname") => match self {
                Subject::Root => Some("Almanac".into()),
                Subject::Principal => Some("Almanac".into()),
                Subject::Home => Some("Calendars".into()),
                Subject::Collection { source, .. } => {
                    Some(escape(source.name.as_str()).into_owned())
                }
                Subject::ServedResource { .. } => None,
            },
            (DAV, "current-user-privilege-set") => Some(privileges(self)),
            (DAV, "supported-report-set") => match self {
                Subject::Collection { .. } => Some(
                    [
                        "C:calendar-query",
                        "C:calendar-multiget",
                        "D:sync-collection",
                    ]
                    .iter()
                    .map(|r| {
                        format!(
                            "<D:supported-report><D:report><{r}/></D:report></D:supported-report>"
                        )
                    })
                    .collect(),
                ),
                _ => None,
            },
            _ => self.own_value(name),
        }
    }

    /// Properties only collections or resources have.
    fn own_value(&self, name: &Name) -> Option<String> {
        match self {
            Subject::Collection { source, token } => {
                match (name.ns.as_str(), name.local.as_str()) {
                    (DAV, "sync-token") | (CALSERVER, "getctag") => {
                        Some(escape(*token).into_owned())
                    }
                    (CALDAV, "supported-calendar-component-set") => {
                        Some(super::components::supported_set(source))
                    }
                    (APPLE_ICAL, "calendar-color") => {
                        Some(escape(source.color.as_str()).into_owned())
                    }
                    (APPLE_ICAL, "calendar-order") => source.order.map(|o| o.to_string()),
                    (CALDAV, "calendar-description") => {
                        Some(escape(source.name.as_str()).into_owned())
                    }
                    _ => None,
                }
            }
            Subject::ServedResource {
                resource,
                display_tz,
                ..
            } => match (name.ns.as_str(), name.local.as_str()) {
                (DAV, "getetag") => Some(escape(&*resource.etag).into_owned()),
                (DAV, "getcontenttype") => Some(super::components::content_type(resource).into()),
                (CALDAV, "calendar-data") => Some(resource.calendar_data(*display_tz).to_string()),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Read everywhere; write where the calendar takes writes (as its kind
/// says: note, Tasks and CalDAV calendars, not feeds), on the calendar and
/// on each of its resources alike, so clients show feeds as read-only.
fn privileges(subject: &Subject<'_>) -> String {
    let writable = match subject {
        Subject::Collection { source, .. } | Subject::ServedResource { source, .. } => {
            source.editable
        }
        Subject::Root | Subject::Principal | Subject::Home => false,
    };
    let mut names = vec!["D:read", "C:read-free-busy"];
    if writable {
        names.extend([
            "D:write",
            "D:write-content",
            "D:write-properties",
            "D:bind",
            "D:unbind",
        ]);
    }
    names
        .iter()
        .map(|p| format!("<D:privilege><{p}/></D:privilege>"))
        .collect()
}
