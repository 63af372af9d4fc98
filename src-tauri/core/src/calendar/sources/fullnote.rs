//! Full Note calendars: one note per event, the event in the frontmatter.
//!
//! Keys (Obsidian Full Calendar's): `title`, `allDay`, `date`, `endDate`,
//! `startTime`, `endTime`, `type` (single | recurring | rrule), `daysOfWeek`,
//! `dayOfMonth`, `month`, `repeatOn`, `repeatInterval` (recurring only),
//! `startRecur`, `endRecur`, `rrule`, `startDate`, `skipDates`, `completed`,
//! `timezone`, `category`, the note text fields ([`NOTE_TEXT`]:
//! `subCategory`, …), `description`, `url`, `location`, `uid`, `display`,
//! `notify`, `alarms`, `endReminder`, and Almanac's `recurrenceId` (a note
//! detached from a series), `class` (iCalendar `CLASS`) and `relatedTo`
//! (`RELATED-TO`: a list of UIDs, each a plain string or `{uid, relType}`).
//! Any other key is the user's and is kept as written. Reading is lenient
//! where Full Calendar is (a missing `title` comes from the file name, a
//! missing `allDay` or `type` is inferred); anything else malformed makes the
//! note invalid.

use chrono_tz::Tz;
use serde_norway::{Mapping, Value};

use crate::calendar::frontmatter::{self, Update};
use crate::calendar::index::cache::Indexed;
use almanac_model::error::CalendarError;
use almanac_model::event::{
    Alarm, AlarmAction, Completion, DayOfWeek, DisplayMode, EventType, Relation, RepeatOn,
};
use almanac_model::fields::NOTE_TEXT;
use almanac_model::id::EventId;
use almanac_model::series::recurrence::Timing;
use almanac_model::spec::{self, EventSpec, format_date, format_time};

/// The frontmatter keys that belong to the event, but the note text fields
/// ([`NOTE_TEXT`]).
pub const EVENT_KEYS: [&str; 31] = [
    "title",
    "allDay",
    "date",
    "endDate",
    "startTime",
    "endTime",
    "type",
    "daysOfWeek",
    "dayOfMonth",
    "month",
    "repeatOn",
    "repeatInterval",
    "startRecur",
    "endRecur",
    "rrule",
    "startDate",
    "skipDates",
    "completed",
    "timezone",
    "category",
    "description",
    "url",
    "location",
    "uid",
    "display",
    "notify",
    "alarms",
    "endReminder",
    "recurrenceId",
    "class",
    "relatedTo",
];

/// The id of the Full Note event stored at vault-relative `path`.
pub fn event_id(path: &str) -> String {
    EventId::FullNote {
        path: path.to_string(),
    }
    .to_string()
}

/// Reads one note into its cache entry, or says why it is not an event.
pub fn parse(path: &str, text: &str, display_tz: Tz) -> Result<Indexed, String> {
    let split = frontmatter::split(text).ok_or("no frontmatter")?;
    let mapping = frontmatter::parse(split.yaml)?;
    let spec = spec_from_mapping(&mapping, file_title(path)).map_err(|e| e.to_string())?;
    let timing = Timing::compile(&spec, display_tz).map_err(|e| e.to_string())?;
    let mut contents = String::with_capacity(split.body.len() + 64);
    contents.push_str(split.body);
    if let Some(description) = &spec.description {
        contents.push('\n');
        contents.push_str(description);
    }
    Ok(Indexed::new(event_id(path), spec, timing, &contents, 0))
}

/// The title a note without a `title` key gets: its file name without the
/// `.md` and without a leading `YYYY-MM-DD ` date.
pub fn file_title(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.strip_suffix(".md").unwrap_or(name);
    match stem.split_at_checked(10) {
        Some((date, rest)) if spec::parse_date("", date).is_ok() && rest.starts_with(' ') => {
            rest.trim_start()
        }
        _ => stem,
    }
}

