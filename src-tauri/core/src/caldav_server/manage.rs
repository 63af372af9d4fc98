//! Calendar collections managed from a client (RFC 4791 §5.3.1, RFC 4918
//! §9.2): `MKCALENDAR` makes a notes calendar, `PROPPATCH` renames,
//! recolours and reorders one, and `DELETE` of a collection is refused with a reason a
//! client can show. The rules of who may are the core's
//! ([`crate::api::client_calendars`]).

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::error::DavRefusal;
use super::href;
use super::multistatus::{Multistatus, Reply};
use super::xml::{self, APPLE_ICAL, CALDAV, DAV, Element, Name};
use crate::api::AuthorizedApi;
use crate::api::client_calendars::CalendarStyle;

/// Longest collection id (URL segment) a client may choose.
const MAX_ID_CHARS: usize = 100;

/// `MKCALENDAR /calendars/<id>/`: a new notes calendar named by the body's
/// `displayname` (else `id`), coloured by its `calendar-color`, sorted by
/// its `calendar-order`. It holds events and tasks, or only the one its
/// `supported-calendar-component-set` names; a set naming anything else
/// (journals) is refused. Other properties (description, time zone) are not
/// kept.
pub fn mkcalendar(
    api: &AuthorizedApi,
    id: &str,
    exists: bool,
    body: &str,
) -> Result<Response, DavRefusal> {
    if exists {
        return Err(DavRefusal::Status(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("a calendar `{id}` exists already"),
        ));
    }
    if id.chars().count() > MAX_ID_CHARS || id.chars().any(|c| c.is_control()) {
        return Err(DavRefusal::forbidden(format!(
            "a calendar's URL segment is at most {MAX_ID_CHARS} characters, without control characters"
        )));
    }
    let style = if body.trim().is_empty() {
        CalendarStyle::default()
    } else {
        let root = xml::parse_request(body).map_err(DavRefusal::bad_request)?;
        let mut style = CalendarStyle::default();
        for set in root.children.iter().filter(|c| c.name.is(DAV, "set")) {
            for prop in set.children.iter().filter(|c| c.name.is(DAV, "prop")) {
                if let Some(components) = components(prop)? {
                    style.components = Some(components);
                }
                read_style(prop, &mut style);
                if let Some(order) = prop.children.iter().find(|p| is_order(p))
                    && order_of(order).is_none()
                {
                    return Err(DavRefusal::bad_request(format!(
                        "calendar-order `{}` is not an integer",
                        order.text.trim()
                    )));
                }
            }
        }
        style
    };
    api.create_note_calendar(id, &style)?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, href::collection(id))],
    )
        .into_response())
}

/// A notes calendar holds events (`VEVENT`) and tasks (`VTODO`): a
/// `supported-calendar-component-set` naming one of them limits it to that
/// one (`Some`); both, or none named, is a calendar of both (`None`). A set
/// asking for another kind is refused (RFC 4791 §5.3.1) rather than a
/// calendar made that cannot take it.
fn components(prop: &Element) -> Result<Option<Vec<String>>, DavRefusal> {
    let sets = prop
        .children
        .iter()
        .filter(|c| c.name.is(CALDAV, "supported-calendar-component-set"));
    let mut named: Vec<String> = Vec::new();
    for set in sets {
        for comp in set.children.iter().filter(|c| c.name.is(CALDAV, "comp")) {
            let name = comp.attribute("name").unwrap_or_default().trim();
            let upper = name.to_ascii_uppercase();
            if crate::settings::CALENDAR_COMPONENTS.contains(&upper.as_str()) {
                if !named.contains(&upper) {
                    named.push(upper);
                }
            } else {
                return Err(DavRefusal::Precondition(
                    StatusCode::FORBIDDEN,
                    "C:supported-calendar-component-set",
                    format!(
                        "a calendar here holds events (VEVENT) and tasks (VTODO), not `{name}`"
                    ),
                ));
            }
        }
    }
    Ok((named.len() == 1).then_some(named))
}

fn is_order(property: &Element) -> bool {
    property.name.is(APPLE_ICAL, "calendar-order")
}

/// A `calendar-order` value: an integer (Apple clients send one).
fn order_of(property: &Element) -> Option<i64> {
    property.text.trim().parse().ok()
}

fn read_style(prop: &Element, style: &mut CalendarStyle) {
    for property in &prop.children {
        if property.name.is(DAV, "displayname") {
            style.name = Some(property.text.clone());
        } else if property.name.is(APPLE_ICAL, "calendar-color") {
            style.color = Some(property.text.clone());
        } else if is_order(property) {
            style.order = order_of(property);
        }
    }
}

/// `PROPPATCH` of a calendar collection: `displayname`, `calendar-color`
/// and `calendar-order` (an integer) set; anything else (removing them,
/// other properties) refused with `403` for it and `424` for the rest, changing nothing
/// (a `PROPPATCH` is all or nothing).
pub fn proppatch(api: &AuthorizedApi, id: &str, body: &str) -> Result<Response, DavRefusal> {
    let root = xml::parse_request(body).map_err(DavRefusal::bad_request)?;
    if !root.name.is(DAV, "propertyupdate") {
        return Err(DavRefusal::bad_request(
            "a PROPPATCH body is a DAV:propertyupdate",
        ));
    }
    let mut style = CalendarStyle::default();
    let mut asked: Vec<(Name, bool)> = Vec::new();
    for update in &root.children {
        let set = update.name.is(DAV, "set");
        if !set && !update.name.is(DAV, "remove") {
            continue;
        }
        for prop in update.children.iter().filter(|c| c.name.is(DAV, "prop")) {
            for property in &prop.children {
                let settable = set
                    && (property.name.is(DAV, "displayname")
                        || property.name.is(APPLE_ICAL, "calendar-color")
                        || (is_order(property) && order_of(property).is_some()));
                asked.push((property.name.clone(), settable));
            }
            if set {
                read_style(prop, &mut style);
            }
        }
    }
    let all_settable = asked.iter().all(|(_, settable)| *settable);
    if all_settable && !style.is_empty() {
        api.restyle_calendar(id, &style)?;
    }
    let statuses = asked
        .into_iter()
        .map(|(name, settable)| {
            let status = match (all_settable, settable) {
                (true, _) => 200,
                (false, false) => 403,
                (false, true) => 424,
            };
            (name, status)
        })
        .collect();
    let mut answer = Multistatus::new(usize::MAX);
    answer.push(Reply::PropStatuses {
        href: href::collection(id),
        statuses,
    })?;
    Ok((
        StatusCode::MULTI_STATUS,
        [(header::CONTENT_TYPE, "application/xml; charset=utf-8")],
        answer.finish(None),
    )
        .into_response())
}

/// `DELETE` of a calendar collection: refused; a calendar is removed in
/// Almanac's settings, and never takes its notes with it.
pub fn refuse_delete(id: &str) -> DavRefusal {
    DavRefusal::forbidden(format!(
        "calendar `{id}` is not deleted from a client: remove it in Almanac's settings \
         (Calendars), which keeps its notes in the vault"
    ))
}
