//! What a client sends to create or update an event.
//!
//! One shape serves both: on create, absent fields are unset; on update,
//! absent fields keep their current value, `null` removes a field and a value
//! replaces it (a JSON merge patch over the event's fields). Unknown keys are
//! refused with an error naming the key, so a typo never silently does nothing.
//! The read-only fields of [`Event`](crate::event::Event) (`id`, `calendarId`,
//! `calendarName`, `filePath`, `startMillis`, `endMillis`, `instanceDate`) are
//! accepted and ignored, so an event fetched with GET can be edited and sent
//! back as is.
//!
//! A *note text* field (`subCategory`) is optional single-line text that the
//! engine stores in a Full Note's frontmatter under its wire name and returns
//! as it is, with no other use. Such fields are listed once, in
//! [`note_text_fields!`]; the structs that name them (`EventFields`, `Event`,
//! `EventSpec`) take them from that list, and every rule about them (the
//! merge patch, the checks, the frontmatter, the daily-note refusal) reads
//! [`NOTE_TEXT`].

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::event::{
    Alarm, Completion, DayOfWeek, DisplayMode, Event, EventType, Relation, RepeatOn,
};
use super::spec::EventSpec;

/// The note text fields (see the module docs), each as `name "wireName";`
/// with its doc comment. A field of that sort is declared here and nowhere
/// else: the macros that declare a struct naming event fields are called
/// back with this list, so `Event` and `EventSpec` keep plain named fields
/// (`event.sub_category`) without serde's `flatten`, which would slow the
/// serialization of every answer and defeat `deny_unknown_fields`.
///
/// `note_text_fields!(callback! { head })` expands to
/// `callback! { { head } name "wireName"; … }`.
macro_rules! note_text_fields {
    ($callback:ident! { $($head:tt)* }) => {
        $callback! { { $($head)* }
            sub_category "subCategory";
        }
    };
}
pub(crate) use note_text_fields;

/// One note text field, for the code that treats them all alike: its wire
/// name (the JSON key and the frontmatter key) and where each shape keeps
/// it.
#[derive(Debug)]
pub struct NoteText {
    pub wire: &'static str,
    /// What a client sends for it (absent, `null` or a value).
    pub sent: fn(&EventFields) -> &Option<Option<String>>,
    pub spec: fn(&EventSpec) -> &Option<String>,
    pub spec_mut: fn(&mut EventSpec) -> &mut Option<String>,
    pub event_mut: fn(&mut Event) -> &mut Option<String>,
}

