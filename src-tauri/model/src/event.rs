//! The event as clients see it: what queries return, in the JSON shape of
//! Obsidian Full Calendar's events (camelCase), plus the details record.
//!
//! Ids name the event's origin ([`super::id::EventId`] parses and formats
//! them):
//! - `fullnote:<vault-relative note path>` — one note per event;
//! - `dailynote:<vault-relative note path>::<hash>` — a list item in a daily
//!   note; the hash is the first 8 hex digits of SHA-256 of the item's title,
//!   with `-2`, `-3`, … appended for repeated titles in the same note, so an id
//!   survives edits of the time or checkbox and a stale id never hits another
//!   item;
//! - `ical:<calendarId>::<UID>` — an ICS event, with `::<RECURRENCE-ID>`
//!   appended for a modified occurrence of a series.
//!
//! A recurring series is one event (one id). Range queries expand it into
//! occurrences that keep the series id and carry their own `date`,
//! `startMillis`/`endMillis` and `instanceDate`; a client addresses one
//! occurrence (e.g. to suppress it) with the series id plus `instanceDate`.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

/// Full Calendar's event `type`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum EventType {
    /// One event on `date` (possibly spanning to `endDate`).
    #[default]
    Single,
    /// Weekly on `daysOfWeek`, between `startRecur` and `endRecur`.
    Recurring,
    /// An RFC 5545 `rrule` anchored at `startDate`.
    Rrule,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Recurring => "recurring",
            Self::Rrule => "rrule",
        }
    }
}

/// A day of the week as Full Calendar writes it: `U M T W R F S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DayOfWeek {
    Sunday,
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
}

impl DayOfWeek {
    pub const ALL: [DayOfWeek; 7] = [
        Self::Sunday,
        Self::Monday,
        Self::Tuesday,
        Self::Wednesday,
        Self::Thursday,
        Self::Friday,
        Self::Saturday,
    ];

    /// The Full Calendar letter.
    pub fn letter(self) -> char {
        ['U', 'M', 'T', 'W', 'R', 'F', 'S'][self as usize]
    }

    /// Parses a Full Calendar letter (case-sensitive, as Full Calendar is).
    pub fn from_letter(letter: &str) -> Option<Self> {
        let index = ["U", "M", "T", "W", "R", "F", "S"]
            .iter()
            .position(|l| *l == letter)?;
        Some(Self::ALL[index])
    }

    pub fn from_chrono(day: chrono::Weekday) -> Self {
        Self::ALL[day.num_days_from_sunday() as usize]
    }
}

impl Serialize for DayOfWeek {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_char(self.letter())
    }
}

impl<'de> Deserialize<'de> for DayOfWeek {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let letter = String::deserialize(deserializer)?;
        Self::from_letter(&letter).ok_or_else(|| {
            de::Error::custom(format!("`{letter}` is not a day letter (U M T W R F S)"))
        })
    }
}

/// `repeatOn` of a monthly series: the `week`-th `weekday` of the month.
/// `week` is 1-4 (first to fourth) or -1 (last); `weekday` is 0 (Sunday)
/// to 6 (Saturday), as Full Calendar writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeatOn {
    pub week: i64,
    pub weekday: i64,
}

/// One of an event's `alarms`: a reminder `minutesBefore` the start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Alarm {
    /// 0-10080 (one week).
    pub minutes_before: i64,
    /// `DISPLAY` when absent, as in Full Calendar.
    #[serde(default)]
    pub action: AlarmAction,
}

/// One of an event's `relatedTo`: the `UID` of another event it relates
/// to (iCalendar `RELATED-TO`), kept as a client sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Relation {
    pub uid: String,
    /// `PARENT` (iCalendar's default when absent), `CHILD`, `SIBLING` or
    /// another `RELTYPE` a client sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_type: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum AlarmAction {
    #[default]
    Display,
    Audio,
    Email,
}

/// How a calendar view draws the event (Full Calendar's `display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DisplayMode {
    Auto,
    Block,
    ListItem,
    Background,
    InverseBackground,
    None,
}

impl DisplayMode {
    pub const NAMES: &str = "auto, block, list-item, background, inverse-background or none";

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Block => "block",
            Self::ListItem => "list-item",
            Self::Background => "background",
            Self::InverseBackground => "inverse-background",
            Self::None => "none",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::Auto,
            Self::Block,
            Self::ListItem,
            Self::Background,
            Self::InverseBackground,
            Self::None,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == name)
    }
}

/// A task's state. An event without `completed` is not a task.
///
/// JSON: `false` (or `null` on input) = open task; a date or date-time string
/// = done at that time; `true` = done, time unknown (daily-note `- [x]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    Open,
    Done(Option<String>),
}

impl Completion {
    pub fn is_done(&self) -> bool {
        matches!(self, Self::Done(_))
    }
}

impl Serialize for Completion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Open => serializer.serialize_bool(false),
            Self::Done(None) => serializer.serialize_bool(true),
            Self::Done(Some(at)) => serializer.serialize_str(at),
        }
    }
}

