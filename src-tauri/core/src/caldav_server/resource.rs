//! `GET`, `PUT` and `DELETE` of event resources, with ETags.
//!
//! A `PUT` to an existing resource is an *update* of its event through the
//! engine's ordinary write path, sending only the fields the client changed
//! ([`crate::ics::read::changes`]): a Full Note keeps its body, its unknown
//! frontmatter keys and the fields iCalendar cannot express. A `PUT` to a
//! new name creates the event with the client's `UID`. `If-Match` and
//! `If-None-Match` are honoured (`412` when they fail), so a client never
//! overwrites a change it has not seen. A series' modified and cancelled
//! occurrences (`RECURRENCE-ID`) follow the series (`overrides`).

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::collection::{Listings, ServedResource};
use super::error::DavRefusal;
use super::href;
use super::kept::Collection;
use crate::api::{AuthorizedApi, EventOptions};
use crate::calendar::{Calendar, EventFields, SourceInfo};
use crate::ics::read::changes;
use crate::ics::series::read_series;

/// Resource `name` of calendar `id`, and where to find it.
pub struct Place<'a> {
    pub calendar: &'a Calendar,
    pub listings: &'a Listings,
    pub id: &'a str,
    pub name: &'a str,
}

impl Place<'_> {
    /// The calendar's resources, and the index of this one if it exists.
    fn find(&self) -> Result<(Arc<Collection>, Option<usize>), DavRefusal> {
        let all = self
            .listings
            .resources(self.calendar, self.id)
            .ok_or_else(|| DavRefusal::not_found(self.id))?;
        let index = all.iter().position(|r| *r.name == *self.name);
        Ok((all, index))
    }

    /// Writes go to note calendars only; a feed is read-only (`403`).
    fn writable(&self) -> Result<SourceInfo, DavRefusal> {
        let source = self
            .calendar
            .sources()
            .into_iter()
            .find(|s| s.id == self.id)
            .ok_or_else(|| DavRefusal::not_found(self.id))?;
        if source.editable {
            Ok(source)
        } else {
            Err(DavRefusal::forbidden(format!(
                "calendar `{}` is read-only",
                self.id
            )))
        }
    }
}

/// `GET` / `HEAD`: the resource's iCalendar text.
pub fn get(place: &Place<'_>, head: bool) -> Result<Response, DavRefusal> {
    let (all, index) = place.find()?;
    let resource = &all[index.ok_or_else(|| DavRefusal::not_found(place.name))?];
    let body = if head {
        String::new()
    } else {
        resource.ics(place.calendar.display_timezone())
    };
    Ok((
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                super::components::content_type(resource).to_string(),
            ),
            (header::ETAG, resource.etag.to_string()),
        ],
        body,
    )
        .into_response())
}

