//! What a client sends to create or update an event.
//!
//! One shape serves both: on create, absent fields are unset; on update,
//! absent fields keep their current value, `null` removes a field and a value
//! replaces it (a JSON merge patch over the event's fields). Unknown keys are
//! refused with an error naming the key, so a typo never silently does nothing.
//! The read-only fields of [`Event`](crate::calendar::Event) (`id`, `calendarId`,
//! `calendarName`, `filePath`, `startMillis`, `endMillis`, `instanceDate`) are
//! accepted and ignored, so an event fetched with GET can be edited and sent
//! back as is.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::event::{Alarm, Completion, DayOfWeek, DisplayMode, EventType, Relation, RepeatOn};

/// The writable fields of an event. See the module docs for the semantics of
/// absent / `null` / value.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "WireFields")]
pub struct EventFields {
    pub title: Option<String>,
    pub date: Option<Option<String>>,
    pub end_date: Option<Option<String>>,
    pub start_time: Option<Option<String>>,
    pub end_time: Option<Option<String>>,
    pub all_day: Option<bool>,
    /// `type` on the wire.
    pub kind: Option<EventType>,
    pub days_of_week: Option<Option<Vec<DayOfWeek>>>,
    pub start_recur: Option<Option<String>>,
    pub end_recur: Option<Option<String>>,
    pub rrule: Option<Option<String>>,
    pub start_date: Option<Option<String>>,
    pub skip_dates: Option<Option<Vec<String>>>,
    /// `false` or `null` makes the event an open task; `true` or a date
    /// (`YYYY-MM-DD` or ISO date-time) a done one.
    pub completed: Option<Completion>,
    /// `false` turns a task back into a plain event (removes `completed`);
    /// `true` makes a plain event an open task. Ignored when `completed` is
    /// also sent.
    pub is_task: Option<bool>,
    pub timezone: Option<Option<String>>,
    pub category: Option<Option<String>>,
    pub description: Option<Option<String>>,
    pub url: Option<Option<String>>,
    pub notify: Option<Option<serde_json::Value>>,
    pub day_of_month: Option<Option<i64>>,
    pub month: Option<Option<i64>>,
    pub repeat_on: Option<Option<RepeatOn>>,
    pub repeat_interval: Option<Option<i64>>,
    pub sub_category: Option<Option<String>>,
    pub location: Option<Option<String>>,
    pub uid: Option<Option<String>>,
    pub display: Option<Option<DisplayMode>>,
    pub alarms: Option<Option<Vec<Alarm>>>,
    pub end_reminder: Option<Option<bool>>,
    /// See [`Event::recurrence_id`](crate::calendar::Event::recurrence_id).
    pub recurrence_id: Option<Option<String>>,
    /// See [`Event::class`](crate::calendar::Event::class).
    pub class: Option<Option<String>>,
    /// See [`Event::related_to`](crate::calendar::Event::related_to); an empty list
    /// clears it.
    pub related_to: Option<Option<Vec<Relation>>>,
}

/// The wire form: [`EventFields`] plus the ignored read-only fields.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WireFields {
    title: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    date: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    end_date: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    start_time: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    end_time: Option<Option<String>>,
    all_day: Option<bool>,
    #[serde(rename = "type")]
    kind: Option<EventType>,
    #[serde(default, deserialize_with = "nullable")]
    days_of_week: Option<Option<Vec<DayOfWeek>>>,
    #[serde(default, deserialize_with = "nullable")]
    start_recur: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    end_recur: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    rrule: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    start_date: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    skip_dates: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "nullable_completion")]
    completed: Option<Completion>,
    is_task: Option<bool>,
    #[serde(default, deserialize_with = "nullable")]
    timezone: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    category: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    description: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    url: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    notify: Option<Option<serde_json::Value>>,
    #[serde(default, deserialize_with = "nullable")]
    day_of_month: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable")]
    month: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable")]
    repeat_on: Option<Option<RepeatOn>>,
    #[serde(default, deserialize_with = "nullable")]
    repeat_interval: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable")]
    sub_category: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    location: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    uid: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    display: Option<Option<DisplayMode>>,
    #[serde(default, deserialize_with = "nullable")]
    alarms: Option<Option<Vec<Alarm>>>,
    #[serde(default, deserialize_with = "nullable")]
    end_reminder: Option<Option<bool>>,
    #[serde(default, deserialize_with = "nullable")]
    recurrence_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    class: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    related_to: Option<Option<Vec<Relation>>>,

    // Read-only fields of `Event`, accepted and ignored (see module docs).
    #[serde(default, rename = "id")]
    #[schema(ignore)]
    _id: Option<IgnoredAny>,
    #[serde(default, rename = "calendarId")]
    #[schema(ignore)]
    _calendar_id: Option<IgnoredAny>,
    #[serde(default, rename = "calendarName")]
    #[schema(ignore)]
    _calendar_name: Option<IgnoredAny>,
    #[serde(default, rename = "filePath")]
    #[schema(ignore)]
    _file_path: Option<IgnoredAny>,
    #[serde(default, rename = "startMillis")]
    #[schema(ignore)]
    _start_millis: Option<IgnoredAny>,
    #[serde(default, rename = "endMillis")]
    #[schema(ignore)]
    _end_millis: Option<IgnoredAny>,
    #[serde(default, rename = "instanceDate")]
    #[schema(ignore)]
    _instance_date: Option<IgnoredAny>,
}

/// The API documents [`EventFields`] by its wire form.
impl utoipa::PartialSchema for EventFields {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <WireFields as utoipa::PartialSchema>::schema()
    }
}

impl utoipa::ToSchema for EventFields {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        <WireFields as utoipa::ToSchema>::schemas(schemas);
    }
}

impl From<WireFields> for EventFields {
    fn from(wire: WireFields) -> Self {
        EventFields {
            title: wire.title,
            date: wire.date,
            end_date: wire.end_date,
            start_time: wire.start_time,
            end_time: wire.end_time,
            all_day: wire.all_day,
            kind: wire.kind,
            days_of_week: wire.days_of_week,
            start_recur: wire.start_recur,
            end_recur: wire.end_recur,
            rrule: wire.rrule,
            start_date: wire.start_date,
            skip_dates: wire.skip_dates,
            completed: wire.completed,
            is_task: wire.is_task,
            timezone: wire.timezone,
            category: wire.category,
            description: wire.description,
            url: wire.url,
            notify: wire.notify,
            day_of_month: wire.day_of_month,
            month: wire.month,
            repeat_on: wire.repeat_on,
            repeat_interval: wire.repeat_interval,
            sub_category: wire.sub_category,
            location: wire.location,
            uid: wire.uid,
            display: wire.display,
            alarms: wire.alarms,
            end_reminder: wire.end_reminder,
            recurrence_id: wire.recurrence_id,
            class: wire.class,
            related_to: wire.related_to,
        }
    }
}

/// Distinguishes an absent field (`None`, via `default`) from `null`
/// (`Some(None)`).
fn nullable<'de, T, D>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// `completed: null` means "open task" in Full Calendar, not "absent".
fn nullable_completion<'de, D>(deserializer: D) -> Result<Option<Completion>, D::Error>
where
    D: Deserializer<'de>,
{
    Completion::deserialize(deserializer).map(Some)
}
