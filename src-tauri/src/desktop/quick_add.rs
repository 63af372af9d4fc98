//! The sidebar's quick-add: the line read by the core's grammar
//! (`almanac_core::quick_add`, the one REST, the CLI and MCP use), in the
//! display zone, and created as the user, as `event_create` creates.

use std::sync::Arc;

use almanac_core::api::ApiError;
use almanac_core::api::quick_line;
use almanac_core::calendar::{Event, EventFields};
use almanac_core::quick_add;
use serde::Serialize;
use tauri::State;

use crate::desktop::editing::{EditError, EditResult};
use crate::wiring::Services;

/// What the line says, and the event created from it unless only read.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickAddAnswer {
    calendar_id: String,
    event: EventFields,
    #[serde(skip_serializing_if = "Option::is_none")]
    created: Option<Event>,
}

/// Reads `text` as a new event (the preview under the field with
/// `dry_run`), or creates it: in the calendar the line names, else
/// `calendar_id` (the sidebar's list), else the first writable one.
#[tauri::command]
pub async fn event_quick_add(
    services: State<'_, Arc<Services>>,
    text: String,
    calendar_id: Option<String>,
    dry_run: bool,
) -> EditResult<QuickAddAnswer> {
    let calendar = services.core.calendar.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let now = chrono::Utc::now();
        let read = quick_line::read(&calendar, &text, calendar_id.as_deref(), now)
            .map_err(EditError::said_plainly)?;
        let created = match dry_run {
            true => None,
            false => Some(
                calendar
                    .create(&read.calendar_id, read.fields.clone())
                    .map_err(ApiError::from)?,
            ),
        };
        Ok(QuickAddAnswer {
            calendar_id: read.calendar_id,
            event: read.fields,
            created,
        })
    })
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))?
}

/// The day `text` names ("next friday", "march 3", "2027-01-15"), as the
/// quick-add line reads days, counted from today in the display zone: the
/// calendar window's "Go to date". `YYYY-MM-DD`, or why it is no day.
#[tauri::command]
pub fn calendar_read_day(
    services: State<'_, Arc<Services>>,
    text: String,
) -> Result<String, String> {
    let zone = services.core.calendar.display_timezone();
    let today = chrono::Utc::now().with_timezone(&zone).date_naive();
    quick_add::read_day(&text, today)
        .map(|day| day.to_string())
        .map_err(|refused| refused.to_string())
}
