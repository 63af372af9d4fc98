//! Calendars managed from a CalDAV client: `MKCALENDAR` makes a notes
//! calendar (a new folder in the vault and a `local` source, limited to
//! events or tasks if the client asks), `PROPPATCH` renames, recolours and
//! reorders one.
//!
//! Who may: a token with both `events:write` and `settings:write`. Adding a
//! calendar changes `calendarSources`, which otherwise needs
//! `system:full-access` (it decides what Almanac reads); here the server,
//! not the client, picks the folder, always a new one inside the vault, so
//! the client cannot widen what Almanac reads. Removing a calendar is never
//! done from a client: that stays in Almanac's settings (and never deletes
//! notes).

use std::path::Path;

use serde_json::{Value, json};

use super::authorized::AuthorizedApi;
use super::error::ApiError;
use crate::settings::class::Actor;
use crate::settings::{CalendarSource, Settings};
use crate::tokens::Scope;

/// Longest calendar name a client may give (as the settings window).
const MAX_NAME_CHARS: usize = 100;

/// What a client asks to change about a calendar.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CalendarStyle {
    pub name: Option<String>,
    pub color: Option<String>,
    /// Apple's `calendar-order`: where calendar apps sort it.
    pub order: Option<i64>,
    /// The components (`VEVENT`, `VTODO`) it is made for; only at creation.
    pub components: Option<Vec<String>>,
}

impl CalendarStyle {
    /// Whether it asks for any change.
    pub fn is_empty(&self) -> bool {
        *self == CalendarStyle::default()
    }
}

impl AuthorizedApi {
    /// Makes a notes calendar `id`: a new folder in the vault, named after
    /// the calendar, read as a `local` source. Scopes `events:write` and
    /// `settings:write`.
    pub fn create_note_calendar(
        &self,
        id: &str,
        style: &CalendarStyle,
    ) -> Result<CalendarSource, ApiError> {
        self.require_calendar_management()?;
        let name = checked_name(style.name.as_deref().unwrap_or(id))?;
        let color = style.color.as_deref().map(checked_color).transpose()?;
        let mut created = None;
        let outcome = self.plugin.update_settings_with(Actor::User, |settings| {
            if settings.calendar_sources.iter().any(|s| s.id == id) {
                return Err(ApiError::Conflict(format!(
                    "a calendar `{id}` exists already"
                )));
            }
            let folder = new_folder(&settings.vault_path, &name)?;
            created = Some(settings.vault_path.join(&folder));
            let mut sources = serde_json::to_value(&settings.calendar_sources)
                .map_err(|e| ApiError::Internal(e.to_string()))?;
            let mut source = json!({"id": id, "name": name, "type": "local", "directory": folder});
            if let Some(color) = &color {
                source["color"] = json!(color);
            }
            if let Some(order) = style.order {
                source["order"] = json!(order);
            }
            if let Some(components) = &style.components {
                source["components"] = json!(components);
            }
            sources.as_array_mut().expect("a list").push(source);
            Ok(json!({ "calendarSources": sources }))
        });
        match outcome {
            Ok(settings) => Ok(source_of(&settings, id)),
            Err(error) => {
                // The settings refused it: the folder made for it goes too
                // (it is new and empty).
                if let Some(folder) = created {
                    let _ = std::fs::remove_dir(folder);
                }
                Err(error)
            }
        }
    }

    /// Renames, recolours and reorders calendar `id` (its components are
    /// fixed once made). Scopes `events:write` and
    /// `settings:write`.
    pub fn restyle_calendar(
        &self,
        id: &str,
        style: &CalendarStyle,
    ) -> Result<CalendarSource, ApiError> {
        self.require_calendar_management()?;
        let name = style.name.as_deref().map(checked_name).transpose()?;
        let color = style.color.as_deref().map(checked_color).transpose()?;
        let settings = self.plugin.update_settings_with(Actor::User, |settings| {
            let mut sources: Vec<Value> = settings
                .calendar_sources
                .iter()
                .map(|s| serde_json::to_value(s).map_err(|e| ApiError::Internal(e.to_string())))
                .collect::<Result<_, _>>()?;
            let source = sources
                .iter_mut()
                .find(|s| s["id"] == id)
                .ok_or_else(|| ApiError::NotFound(format!("no calendar `{id}`")))?;
            if let Some(name) = &name {
                source["name"] = json!(name);
            }
            if let Some(color) = &color {
                source["color"] = json!(color);
            }
            if let Some(order) = style.order {
                source["order"] = json!(order);
            }
            Ok(json!({ "calendarSources": sources }))
        })?;
        Ok(source_of(&settings, id))
    }

    fn require_calendar_management(&self) -> Result<(), ApiError> {
        self.require(Scope::EventsWrite)?;
        self.require(Scope::SettingsWrite)?;
        Ok(())
    }
}

fn source_of(settings: &Settings, id: &str) -> CalendarSource {
    settings
        .calendar_sources
        .iter()
        .find(|s| s.id == id)
        .cloned()
        .expect("the source just saved")
}

fn checked_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name.chars().any(char::is_control)
    {
        return Err(ApiError::bad_request(
            "displayname",
            format!(
                "a calendar name is 1 to {MAX_NAME_CHARS} characters, without control characters"
            ),
        ));
    }
    Ok(name.to_string())
}

/// `#rrggbb`, from any CSS colour: the `#rrggbbaa` Apple clients send, a
/// name ("blue"), `rgb(…)`, `hsl(…)`. The alpha is dropped: a calendar's
/// colour is opaque.
fn checked_color(color: &str) -> Result<String, ApiError> {
    let color = color.trim();
    let parsed = csscolorparser::parse(color).map_err(|_| {
        ApiError::bad_request(
            "calendar-color",
            format!("`{color}` is not a colour (#rrggbb, or a CSS colour name)"),
        )
    })?;
    let [r, g, b, _] = parsed.to_rgba8();
    Ok(format!("#{r:02x}{g:02x}{b:02x}"))
}

/// A new folder for calendar `name` at the top of the vault: the name with
/// what a file name cannot hold left out, numbered past folders that exist.
/// Returns its name, relative to the vault.
fn new_folder(vault: &Path, name: &str) -> Result<String, ApiError> {
    let base: String = name
        .chars()
        .filter(|c| !matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|'))
        .collect();
    let base = base.trim().trim_start_matches('.').trim();
    let base = if base.is_empty() { "Calendar" } else { base };
    for n in 1..=100 {
        let folder = if n == 1 {
            base.to_string()
        } else {
            format!("{base} {n}")
        };
        match std::fs::create_dir(vault.join(&folder)) {
            Ok(()) => return Ok(folder),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(ApiError::Internal(format!(
                    "cannot make the calendar's folder in the vault: {e}"
                )));
            }
        }
    }
    Err(ApiError::Conflict(format!(
        "the vault has folders `{base}` to `{base} 100` already"
    )))
}