impl<'de> Deserialize<'de> for Completion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CompletionVisitor;
        impl Visitor<'_> for CompletionVisitor {
            type Value = Completion;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("false, null, true or a completion date")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Completion, E> {
                Ok(if v {
                    Completion::Done(None)
                } else {
                    Completion::Open
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<Completion, E> {
                Ok(Completion::Open)
            }
            fn visit_none<E: de::Error>(self) -> Result<Completion, E> {
                Ok(Completion::Open)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Completion, E> {
                Ok(Completion::Done(Some(v.to_string())))
            }
        }
        deserializer.deserialize_any(CompletionVisitor)
    }
}

/// Declares [`Event`] with the note text fields among its own (after `url`,
/// where `subCategory` has always been in its JSON), called back with them
/// by [`note_text_fields!`](super::fields::note_text_fields).
macro_rules! declare_event {
    ({} $($(#[doc = $doc:literal])* $name:ident $wire:tt;)*) => {
        /// One event (or one occurrence of a series) as returned to clients.
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(rename_all = "camelCase", default)]
        pub struct Event {
            /// See the module docs for the id schemes.
            pub id: String,
            pub title: String,
            /// `YYYY-MM-DD`: the (occurrence's) first day; for an unexpanded series,
            /// the day the series starts.
            pub date: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub end_date: Option<String>,
            /// `HH:mm`; absent for all-day events.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub start_time: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub end_time: Option<String>,
            pub all_day: bool,
            pub calendar_id: String,
            pub calendar_name: String,
            /// Vault-relative path of the source note; absent for ICS events.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub file_path: Option<String>,
            /// Epoch milliseconds of the start; absent for all-day events.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub start_millis: Option<i64>,
            /// Epoch milliseconds of the end; absent for all-day events and for
            /// timed events without an end time.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub end_millis: Option<i64>,
            #[serde(rename = "type")]
            pub kind: EventType,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub days_of_week: Option<Vec<DayOfWeek>>,
            /// Monthly / yearly series: the day of the month (1-31).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub day_of_month: Option<i64>,
            /// Yearly series: the month (1-12), with `dayOfMonth`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub month: Option<i64>,
            /// Monthly series on a numbered weekday (the 2nd Tuesday, the last Friday).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub repeat_on: Option<RepeatOn>,
            /// Every `repeatInterval` weeks (weekly), months (monthly) or years
            /// (yearly), counted from `startRecur`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub repeat_interval: Option<i64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub start_recur: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub end_recur: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rrule: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub start_date: Option<String>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            pub skip_dates: Vec<String>,
            /// Present only for tasks; see [`Completion`].
            #[serde(skip_serializing_if = "Option::is_none")]
            pub completed: Option<Completion>,
            /// IANA zone the times are in; absent means the display time zone.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub timezone: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub category: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub description: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub url: Option<String>,
            $(
                $(#[doc = $doc])*
                #[serde(rename = $wire, skip_serializing_if = "Option::is_none")]
                pub $name: Option<String>,
            )*
            #[serde(skip_serializing_if = "Option::is_none")]
            pub location: Option<String>,
            /// The event's identity in another calendar (iCalendar `UID`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub uid: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub display: Option<DisplayMode>,
            /// Reminder `{"value": minutes before the start}` (0-1440), passed
            /// through as written in the note.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub notify: Option<serde_json::Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub alarms: Option<Vec<Alarm>>,
            /// Whether a reminder is also due at the end of the event.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub end_reminder: Option<bool>,
            /// A note detached from a series: the date (`YYYY-MM-DD`) of the series'
            /// occurrence it replaces; the series is the event with the same `uid`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub recurrence_id: Option<String>,
            /// Who may see the event, as iCalendar's `CLASS`: `PUBLIC`, `PRIVATE`,
            /// `CONFIDENTIAL` or another token a client sent (upper case).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub class: Option<String>,
            /// The events this one relates to (iCalendar `RELATED-TO`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub related_to: Option<Vec<Relation>>,
            /// On an expanded occurrence of a series: the occurrence's own date
            /// (`YYYY-MM-DD`), which together with `id` addresses that occurrence.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub instance_date: Option<String>,
        }
    };
}

super::fields::note_text_fields!(declare_event! {});

impl Event {
    /// True for tasks (events with a `completed` field).
    pub fn is_task(&self) -> bool {
        self.completed.is_some()
    }

    /// True for completed tasks.
    pub fn is_completed(&self) -> bool {
        self.completed.as_ref().is_some_and(Completion::is_done)
    }
}

/// Where an event is written down (`GET /api/v1/events/:id`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventDetails {
    pub calendar_id: String,
    pub event: Event,
    /// The note and line; `null` for ICS events, which live in no note.
    pub location: Option<Location>,
}

/// A position in the vault.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub file: FileRef,
    /// 0-based line of the event in the note, as in Obsidian: 0 for a Full
    /// Note event (the note itself), the list item's line for a daily note.
    pub line_number: usize,
}

/// A vault-relative note path.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct FileRef {
    pub path: String,
}
