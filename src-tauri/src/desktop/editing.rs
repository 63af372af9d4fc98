//! The commands the calendar window edits events with. They call the same
//! calendar engine the in-process API calls, as the user (no token: the
//! desktop UI is the user, as `settings_update` is `Actor::User`), so the
//! rules are the engine's. A refusal reaches the window in the API's error
//! shape plus the field it names, so the window shows it by that field.

use std::sync::Arc;

use almanac_core::api::{ApiError, EventOptions};
use almanac_core::calendar::{Calendar, Event, EventFields};
use almanac_core::history::{Author, acting_as};
use almanac_core::rest::RestError;
use almanac_reminders::{Opener, SystemOpener};
use serde::Serialize;
use serde_json::Value;
use tauri::State;

use crate::wiring::Services;

/// An engine refusal as the window shows it: `{"error", "message"}` as the
/// REST server answers, and the offending `field` when the engine names one.
#[derive(Debug, Serialize)]
pub struct EditError {
    error: String,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
}

impl From<ApiError> for EditError {
    fn from(error: ApiError) -> Self {
        // A conflict is a note of the same name: the title decides the name.
        let field = match &error {
            ApiError::Conflict(_) => Some("title".to_string()),
            _ => None,
        };
        let rest = RestError::from(error);
        let field = match &rest {
            RestError::BadRequest { field, .. } => Some(field.clone()),
            _ => field,
        };
        let body = rest.body();
        EditError {
            error: body.error,
            message: body.message,
            field,
        }
    }
}

impl EditError {
    /// A refusal of a line the user typed, said as the reason alone
    /// ("No date or time in …"), not "invalid `text`: …".
    pub(super) fn said_plainly(error: ApiError) -> Self {
        match error {
            ApiError::BadRequest { field, reason } => {
                let mut said = EditError::from(ApiError::bad_request(field, ""));
                said.message = reason;
                said
            }
            other => other.into(),
        }
    }
}

pub(super) type EditResult<T> = Result<T, EditError>;

/// The fields as the API reads them (unknown keys refused, by name).
fn fields_of(fields: Value) -> EditResult<EventFields> {
    serde_json::from_value(fields).map_err(|e| ApiError::bad_request("event", e.to_string()).into())
}

/// Runs a blocking engine write off the async workers.
async fn write<T: Send + 'static>(
    services: &Services,
    run: impl FnOnce(Calendar) -> Result<T, almanac_core::calendar::CalendarError> + Send + 'static,
) -> EditResult<T> {
    let calendar = services.core.calendar.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let _window = acting_as(Author::Window);
        run(calendar)
    })
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))?
    .map_err(|e| ApiError::from(e).into())
}

/// Creates an event in calendar `calendar_id` (`POST /events`): the event
/// dialog and the sidebar's quick-add.
#[tauri::command]
pub async fn event_create(
    services: State<'_, Arc<Services>>,
    calendar_id: String,
    fields: Value,
) -> EditResult<Event> {
    let fields = fields_of(fields)?;
    write(&services, move |calendar| {
        calendar.create(&calendar_id, fields)
    })
    .await
}

/// Applies `fields` as a merge patch to event `id`, with `calendar_id`
/// moves it to that calendar, and with `options.instanceDate` changes only
/// that occurrence of its CalDAV series (`PUT /events/{id}`).
#[tauri::command]
pub async fn event_update(
    services: State<'_, Arc<Services>>,
    id: String,
    calendar_id: Option<String>,
    fields: Value,
    options: Option<EventOptions>,
) -> EditResult<Event> {
    let fields = fields_of(fields)?;
    let instance_date = options.unwrap_or_default().instance_date;
    if let (Some(_), Some(_)) = (&calendar_id, instance_date) {
        return Err(ApiError::bad_request(
            "calendarId",
            "one occurrence cannot move to another calendar on its own",
        )
        .into());
    }
    write(&services, move |calendar| {
        match (calendar_id, instance_date) {
            (Some(calendar_id), _) => calendar.move_to(&id, &calendar_id, fields),
            (None, Some(date)) => calendar.update_occurrence(&id, date, fields),
            (None, None) => calendar.update(&id, fields),
        }
    })
    .await
}