/// The event described by a frontmatter mapping.
pub fn spec_from_mapping(map: &Mapping, fallback_title: &str) -> Result<EventSpec, CalendarError> {
    let text = |key: &str| -> Result<Option<String>, CalendarError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(CalendarError::invalid(key, "must be a plain value")),
        }
    };
    let date = |key: &str| -> Result<_, CalendarError> {
        text(key)?.map(|s| spec::parse_date(key, &s)).transpose()
    };
    let time = |key: &str| -> Result<_, CalendarError> {
        text(key)?.map(|s| spec::parse_time(key, &s)).transpose()
    };
    let start_time = time("startTime")?;
    let all_day = match map.get("allDay") {
        None | Some(Value::Null) => start_time.is_none(),
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
        Some(_) => return Err(CalendarError::invalid("allDay", "must be true or false")),
    };
    let days_of_week = match map.get("daysOfWeek") {
        None | Some(Value::Null) => vec![],
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .and_then(DayOfWeek::from_letter)
                    .ok_or_else(|| {
                        CalendarError::invalid(
                            "daysOfWeek",
                            "items must be day letters U M T W R F S",
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::String(s)) => s
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .map(|c| {
                DayOfWeek::from_letter(&c.to_string()).ok_or_else(|| {
                    CalendarError::invalid("daysOfWeek", format!("`{c}` is not a day letter"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => {
            return Err(CalendarError::invalid(
                "daysOfWeek",
                "must be a list of day letters",
            ));
        }
    };
    let skip_dates = match map.get("skipDates") {
        None | Some(Value::Null) => vec![],
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => spec::parse_date("skipDates", s),
                _ => Err(CalendarError::invalid(
                    "skipDates",
                    "items must be YYYY-MM-DD dates",
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => {
            return Err(CalendarError::invalid(
                "skipDates",
                "must be a list of dates",
            ));
        }
    };
    let completed = match map.get("completed") {
        None => None,
        Some(Value::Null) | Some(Value::Bool(false)) => Some(Completion::Open),
        Some(Value::Bool(true)) => Some(Completion::Done(None)),
        Some(Value::String(s)) => Some(Completion::Done(Some(s.clone()))),
        Some(_) => {
            return Err(CalendarError::invalid(
                "completed",
                "must be false, null, true or a date",
            ));
        }
    };
    let rrule = text("rrule")?;
    let kind = match text("type")?.as_deref() {
        Some("single") => EventType::Single,
        Some("recurring") => EventType::Recurring,
        Some("rrule") => EventType::Rrule,
        Some(other) => {
            return Err(CalendarError::invalid(
                "type",
                format!("`{other}` is not single, recurring or rrule"),
            ));
        }
        None if rrule.is_some() => EventType::Rrule,
        None if !days_of_week.is_empty() => EventType::Recurring,
        None => EventType::Single,
    };
    let notify = match map.get("notify") {
        None | Some(Value::Null) => None,
        Some(value) => Some(
            serde_json::to_value(value)
                .map_err(|e| CalendarError::invalid("notify", e.to_string()))?,
        ),
    };
    // Full Calendar's schema keeps these keys only on `recurring` events.
    let recurring = kind == EventType::Recurring;
    let number = |key: &str| -> Result<Option<i64>, CalendarError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            _ if !recurring => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| CalendarError::invalid(key, "must be a whole number")),
            Some(_) => Err(CalendarError::invalid(key, "must be a whole number")),
        }
    };
    let repeat_on = match map.get("repeatOn") {
        None | Some(Value::Null) => None,
        _ if !recurring => None,
        Some(value) => Some(repeat_on(value)?),
    };
    let alarms = match map.get("alarms") {
        None | Some(Value::Null) => None,
        Some(Value::Sequence(items)) => Some(items.iter().map(alarm).collect::<Result<_, _>>()?),
        Some(_) => return Err(CalendarError::invalid("alarms", "must be a list")),
    };
    let end_reminder = match map.get("endReminder") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            return Err(CalendarError::invalid(
                "endReminder",
                "must be true or false",
            ));
        }
    };
    let display = text("display")?
        .map(|name| {
            DisplayMode::parse(&name).ok_or_else(|| {
                CalendarError::invalid("display", format!("`{name}` is not {}", DisplayMode::NAMES))
            })
        })
        .transpose()?;
    let title = text("title")?.unwrap_or_else(|| fallback_title.to_string());
    let mut spec = EventSpec {
        title: title.trim().to_string(),
        kind,
        all_day,
        date: date("date")?,
        end_date: date("endDate")?,
        start_time: if all_day { None } else { start_time },
        end_time: if all_day { None } else { time("endTime")? },
        days_of_week,
        day_of_month: number("dayOfMonth")?,
        month: number("month")?,
        repeat_on,
        repeat_interval: number("repeatInterval")?,
        start_recur: date("startRecur")?,
        end_recur: date("endRecur")?,
        rrule,
        start_date: date("startDate")?,
        skip_dates,
        completed,
        timezone: text("timezone")?
            .map(|tz| spec::parse_timezone(&tz))
            .transpose()?,
        category: text("category")?,
        description: text("description")?,
        url: text("url")?,
        notify,
        location: text("location")?,
        uid: text("uid")?,
        display,
        alarms,
        end_reminder,
        recurrence_id: date("recurrenceId")?,
        class: text("class")?
            .map(|c| spec::upper_token(&c))
            .filter(|c| !c.is_empty()),
        related_to: match map.get("relatedTo") {
            None | Some(Value::Null) => None,
            Some(Value::Sequence(items)) => {
                Some(items.iter().map(relation).collect::<Result<Vec<_>, _>>()?)
                    .filter(|r| !r.is_empty())
            }
            Some(_) => return Err(CalendarError::invalid("relatedTo", "must be a list")),
        },
        ..EventSpec::default()
    };
    for field in NOTE_TEXT {
        *(field.spec_mut)(&mut spec) = text(field.wire)?;
    }
    spec.validate()?;
    Ok(spec)
}

/// `repeatOn: {week, weekday}` (ranges are checked with the event).
fn repeat_on(value: &Value) -> Result<RepeatOn, CalendarError> {
    let bad = || CalendarError::invalid("repeatOn", "must be {week: 1-4 or -1, weekday: 0-6}");
    let part = |key: &str| value.get(key).and_then(Value::as_i64).ok_or_else(bad);
    Ok(RepeatOn {
        week: part("week")?,
        weekday: part("weekday")?,
    })
}

/// One `relatedTo` item: a UID (a parent), or `{uid, relType?}`.
fn relation(value: &Value) -> Result<Relation, CalendarError> {
    let bad = || CalendarError::invalid("relatedTo", "items must be a uid or {uid, relType}");
    match value {
        Value::String(uid) => Ok(Relation {
            uid: uid.clone(),
            rel_type: None,
        }),
        Value::Mapping(_) => {
            let relation: Relation = serde_norway::from_value(value.clone()).map_err(|_| bad())?;
            Ok(Relation {
                rel_type: relation.rel_type.as_deref().map(spec::upper_token),
                ..relation
            })
        }
        _ => Err(bad()),
    }
}

/// One `alarms` item: `{minutesBefore, action?}`.
fn alarm(value: &Value) -> Result<Alarm, CalendarError> {
    let minutes_before = value
        .get("minutesBefore")
        .and_then(Value::as_i64)
        .ok_or_else(|| {
            CalendarError::invalid("alarms", "each alarm needs a whole minutesBefore")
        })?;
    let action = match value.get("action") {
        None | Some(Value::Null) => AlarmAction::default(),
        Some(action) => serde_norway::from_value(action.clone()).map_err(|_| {
            CalendarError::invalid("alarms", "action must be DISPLAY, AUDIO or EMAIL")
        })?,
    };
    Ok(Alarm {
        minutes_before,
        action,
    })
}

/// The frontmatter value of every event key for `spec` (`None`: key absent).
fn key_values(spec: &EventSpec) -> Vec<(&'static str, Option<Value>)> {
    let string = |s: &Option<String>| s.clone().map(Value::String);
    let date = |d: &Option<chrono::NaiveDate>| d.map(|d| Value::String(format_date(d)));
    let time = |t: &Option<chrono::NaiveTime>| t.map(|t| Value::String(format_time(t)));
    let list = |items: Vec<String>| {
        (!items.is_empty()).then(|| Value::Sequence(items.into_iter().map(Value::String).collect()))
    };
    let mut values = vec![
        ("title", Some(Value::String(spec.title.clone()))),
        ("allDay", Some(Value::Bool(spec.all_day))),
        ("date", date(&spec.date)),
        ("endDate", date(&spec.end_date)),
        ("startTime", time(&spec.start_time)),
        ("endTime", time(&spec.end_time)),
        ("type", Some(Value::String(spec.kind.as_str().to_string()))),
        (
            "daysOfWeek",
            list(
                spec.days_of_week
                    .iter()
                    .map(|d| d.letter().to_string())
                    .collect(),
            ),
        ),
        ("dayOfMonth", spec.day_of_month.map(Value::from)),
        ("month", spec.month.map(Value::from)),
        ("repeatOn", spec.repeat_on.as_ref().and_then(to_yaml)),
        ("repeatInterval", spec.repeat_interval.map(Value::from)),
        ("startRecur", date(&spec.start_recur)),
        ("endRecur", date(&spec.end_recur)),
        ("rrule", string(&spec.rrule)),
        ("startDate", date(&spec.start_date)),
        (
            "skipDates",
            list(spec.skip_dates.iter().copied().map(format_date).collect()),
        ),
        (
            "completed",
            spec.completed.as_ref().map(|c| match c {
                Completion::Open => Value::Bool(false),
                Completion::Done(None) => Value::Bool(true),
                Completion::Done(Some(at)) => Value::String(at.clone()),
            }),
        ),
        (
            "timezone",
            spec.timezone.map(|tz| Value::String(tz.name().to_string())),
        ),
        ("category", string(&spec.category)),
    ];
    // After `category`, where `subCategory` has always been.
    values.extend(
        NOTE_TEXT
            .iter()
            .map(|field| (field.wire, string((field.spec)(spec)))),
    );
    values.extend([
        ("description", string(&spec.description)),
        ("url", string(&spec.url)),
        ("location", string(&spec.location)),
        ("uid", string(&spec.uid)),
        (
            "display",
            spec.display.map(|d| Value::String(d.as_str().to_string())),
        ),
        ("notify", spec.notify.as_ref().and_then(to_yaml)),
        ("alarms", spec.alarms.as_ref().and_then(to_yaml)),
        ("endReminder", spec.end_reminder.map(Value::Bool)),
        (
            "recurrenceId",
            spec.recurrence_id.map(|d| Value::String(format_date(d))),
        ),
        ("class", string(&spec.class)),
        (
            "relatedTo",
            spec.related_to
                .as_ref()
                .map(|relations| Value::Sequence(relations.iter().map(relation_value).collect())),
        ),
    ]);
    values
}

/// A parent as its plain UID, any other relation as `{uid, relType}`.
fn relation_value(relation: &Relation) -> Value {
    match relation.rel_type {
        None => Value::String(relation.uid.clone()),
        Some(_) => to_yaml(relation).unwrap_or(Value::Null),
    }
}

fn to_yaml(value: &impl serde::Serialize) -> Option<Value> {
    serde_norway::to_value(value).ok()
}

/// The frontmatter changes that turn `old` into `new`: only keys whose value
/// differs are touched, so unchanged keys keep their exact text.
pub fn updates(old: Option<&EventSpec>, new: &EventSpec) -> Vec<Update> {
    let before = old.map(key_values);
    key_values(new)
        .into_iter()
        .enumerate()
        .filter(|(i, (_, value))| match &before {
            Some(before) => before[*i].1 != *value,
            None => value.is_some(),
        })
        .map(|(_, (key, value))| (key.to_string(), value))
        .collect()
}

/// A whole new note for `spec`: frontmatter only, empty body.
pub fn render_new(spec: &EventSpec) -> Result<String, CalendarError> {
    let yaml = frontmatter::rewrite("", &updates(None, spec))
        .map_err(|reason| CalendarError::invalid("event", reason))?;
    checked(&fallback_path(spec), format!("---\n{yaml}---\n"), spec)
}

/// A path whose file-name title is the spec's, for read-back checks.
fn fallback_path(spec: &EventSpec) -> String {
    format!("{}.md", spec.title)
}

/// `text`, if it reads back as exactly `expected` (the write is refused
/// otherwise, rather than storing something else than was asked for).
fn checked(path: &str, text: String, expected: &EventSpec) -> Result<String, CalendarError> {
    match spec_of(path, &text) {
        Ok(read_back) if read_back == *expected => Ok(text),
        _ => Err(CalendarError::invalid(
            "event",
            "the event cannot be stored in the note's frontmatter unchanged",
        )),
    }
}

/// `text` (the note at `path`) with its frontmatter changed from `old` to
/// `new`, the body kept byte-for-byte.
pub fn render_update(
    path: &str,
    text: &str,
    old: &EventSpec,
    new: &EventSpec,
) -> Result<String, CalendarError> {
    let split = frontmatter::split(text)
        .ok_or_else(|| CalendarError::invalid("event", "the note has no frontmatter"))?;
    let yaml = frontmatter::rewrite(split.yaml, &updates(Some(old), new))
        .map_err(|reason| CalendarError::invalid("event", reason))?;
    checked(
        path,
        format!("{}{}{}{}", split.head, yaml, split.close, split.body),
        new,
    )
}

/// Whether the note holds more than its event: a body, or frontmatter keys
/// of the user's own.
pub fn holds_more_than_event(text: &str) -> bool {
    let Some(split) = frontmatter::split(text) else {
        return true;
    };
    !split.body.trim().is_empty()
        || frontmatter::parse(split.yaml).map_or(true, |mapping| {
            mapping
                .keys()
                .any(|key| key.as_str().is_none_or(|k| !is_event_key(k)))
        })
}

/// Whether the frontmatter `key` is one of the event's.
fn is_event_key(key: &str) -> bool {
    EVENT_KEYS.contains(&key) || NOTE_TEXT.iter().any(|field| field.wire == key)
}

/// Reads the spec of an existing note (for updates).
pub fn spec_of(path: &str, text: &str) -> Result<EventSpec, CalendarError> {
    let split = frontmatter::split(text)
        .ok_or_else(|| CalendarError::invalid("event", "the note has no frontmatter"))?;
    let mapping = frontmatter::parse(split.yaml).map_err(|r| CalendarError::invalid("event", r))?;
    spec_from_mapping(&mapping, file_title(path))
}

/// The file name for a new note: `YYYY-MM-DD Title.md`, with characters that
/// are unsafe in file names (on any OS, or for Obsidian links) replaced by
/// `_`, and the title shortened to keep the name under common limits.
pub fn file_name(spec: &EventSpec) -> String {
    const MAX_TITLE_CHARS_BYTES: usize = 200;
    let mut title: String = spec
        .title
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' | '#' | '^' | '[' | ']' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    if title.len() > MAX_TITLE_CHARS_BYTES {
        let mut cut = MAX_TITLE_CHARS_BYTES;
        while !title.is_char_boundary(cut) {
            cut -= 1;
        }
        title.truncate(cut);
    }
    let title = title.trim_end_matches(['.', ' ']).trim();
    let date = spec.first_day().map(format_date).unwrap_or_default();
    format!("{date} {title}.md")
}
