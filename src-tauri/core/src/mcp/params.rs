//! The tools' arguments: what each accepts, as JSON schemas (from these
//! types) and as the values the calls read. Unknown keys are refused, so a
//! misspelt argument never silently widens a query or drops a change. An
//! event's fields are the REST body's, [`EventFields`], read and described
//! from their one declaration.

use std::collections::HashMap;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::calendar::EventFields;

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

/// A new event.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateParams {
    /// A writable calendar's id (see list_calendars).
    pub calendar_id: String,
    /// The event's fields; absent ones take their defaults.
    #[schemars(schema_with = "event_fields_schema")]
    pub event: EventFields,
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
    /// Only the fields to change: absent ones are left alone, `null` removes
    /// one.
    #[schemars(schema_with = "event_fields_schema")]
    pub changes: EventFields,
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

/// The tool schema of an event's fields: the REST body's schema (from the
/// declaration, with its descriptions), the types it refers to written in
/// place, as a tool's schema stands alone.
fn event_fields_schema(_: &mut SchemaGenerator) -> Schema {
    let mut components = Vec::new();
    <EventFields as utoipa::ToSchema>::schemas(&mut components);
    let components: HashMap<String, Value> = components
        .into_iter()
        .map(|(name, schema)| (name, json!(schema)))
        .collect();
    let mut schema = json!(<EventFields as utoipa::PartialSchema>::schema());
    inline_refs(&mut schema, &components);
    schema["description"] = json!(
        "The event's fields. Absent fields are left alone (on update) or take \
         their defaults (on create); `null` removes a field."
    );
    Schema::try_from(schema).unwrap_or_default()
}

/// Replaces each `$ref` to a component in `schema` by the component,
/// keeping what stands beside the reference (its description).
fn inline_refs(schema: &mut Value, components: &HashMap<String, Value>) {
    if let Value::Object(object) = schema
        && let Some(component) = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
            .and_then(|name| components.get(name))
        && let Value::Object(mut inlined) = component.clone()
    {
        object.remove("$ref");
        inlined.append(object);
        *object = inlined;
    }
    match schema {
        Value::Object(object) => object
            .values_mut()
            .for_each(|value| inline_refs(value, components)),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|value| inline_refs(value, components)),
        _ => {}
    }
}