/// Deletes event `id`, or with `options.instanceDate` skips that occurrence
/// of its series (`DELETE /events/{id}`).
#[tauri::command]
pub async fn event_delete(
    services: State<'_, Arc<Services>>,
    id: String,
    options: EventOptions,
) -> EditResult<()> {
    write(&services, move |calendar| {
        calendar.delete(&id, options.instance_date)
    })
    .await
}

/// The series whose occurrence the single event `id` replaces, if any: what
/// unticking a ticked occurrence restores.
#[tauri::command]
pub fn event_replaced_series(
    services: State<'_, Arc<Services>>,
    id: String,
) -> EditResult<Option<Event>> {
    Ok(services
        .core
        .calendar
        .replaced_series(&id)
        .map_err(ApiError::from)?)
}

/// How "Open note" opened the note.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Opened {
    Obsidian,
    File,
}

/// Opens the note of event `id` in Obsidian (`obsidian://open`), or the file
/// itself with the desktop's handler when nothing handles `obsidian:`.
#[tauri::command]
pub fn event_open_note(services: State<'_, Arc<Services>>, id: String) -> EditResult<Opened> {
    let calendar = &services.core.calendar;
    let details = calendar.details(&id).map_err(ApiError::from)?;
    let note = details.location.ok_or_else(|| {
        ApiError::bad_request("id", "this event comes from a feed and has no note")
    })?;
    let root = calendar.vault_root();
    let vault = root.file_name().unwrap_or_default().to_string_lossy();
    let (target, opened) = if obsidian_installed() {
        let file = note
            .file
            .path
            .strip_suffix(".md")
            .unwrap_or(&note.file.path);
        (
            format!(
                "obsidian://open?vault={}&file={}",
                uri_component(&vault),
                uri_component(file)
            ),
            Opened::Obsidian,
        )
    } else {
        let path = root.join(&note.file.path);
        (path.to_string_lossy().into_owned(), Opened::File)
    };
    SystemOpener
        .open(&target)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(opened)
}

/// Whether the desktop has a handler for `obsidian:` URLs. Only the XDG
/// desktops can be asked; elsewhere the system says itself when none exists.
fn obsidian_installed() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    std::process::Command::new("xdg-mime")
        .args(["query", "default", "x-scheme-handler/obsidian"])
        .output()
        .is_ok_and(|out| out.status.success() && !out.stdout.trim_ascii().is_empty())
}

/// Percent-encodes `text` as JavaScript's `encodeURIComponent` does, which is
/// how Obsidian decodes its URL parameters.
fn uri_component(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'!'
            | b'~'
            | b'*'
            | b'\''
            | b'('
            | b')' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_components_encode_spaces_slashes_and_unicode() {
        assert_eq!(
            uri_component("events/2026-01-15 Café & co"),
            "events%2F2026-01-15%20Caf%C3%A9%20%26%20co"
        );
    }

    #[test]
    fn refusals_name_their_field() {
        let bad = EditError::from(ApiError::bad_request(
            "startTime",
            "`9` is not an HH:mm time",
        ));
        assert_eq!(bad.field.as_deref(), Some("startTime"));
        assert_eq!(bad.error, "Bad Request");
        let taken = EditError::from(ApiError::Conflict("a note named `x` exists".into()));
        assert_eq!(
            (taken.field.as_deref(), taken.error.as_str()),
            (Some("title"), "Conflict")
        );
        let read_only = EditError::from(ApiError::ReadOnly("feed".into()));
        assert_eq!(read_only.field.as_deref(), Some("calendarId"));
    }
}
