//! What the command line prints: every listing as lines for people, as a
//! JSON array of objects each with its `id` (`--json`), or as tab-separated
//! rows under a header, `id` first (`--tsv`).
//!
//! In TSV a value's backslash, tab, newline and carriage return are written
//! `\\`, `\t`, `\n`, `\r`, so each row is one line and `cut -f` finds its
//! columns.
//!
//! Lines for people and TSV rows go to terminals: every other control
//! character (ESC, BEL, DEL, the C1 range) and every invisible or
//! direction-changing one (U+202E, zero-width spaces, …) in a value is
//! written as a visible `[U+XXXX]` ([`for_terminal`]), so a title cannot move
//! the cursor, retitle or recolour the terminal, or reorder the line it is
//! on. JSON is data for programs and keeps every character.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value, json};

use super::published;
use crate::api::shown_text::{push_code_point, push_visible, visible};
use crate::vault_reminders::VaultReminder;

/// How a listing is printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Human,
    Json,
    Tsv,
}

/// What a listing holds; each has its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    Events,
    Calendars,
    Reminders,
}

type Column = (&'static str, fn(&Value) -> String);

fn text(value: &Value, key: &str) -> String {
    match &value[key] {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `value[key]` for a line people read: one line, nothing hidden (its own
/// newlines and tabs are `[U+000A]`, `[U+0009]`; see [`for_terminal`]).
fn shown(value: &Value, key: &str) -> String {
    let mut out = String::new();
    for c in text(value, key).chars() {
        match c {
            '\n' | '\t' => push_code_point(&mut out, c),
            c => push_visible(&mut out, c),
        }
    }
    out
}

/// A whole answer as a terminal may be given it: the control, invisible and
/// direction-changing characters of whatever it quotes (a server's error, a
/// note's name) written `[U+XXXX]`; its own line breaks and tabs kept.
pub fn for_terminal(out: &str) -> String {
    visible(out)
}

const EVENT_COLUMNS: &[Column] = &[
    ("id", |v| text(v, "id")),
    ("date", |v| text(v, "date")),
    ("start", |v| text(v, "startTime")),
    ("end", |v| text(v, "endTime")),
    ("endDate", |v| text(v, "endDate")),
    ("allDay", |v| text(v, "allDay")),
    ("title", |v| text(v, "title")),
    ("calendar", |v| text(v, "calendarId")),
];

const CALENDAR_COLUMNS: &[Column] = &[
    ("id", |v| text(v, "id")),
    ("name", |v| text(v, "name")),
    ("type", |v| text(v, "type")),
    ("editable", |v| text(v, "editable")),
    ("events", |v| text(v, "eventCount")),
    ("lastSync", published::last_sync),
    ("waiting", published::waiting),
    ("lastError", published::last_error),
    ("conflicts", published::conflicts),
];

const REMINDER_COLUMNS: &[Column] = &[
    ("id", |v| text(v, "id")),
    ("triggerAt", |v| text(v, "triggerAt")),
    ("title", |v| text(v, "title")),
    ("eventId", |v| text(v, "eventId")),
];

impl Listing {
    fn columns(self) -> &'static [Column] {
        match self {
            Listing::Events => EVENT_COLUMNS,
            Listing::Calendars => CALENDAR_COLUMNS,
            Listing::Reminders => REMINDER_COLUMNS,
        }
    }

    /// One item as a line for people.
    fn human(self, item: &Value, zone: Tz) -> String {
        match self {
            Listing::Events => format!("{} {}", shown(item, "date"), event_line(item)),
            Listing::Calendars => {
                let line = format!(
                    "{}  {}  ({}{}, {} events)",
                    shown(item, "id"),
                    shown(item, "name"),
                    shown(item, "type"),
                    if item["editable"] == true {
                        ""
                    } else {
                        ", read-only"
                    },
                    shown(item, "eventCount"),
                );
                match published::line(item, zone) {
                    Some(status) => format!("{line}\n{status}"),
                    None => line,
                }
            }
            Listing::Reminders => format!(
                "{}  {}  ({})",
                local_minute(&shown(item, "triggerAt"), zone),
                shown(item, "title"),
                shown(item, "eventId"),
            ),
        }
    }
}

/// An event's line after its date: times, title, calendar, id.
fn event_line(event: &Value) -> String {
    let when = match event["allDay"] == true {
        true => "all day".to_string(),
        false => match shown(event, "endTime").as_str() {
            "" => shown(event, "startTime"),
            end => format!("{}-{end}", shown(event, "startTime")),
        },
    };
    format!(
        "{when:<11}  {}  [{}]  {}",
        shown(event, "title"),
        Some(shown(event, "calendarName"))
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| shown(event, "calendarId")),
        shown(event, "id")
    )
}

/// `at` (RFC 3339) as `YYYY-MM-DD HH:MM` in `zone`.
fn local_minute(at: &str, zone: Tz) -> String {
    DateTime::parse_from_rfc3339(at)
        .map(|at| at.with_timezone(&zone).format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|_| at.to_string())
}

/// A TSV cell: one line, no tab, nothing hidden.
pub fn tsv_cell(value: &str) -> String {
    let mut cell = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' => cell.push_str("\\\\"),
            '\t' => cell.push_str("\\t"),
            '\n' => cell.push_str("\\n"),
            '\r' => cell.push_str("\\r"),
            other => push_visible(&mut cell, other),
        }
    }
    cell
}