/// `PUT`: creates or updates the event.
pub fn put(
    api: &AuthorizedApi,
    place: &Place<'_>,
    headers: &HeaderMap,
    body: &str,
) -> Result<Response, DavRefusal> {
    let source = place.writable()?;
    let Place {
        calendar,
        listings,
        id,
        name,
    } = *place;
    let display_tz = calendar.display_timezone();
    if let Some(kind) = crate::ics::todo::unsupported_component(body) {
        return Err(DavRefusal::Precondition(
            StatusCode::FORBIDDEN,
            "C:supported-calendar-component",
            format!("this calendar holds events (VEVENT) and tasks (VTODO), not {kind}"),
        ));
    }
    // Only a calendar a client limited is held to its set here; the others
    // take what they took before the limit existed.
    let held = super::components::held(&source);
    if let Some(kind) = super::components::in_text(body)
        .into_iter()
        .find(|kind| source.components.is_some() && !held.contains(kind))
    {
        return Err(DavRefusal::Precondition(
            StatusCode::FORBIDDEN,
            "C:supported-calendar-component",
            format!(
                "calendar `{id}` holds only {}, not {kind}",
                held.join(" and ")
            ),
        ));
    }
    let client = read_series(body, display_tz).map_err(|reason| {
        DavRefusal::Precondition(StatusCode::FORBIDDEN, "C:valid-calendar-data", reason)
    })?;
    let (all, index) = place.find()?;
    let existing = index.map(|i| &all[i]);
    preconditions(headers, existing)?;
    let status = match existing {
        Some(resource) => {
            if *client.master.uid != *resource.uid {
                // A resource is named by its event: another UID here would
                // be another event under this one's name.
                return Err(DavRefusal::Precondition(
                    StatusCode::CONFLICT,
                    "C:no-uid-conflict",
                    format!(
                        "this resource holds the event with UID `{}`; a PUT cannot change it \
                         (PUT the other event under a name of its own)",
                        resource.uid
                    ),
                ));
            }
            let event = &resource.events[0];
            let served = read_series(&resource.ics(display_tz), display_tz).map_err(|e| {
                tracing::error!(error = %e, "a served event does not read back");
                DavRefusal::Status(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the event cannot be compared".into(),
                )
            })?;
            let mut patch = changes(&client.master.fields, &served.master.fields);
            super::overrides::keep_detached(&mut patch, resource);
            super::overrides::check(calendar, &event.id, &patch, &client, Some(&served))?;
            let mut series_id = event.id.clone();
            if patch != EventFields::default() {
                // A renamed note gets a new id; pinning the UID in its
                // frontmatter keeps the resource where the client knows it.
                // Only a new title or day renames it: any other edit (a
                // task completed) leaves the rest of the note as it was.
                // (A daily-note item moved by an edit shows up as a new
                // resource instead: its inline fields cannot hold an id.)
                let renames = patch.title.is_some() || patch.date.is_some();
                if renames && event.uid.is_none() && event.id.starts_with("fullnote:") {
                    patch.uid = Some(Some(resource.uid.to_string()));
                }
                series_id = api
                    .update_event(&event.id, patch, EventOptions::default())?
                    .id;
            }
            super::overrides::apply(api, &series_id, &client, Some(&served))?;
            StatusCode::NO_CONTENT
        }
        None => {
            if all.iter().any(|r| *r.uid == *client.master.uid) {
                return Err(DavRefusal::Precondition(
                    StatusCode::CONFLICT,
                    "C:no-uid-conflict",
                    format!(
                        "an event with UID `{}` already exists under another name",
                        client.master.uid
                    ),
                ));
            }
            let mut fields = client.master.fields.clone();
            fields.uid = Some(Some(client.master.uid.clone()));
            if fields.date.is_none() {
                // A task without DTSTART or DUE (see `ics::todo`).
                let today = chrono::Utc::now().with_timezone(&display_tz).date_naive();
                fields.date = Some(Some(today.format("%Y-%m-%d").to_string()));
                fields.all_day = Some(true);
            }
            let options = EventOptions {
                number_taken_name: true,
                ..EventOptions::default()
            };
            let series = api.create_event(id, fields, options)?;
            let unchanged = EventFields::default();
            let written = super::overrides::check(calendar, &series.id, &unchanged, &client, None)
                .and_then(|()| super::overrides::apply(api, &series.id, &client, None));
            if let Err(error) = written {
                // All or nothing: no series left without what was asked of it.
                let _ = api.delete_event(&series.id, EventOptions::default());
                return Err(error);
            }
            StatusCode::CREATED
        }
    };
    // Where the event is now, and its new ETag.
    let now = listings.resources(calendar, id).unwrap_or_default();
    let now = now
        .iter()
        .find(|r| *r.uid == *client.master.uid || Some(&*r.name) == existing.map(|e| &*e.name));
    let mut response = status.into_response();
    if let Some(now) = now {
        if let Ok(etag) = HeaderValue::from_str(&now.etag) {
            response.headers_mut().insert(header::ETAG, etag);
        }
        if *now.name != *name
            && let Ok(location) = HeaderValue::from_str(&href::resource(id, &now.name))
        {
            response.headers_mut().insert(header::LOCATION, location);
        }
    }
    Ok(response)
}

/// `DELETE`: deletes the event.
pub fn delete(
    api: &AuthorizedApi,
    place: &Place<'_>,
    headers: &HeaderMap,
) -> Result<Response, DavRefusal> {
    place.writable()?;
    let (all, index) = place.find()?;
    let resource = &all[index.ok_or_else(|| DavRefusal::not_found(place.name))?];
    preconditions(headers, Some(resource))?;
    api.delete_event(&resource.events[0].id, EventOptions::default())?;
    // The notes detached from a series go with it: they are its resource.
    for detached in resource.events[1..]
        .iter()
        .filter(|e| e.recurrence_id.is_some())
    {
        api.delete_event(&detached.id, EventOptions::default())?;
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `If-Match` / `If-None-Match` against the resource as it is now.
fn preconditions(headers: &HeaderMap, existing: Option<&ServedResource>) -> Result<(), DavRefusal> {
    let listed = |name: header::HeaderName| {
        headers.get(name).and_then(|v| v.to_str().ok()).map(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/").to_string())
                .collect::<Vec<_>>()
        })
    };
    if let Some(tags) = listed(header::IF_MATCH) {
        let matches = existing.is_some_and(|r| tags.iter().any(|t| t == "*" || **t == *r.etag));
        if !matches {
            return Err(DavRefusal::precondition_failed(match existing {
                Some(_) => "the resource changed since it was read (If-Match)",
                None => "the resource does not exist (If-Match)",
            }));
        }
    }
    if let Some(tags) = listed(header::IF_NONE_MATCH)
        && let Some(resource) = existing
        && tags.iter().any(|t| t == "*" || **t == *resource.etag)
    {
        return Err(DavRefusal::precondition_failed(
            "the resource already exists (If-None-Match)",
        ));
    }
    Ok(())
}
