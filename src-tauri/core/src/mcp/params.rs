//! The tools' arguments: what each accepts, as JSON schemas (from these
//! types) and as the values the calls read. Unknown keys are refused, so a
//! misspelt argument never silently widens a query or drops a change.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// No arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// A range and, optionally, the calendars to read.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RangeParams {
    /// Inclusive start: an ISO 8601 date (2026-03-02) or date-time; a
    /// date-time without offset is in the display time zone.
    pub start: String,
    /// Inclusive end, same forms; a plain date includes that whole day.
    pub end: String,
    /// Only these calendar ids (see list_calendars); all when absent.
    #[serde(default)]
    pub calendars: Option<Vec<String>>,
}

/// Text to look for, optionally in a range.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchParams {
    /// Case-insensitive text searched in titles and notes.
    pub text: String,
    /// Inclusive start (ISO 8601 date or date-time); open when absent.
    #[serde(default)]
    pub start: Option<String>,
    /// Inclusive end (ISO 8601 date or date-time); open when absent.
    #[serde(default)]
    pub end: Option<String>,
    /// Only these calendar ids; all when absent.
    #[serde(default)]
    pub calendars: Option<Vec<String>>,
}

/// One event.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventIdParams {
    /// The event's id, as list_events returns it.
    pub id: String,
}

/// How many reminders.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemindersParams {
    /// At most this many (default 10, at most 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The fields of an event to write. Absent fields are left alone (on
/// update) or take their defaults (on create).
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventInput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The day (YYYY-MM-DD) of a single event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The last day (YYYY-MM-DD) of an event over several days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_date: Option<String>,
    /// HH:mm in the display time zone (or the event's own timezone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    /// HH:mm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_day: Option<bool>,
    /// `single`, `recurring` (weekly on daysOfWeek) or `rrule`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// For `recurring`: day letters U M T W R F S (Sunday to Saturday).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_of_week: Option<Vec<String>>,
    /// For `recurring`: first day (YYYY-MM-DD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_recur: Option<String>,
    /// For `recurring`: last day (YYYY-MM-DD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_recur: Option<String>,
    /// For `rrule`: an RFC 5545 rule, e.g. FREQ=MONTHLY;BYDAY=1MO.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rrule: Option<String>,
    /// For `rrule`: the first occurrence's day (YYYY-MM-DD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_date: Option<String>,
    /// An IANA zone the times are in, when not the display zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A new event.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateParams {
    /// A writable calendar's id (see list_calendars).
    pub calendar_id: String,
    pub event: EventInput,
    /// A new unique value (a UUID) for each event you mean to create, sent
    /// again unchanged if you retry this call: a retry then creates nothing
    /// and answers the first call's event.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// A change to an event.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateParams {
    /// The event's id, as list_events returns it.
    pub id: String,
    /// Only the fields to change.
    pub changes: EventInput,
    /// Change only the occurrence on this day (YYYY-MM-DD, the instanceDate
    /// list_events gives) instead of the whole series.
    #[serde(default)]
    pub occurrence_date: Option<String>,
}

/// An event, or one occurrence of it, to delete.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteParams {
    /// The event's id, as list_events returns it.
    pub id: String,
    /// Delete only the occurrence on this day (YYYY-MM-DD) of a series.
    #[serde(default)]
    pub occurrence_date: Option<String>,
}

/// Which changes of the history to list.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangesParams {
    /// Only the changes made with the token of this name (yours is the one
    /// you connect with).
    #[serde(default)]
    pub token: Option<String>,
    /// Only those made at or after this time: a date (YYYY-MM-DD) or
    /// date-time; without offset, in the display time zone.
    #[serde(default)]
    pub since: Option<String>,
    /// The most changes to list, newest first (1 to 100, default 20).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A change of the history to undo.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangeIdParams {
    /// The change's id, as list_changes returns it.
    pub id: u64,
}

/// A line to read as an event.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuickAddParams {
    /// One line: what, when, optionally "in <calendar>".
    pub text: String,
    /// The calendar when the line names none (default: the first writable).
    #[serde(default)]
    pub calendar_id: Option<String>,
    /// Only read the line and show the event it would make.
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// A new unique value (a UUID) for each event you mean to create, sent
    /// again unchanged if you retry this call: a retry then creates nothing
    /// and answers the first call's event.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}
