//! The `calendarSources` section: one configured calendar each.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::shipped_data::DataProblem;
use super::{KindSettings, SettingsError};

/// One configured calendar source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalendarSource {
    /// Stable identifier used as `calendarId` in the API.
    pub id: String,
    /// Display name (`calendarName` on events).
    pub name: String,
    /// CSS colour for the calendar view.
    #[serde(default = "default_color")]
    pub color: String,
    #[serde(flatten)]
    pub kind: KindSettings,
    /// Where a calendar app sorts this calendar among the others (Apple's
    /// `calendar-order`, set by CalDAV clients); Almanac only keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    /// The components a CalDAV client made this calendar for (`VEVENT`,
    /// `VTODO`): its collection advertises and takes only these. Absent:
    /// what the source's kind holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<String>>,
}

/// The components a calendar may be limited to.
pub const CALENDAR_COMPONENTS: [&str; 2] = ["VEVENT", "VTODO"];

pub(crate) fn default_color() -> String {
    "#3788d8".to_string()
}

/// Checks the `calendarSources` list: ids unique and non-empty, names set,
/// each kind's own fields (through the registry) but the ones judged against
/// shipped data ([`shipped_data_problems`]). Errors name the field
/// down to the source (`calendarSources[2].url`), so the settings window
/// can show the reason next to it.
pub(super) fn validate(sources: &[CalendarSource]) -> Result<(), SettingsError> {
    let invalid = |key: &str, reason: String| SettingsError::Invalid {
        key: key.to_string(),
        reason,
    };
    let mut seen = std::collections::HashSet::new();
    for (index, source) in sources.iter().enumerate() {
        // Named down to the field, so the settings window can show the
        // reason next to it.
        let field = |name: &str| format!("calendarSources[{index}].{name}");
        if source.id.trim().is_empty() {
            return Err(invalid(&field("id"), "a source has an empty id".into()));
        }
        if !seen.insert(source.id.as_str()) {
            return Err(invalid(
                &field("id"),
                format!("duplicate source id `{}`", source.id),
            ));
        }
        if source.name.trim().is_empty() {
            return Err(invalid(&field("name"), "a calendar needs a name".into()));
        }
        if let Some(url) = source.kind.url()
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(invalid(
                &field("url"),
                format!("`{url}` is not an http(s) address"),
            ));
        }
        if let Some(directory) = source.kind.directory()
            && Path::new(directory.trim())
                .components()
                .any(|part| part == std::path::Component::ParentDir)
        {
            return Err(invalid(
                &field("directory"),
                format!("`{directory}` leaves the vault; pick a folder inside it"),
            ));
        }
        if !source.kind.checked_against_shipped_data()
            && let Some((name, why)) = source.kind.invalid_field()
        {
            return Err(invalid(&field(name), why));
        }
        if let Some(components) = &source.components {
            let known = components
                .iter()
                .all(|c| CALENDAR_COMPONENTS.contains(&c.as_str()));
            let unique = components
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len()
                == components.len();
            if components.is_empty() || !known || !unique {
                return Err(invalid(
                    &field("components"),
                    "a calendar holds VEVENT, VTODO or both, each named once".into(),
                ));
            }
        }
    }
    Ok(())
}

/// The sources' fields the shipped data does not know (a holiday calendar's
/// lost place), each with why; see [`super::shipped_data`].
pub(super) fn shipped_data_problems(sources: &[CalendarSource]) -> Vec<DataProblem> {
    sources
        .iter()
        .enumerate()
        .filter(|(_, source)| source.kind.checked_against_shipped_data())
        .filter_map(|(index, source)| {
            let (name, why) = source.kind.invalid_field()?;
            Some(DataProblem::new(
                format!("calendarSources[{index}].{name}"),
                format!("calendarSources#{}", source.id),
                why,
            ))
        })
        .collect()
}