/// The wire form: [`EventFields`] plus the ignored read-only fields. Built
/// field by field from [`writable_fields!`]'s lines: a `plain` field has no
/// `default` (serde's own reading of a missing `Option`), so a JSON array is
/// refused as the body rather than read as "no fields".
macro_rules! wire_fields {
    ([$($out:tt)*] $(#[doc = $doc:literal])* $name:ident $wire:tt : $ty:ty, "plain"; $($rest:tt)*) => {
        wire_fields! { [$($out)* $(#[doc = $doc])* #[serde(rename = $wire)] $name: $ty,] $($rest)* }
    };
    ([$($out:tt)*] $(#[doc = $doc:literal])* $name:ident $wire:tt : $ty:ty, $null:tt; $($rest:tt)*) => {
        wire_fields! {
            [$($out)* $(#[doc = $doc])* #[serde(default, rename = $wire, deserialize_with = $null)] $name: $ty,]
            $($rest)*
        }
    };
    ([$($out:tt)*]) => {
        #[derive(Debug, Clone, Default, PartialEq, Deserialize, utoipa::ToSchema)]
        #[serde(deny_unknown_fields)]
        struct WireFields {
            $($out)*
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
    };
}

/// Declares the writable fields once: each line in braces gives the field,
/// its wire name, its type and how `null` reads (`nullable`: `null` removes
/// the field; `plain`: `null` is the same as absent; `nullable_completion`:
/// `null` is an open task); the note text fields follow, from
/// [`note_text_fields!`] (each `Option<Option<String>>`, `nullable`). From it
/// come [`EventFields`], its wire form (which also accepts the read-only
/// fields, and whose schema documents the REST body and MCP's event tools),
/// its JSON (quick-add's dry run), [`WRITABLE`] and [`NOTE_TEXT`]. The other
/// shapes that name event fields (the event returned, the window's form) are
/// checked against [`WRITABLE`] by the test
/// `calendar_fields::every_shape_names_only_declared_fields`.
macro_rules! writable_fields {
    ({$(
        $(#[doc = $doc:literal])*
        $name:ident $wire:tt : $ty:ty, $null:tt;
    )*}
    $(
        $(#[doc = $text_doc:literal])*
        $text:ident $text_wire:tt;
    )*) => {
        /// The writable fields of an event. See the module docs for the
        /// semantics of absent / `null` / value.
        #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
        #[serde(from = "WireFields")]
        pub struct EventFields {
            $($(#[doc = $doc])* pub $name: $ty,)*
            $($(#[doc = $text_doc])* pub $text: Option<Option<String>>,)*
        }

        wire_fields! {
            []
            $($(#[doc = $doc])* $name $wire : $ty, $null;)*
            $($(#[doc = $text_doc])* $text $text_wire : Option<Option<String>>, "nullable";)*
        }

        impl From<WireFields> for EventFields {
            fn from(wire: WireFields) -> Self {
                EventFields { $($name: wire.$name,)* $($text: wire.$text,)* }
            }
        }

        /// The wire names of the writable fields, in declaration order.
        pub const WRITABLE: &[&str] = &[$($wire,)* $($text_wire),*];

        /// The note text fields, in declaration order.
        pub const NOTE_TEXT: &[NoteText] = &[$(NoteText {
            wire: $text_wire,
            sent: |fields| &fields.$text,
            spec: |spec| &spec.$text,
            spec_mut: |spec| &mut spec.$text,
            event_mut: |event| &mut event.$text,
        }),*];

        /// The fields set, under their wire names, in declaration order: an
        /// absent field is left out, a removal (`Some(None)`) is `null`, as
        /// the wire form reads them. Quick-add's dry run answers so.
        impl serde::Serialize for EventFields {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(None)?;
                $(if let Some(value) = &self.$name {
                    map.serialize_entry($wire, value)?;
                })*
                $(if let Some(value) = &self.$text {
                    map.serialize_entry($text_wire, value)?;
                })*
                map.end()
            }
        }
    };
}

// The writable fields; `note_text_fields!` appends the note text ones.
note_text_fields! { writable_fields! {
    title "title": Option<String>, "plain";
    /// The day (YYYY-MM-DD) of a `single` event.
    date "date": Option<Option<String>>, "nullable";
    /// The last day (YYYY-MM-DD) of a `single` event over several days.
    end_date "endDate": Option<Option<String>>, "nullable";
    /// HH:mm, in the event's `timezone` when it has one, else in the
    /// display time zone.
    start_time "startTime": Option<Option<String>>, "nullable";
    /// HH:mm.
    end_time "endTime": Option<Option<String>>, "nullable";
    all_day "allDay": Option<bool>, "plain";
    /// `single`, `recurring` (weekly on `daysOfWeek`, monthly on
    /// `dayOfMonth`, yearly on `dayOfMonth` and `month`) or `rrule`.
    kind "type": Option<EventType>, "plain";
    /// For `recurring`: a weekly series' days, letters U M T W R F S
    /// (Sunday to Saturday).
    days_of_week "daysOfWeek": Option<Option<Vec<DayOfWeek>>>, "nullable";
    /// For `recurring`: the first day (YYYY-MM-DD).
    start_recur "startRecur": Option<Option<String>>, "nullable";
    /// For `recurring`: the last day (YYYY-MM-DD).
    end_recur "endRecur": Option<Option<String>>, "nullable";
    /// For `rrule`: an RFC 5545 rule, e.g. `FREQ=MONTHLY;BYDAY=1MO`.
    rrule "rrule": Option<Option<String>>, "nullable";
    /// For `rrule`: the first occurrence's day (YYYY-MM-DD).
    start_date "startDate": Option<Option<String>>, "nullable";
    skip_dates "skipDates": Option<Option<Vec<String>>>, "nullable";
    /// `false` or `null` makes the event an open task; `true` or a date
    /// (`YYYY-MM-DD` or ISO date-time) a done one.
    completed "completed": Option<Completion>, "nullable_completion";
    /// `false` turns a task back into a plain event (removes `completed`);
    /// `true` makes a plain event an open task. Ignored when `completed` is
    /// also sent.
    is_task "isTask": Option<bool>, "plain";
    /// An IANA zone the times are in, when not the display zone.
    timezone "timezone": Option<Option<String>>, "nullable";
    category "category": Option<Option<String>>, "nullable";
    description "description": Option<Option<String>>, "nullable";
    url "url": Option<Option<String>>, "nullable";
    notify "notify": Option<Option<serde_json::Value>>, "nullable";
    /// For `recurring`: a monthly or yearly series' day of the month.
    day_of_month "dayOfMonth": Option<Option<i64>>, "nullable";
    /// For `recurring`: a yearly series' month (1-12).
    month "month": Option<Option<i64>>, "nullable";
    repeat_on "repeatOn": Option<Option<RepeatOn>>, "nullable";
    /// For `recurring`: every n-th week, month or year (absent: every
    /// one).
    repeat_interval "repeatInterval": Option<Option<i64>>, "nullable";
    location "location": Option<Option<String>>, "nullable";
    uid "uid": Option<Option<String>>, "nullable";
    display "display": Option<Option<DisplayMode>>, "nullable";
    alarms "alarms": Option<Option<Vec<Alarm>>>, "nullable";
    end_reminder "endReminder": Option<Option<bool>>, "nullable";
    /// A note detached from a series: the date (`YYYY-MM-DD`) of the
    /// occurrence it replaces.
    recurrence_id "recurrenceId": Option<Option<String>>, "nullable";
    /// Who may see the event (iCalendar `CLASS`), stored upper case.
    class "class": Option<Option<String>>, "nullable";
    /// The events this one relates to (iCalendar `RELATED-TO`); an empty
    /// list clears it.
    related_to "relatedTo": Option<Option<Vec<Relation>>>, "nullable";
} }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_is_not_a_body() {
        assert!(serde_json::from_value::<EventFields>(serde_json::json!([])).is_err());
    }

    #[test]
    fn null_reads_per_declaration() {
        let fields: EventFields = serde_json::from_value(serde_json::json!({
            "title": null, "location": null, "completed": null
        }))
        .unwrap();
        assert_eq!(fields.title, None, "plain: null is absent");
        assert_eq!(fields.location, Some(None), "nullable: null removes");
        assert_eq!(
            fields.completed,
            Some(Completion::Open),
            "null is an open task"
        );
        assert_eq!(fields.url, None, "absent stays absent");
    }

    #[test]
    fn json_holds_only_the_fields_set_and_reads_back() {
        let sent = serde_json::json!({
            "title": "Lunch", "type": "single", "allDay": false,
            "startTime": "12:30", "location": null
        });
        let fields: EventFields = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(serde_json::to_value(&fields).unwrap(), sent);
        let read: EventFields =
            serde_json::from_value(serde_json::to_value(&fields).unwrap()).unwrap();
        assert_eq!(read, fields);
    }
}