/// `items` printed as `format` asks, every line ending in a newline.
pub fn render(listing: Listing, items: &[Value], format: Format, zone: Tz) -> String {
    match format {
        Format::Json => format!("{}\n", Value::Array(items.to_vec())),
        Format::Tsv => {
            let columns = listing.columns();
            let mut out = columns
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join("\t");
            out.push('\n');
            for item in items {
                let cells: Vec<String> = columns
                    .iter()
                    .map(|(_, cell)| tsv_cell(&cell(item)))
                    .collect();
                out.push_str(&cells.join("\t"));
                out.push('\n');
            }
            out
        }
        Format::Human => items
            .iter()
            .map(|item| format!("{}\n", listing.human(item, zone)))
            .collect(),
    }
}

/// The agenda for people: a heading per day from `first` on, then that
/// day's events (an event spanning days shows on its first day in the
/// agenda).
pub fn agenda(events: &[Value], first: NaiveDate, days: u32) -> String {
    let mut out = String::new();
    for day in first.iter_days().take(days as usize) {
        let date = day.format("%Y-%m-%d").to_string();
        out.push_str(&format!("{}\n", day.format("%a %Y-%m-%d")));
        let shown_on = |event: &&Value| {
            let starts = text(event, "date");
            starts == date || (day == first && starts < date)
        };
        let mut any = false;
        for event in events.iter().filter(shown_on) {
            out.push_str(&format!("  {}\n", event_line(event)));
            any = true;
        }
        if !any {
            out.push_str("  -\n");
        }
    }
    out
}

/// One event (`events show`) for people: its fields one per line.
pub fn details_for_people(event: &Value) -> String {
    let Some(fields) = event.as_object() else {
        return format!("{event}\n");
    };
    fields
        .iter()
        .map(|(key, _)| format!("{key}: {}\n", shown(event, key)))
        .collect()
}

/// `GET /events/{id}`'s details as one object: the event, with `location`
/// (the note and line) added.
pub fn details(mut details: Value) -> Value {
    let mut event = details["event"].take();
    if let Some(object) = event.as_object_mut() {
        object.insert("location".into(), details["location"].take());
    }
    event
}

/// A quick-add dry run as one object: the fields read, with the calendar
/// they would go to, and `id` null (nothing was made).
pub fn read_line(calendar_id: Value, fields: Value) -> Value {
    let mut object = Map::new();
    object.insert("id".into(), Value::Null);
    object.insert("calendarId".into(), calendar_id);
    if let Value::Object(fields) = fields {
        object.extend(fields);
    }
    Value::Object(object)
}

