//! A line read against a running calendar: its display zone, its calendars'
//! names, and the calendar the event goes to.

use chrono::{DateTime, Utc};

use super::error::ApiError;
use crate::calendar::Calendar;
use crate::calendar::EventFields;
use crate::quick_add::{CalendarName, Context, parse};

/// A line read and the calendar its event goes to.
#[derive(Debug, Clone, PartialEq)]
pub struct QuickEvent {
    pub calendar_id: String,
    pub fields: EventFields,
}

/// Reads `text` at `now` in `calendar`'s display zone. The event goes to the
/// calendar the line names ("in Work"), else `chosen`, else the first
/// writable one. A line quick-add cannot read is a `400` on field `text`.
pub fn read(
    calendar: &Calendar,
    text: &str,
    chosen: Option<&str>,
    now: DateTime<Utc>,
) -> Result<QuickEvent, ApiError> {
    let sources = calendar.sources();
    let names: Vec<CalendarName> = sources.iter().map(CalendarName::from).collect();
    let context = Context {
        now,
        zone: calendar.display_timezone(),
        calendars: &names,
    };
    let parsed = parse(text, &context).map_err(|e| ApiError::bad_request("text", e.to_string()))?;
    let calendar_id = parsed
        .calendar_id
        .or_else(|| chosen.map(str::to_string))
        .or_else(|| sources.iter().find(|s| s.editable).map(|s| s.id.clone()))
        .ok_or_else(|| {
            ApiError::bad_request(
                "calendarId",
                "there is no calendar to add to: add a notes folder or daily notes calendar in Settings",
            )
        })?;
    Ok(QuickEvent {
        calendar_id,
        fields: parsed.fields,
    })
}