/// A pending reminder as the reminder daemon lists it (`GET /events`).
pub fn daemon_reminder(reminder: &Value) -> Value {
    json!({
        "id": reminder["id"],
        "title": reminder["title"],
        "triggerAt": reminder["trigger_at_rfc3339"],
        "eventId": reminder["event"]["id"],
        "source": reminder["source"],
    })
}

/// A vault reminder in the same shape as [`daemon_reminder`].
pub fn vault_reminder(reminder: &VaultReminder) -> Value {
    json!({
        "id": reminder.id,
        "title": reminder.title,
        "triggerAt": reminder.trigger.to_rfc3339(),
        "eventId": reminder.event_id,
        "source": "vault",
    })
}

/// Today in `zone`.
pub fn today(zone: Tz) -> NaiveDate {
    Utc::now().with_timezone(&zone).date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_keeps_one_row_per_line_and_id_first() {
        let events = [
            json!({"id": "fullnote:a.md", "title": "Tab\there\nand\\", "date": "2026-01-05",
                             "allDay": true, "calendarId": "local"}),
        ];
        let out = render(Listing::Events, &events, Format::Tsv, Tz::UTC);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("id\tdate\t"));
        let cells: Vec<&str> = lines[1].split('\t').collect();
        assert_eq!(cells.len(), EVENT_COLUMNS.len());
        assert_eq!(cells[0], "fullnote:a.md");
        assert_eq!(cells[6], "Tab\\there\\nand\\\\");
    }

    #[test]
    fn control_and_direction_characters_reach_no_terminal_raw() {
        let title = "\u{1b}]0;owned\u{7}\u{1b}[31mRed\u{9b}2J\u{7f} \u{202e}gnp.exe\nnext";
        let events = [
            json!({"id": "fullnote:a.md", "title": title, "date": "2026-01-05",
                             "allDay": true, "calendarId": "local"}),
        ];
        for format in [Format::Human, Format::Tsv] {
            let out = render(Listing::Events, &events, format, Tz::UTC);
            let raw = out
                .chars()
                .find(|c| (c.is_control() && *c != '\n' && *c != '\t') || *c == '\u{202e}');
            assert_eq!(raw, None, "{format:?}: {out:?}");
            assert!(
                out.contains(
                    "[U+001B]]0;owned[U+0007][U+001B][31mRed[U+009B]2J[U+007F] [U+202E]gnp.exe"
                ),
                "{out}"
            );
            assert_eq!(
                out.lines().count(),
                1 + usize::from(format == Format::Tsv),
                "{out}"
            );
        }
        let details = details_for_people(&events[0]);
        assert!(details.contains("title: [U+001B]]0;owned"), "{details}");
        assert_eq!(for_terminal("a\u{1b}[2Jb\n"), "a[U+001B][2Jb\n");
    }

    #[test]
    fn the_agenda_shows_each_day_and_an_event_begun_before_on_the_first() {
        let first = NaiveDate::from_ymd_opt(2026, 1, 5).unwrap();
        let events = [
            json!({"id": "a", "title": "Trip", "date": "2026-01-03", "allDay": true}),
            json!({"id": "b", "title": "Call", "date": "2026-01-06", "allDay": false,
                   "startTime": "08:00", "endTime": "08:30", "calendarName": "Work"}),
        ];
        assert_eq!(
            agenda(&events, first, 2),
            "Mon 2026-01-05\n  all day      Trip  []  a\n\
             Tue 2026-01-06\n  08:00-08:30  Call  [Work]  b\n"
        );
    }

    #[test]
    fn json_is_an_array_of_the_objects() {
        let items = [json!({"id": "x"})];
        let out = render(Listing::Calendars, &items, Format::Json, Tz::UTC);
        assert_eq!(
            serde_json::from_str::<Value>(&out).unwrap(),
            json!([{"id": "x"}])
        );
    }
}
