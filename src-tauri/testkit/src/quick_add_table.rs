//! The quick-add phrase tables of `docs/quick-add.md`, read as test data, so
//! the doc and the tests of the core, REST and the window cannot drift.

use std::path::PathBuf;

use serde_json::Value;

/// What the doc says: the moment and zone the rows are read in, the
/// calendars they can name, the phrases with their events, and the lines
/// refused.
#[derive(Debug, Clone)]
pub struct Table {
    /// RFC 3339.
    pub now: String,
    /// IANA name.
    pub zone: String,
    /// `(id, name)`.
    pub calendars: Vec<(String, String)>,
    pub rows: Vec<Row>,
    pub refusals: Vec<Refusal>,
}

/// A phrase and the event it makes, as the doc's columns show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub phrase: String,
    pub shown: Shown,
}

/// An event as the table shows it (see [`shown`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub title: String,
    pub when: String,
    pub repeats: String,
    /// The calendar id the line named, `—` for none.
    pub calendar: String,
}

/// A line quick-add refuses, and a part of its message.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub phrase: String,
    pub message_part: String,
}

pub fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/quick-add.md")
}

/// The tables of `docs/quick-add.md`.
pub fn table() -> Table {
    let doc = std::fs::read_to_string(doc_path()).expect("docs/quick-add.md");
    let setting = |label: &str| {
        doc.lines()
            .find_map(|line| line.strip_prefix(&format!("- {label}: `")))
            .and_then(|rest| rest.split('`').next())
            .unwrap_or_else(|| panic!("docs/quick-add.md says `- {label}: `…``"))
            .to_string()
    };
    let mut table = Table {
        now: setting("Now"),
        zone: setting("Display zone"),
        calendars: vec![],
        rows: vec![],
        refusals: vec![],
    };
    let mut header: Option<Vec<String>> = None;
    for line in doc.lines() {
        let Some(cells) = cells(line) else {
            header = None;
            continue;
        };
        let Some(columns) = &header else {
            header = Some(cells);
            continue;
        };
        if cells.iter().all(|c| c.chars().all(|ch| ch == '-')) {
            continue;
        }
        match columns.first().map(String::as_str) {
            Some("Calendar name") => table.calendars.push((cells[1].clone(), cells[0].clone())),
            Some("You type") if columns.len() == 5 => table.rows.push(Row {
                phrase: cells[0].clone(),
                shown: Shown {
                    title: cells[1].clone(),
                    when: cells[2].clone(),
                    repeats: cells[3].clone(),
                    calendar: cells[4].clone(),
                },
            }),
            Some("You type") => table.refusals.push(Refusal {
                phrase: cells[0].clone(),
                message_part: cells[1].clone(),
            }),
            other => panic!("an unknown table in docs/quick-add.md: {other:?}"),
        }
    }
    assert!(
        table.rows.len() >= 10 && !table.refusals.is_empty() && !table.calendars.is_empty(),
        "docs/quick-add.md lost its tables"
    );
    table
}

/// A markdown table line's cells, code spans unwrapped.
fn cells(line: &str) -> Option<Vec<String>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(
        inner
            .split('|')
            .map(|cell| cell.trim().trim_matches('`').to_string())
            .collect(),
    )
}

/// An event's fields (quick-add's `event`, or an event as `GET
/// /events/{id}` answers) as the table shows it, with the calendar id
/// `calendar`.
pub fn shown(fields: &Value, calendar: Option<&str>) -> Shown {
    let text = |key: &str| fields[key].as_str().unwrap_or("").to_string();
    let all_day = fields["allDay"].as_bool().unwrap_or(false);
    let times = format!("{}–{}", text("startTime"), text("endTime"));
    let kind = fields["type"].as_str().unwrap_or("single");
    let (when, repeats) = if kind == "single" {
        let when = match (all_day, fields["endDate"].as_str()) {
            (true, Some(end)) if end != text("date") => {
                format!("{} – {end}, all day", text("date"))
            }
            (true, _) => format!("{}, all day", text("date")),
            (false, Some(end)) if end != text("date") => format!(
                "{} {} – {end} {}",
                text("date"),
                text("startTime"),
                text("endTime")
            ),
            (false, _) => format!("{} {times}", text("date")),
        };
        (when, "—".to_string())
    } else {
        let first = match kind {
            "rrule" => text("startDate"),
            _ => text("startRecur"),
        };
        let span = match fields["endRecur"].as_str() {
            Some(last) => format!("{first} to {last}"),
            None => format!("from {first}"),
        };
        let hours = if all_day {
            "all day".to_string()
        } else {
            times
        };
        (format!("{span}, {hours}"), repeats(fields))
    };
    Shown {
        title: text("title"),
        when,
        repeats,
        calendar: calendar.unwrap_or("—").to_string(),
    }
}

fn repeats(fields: &Value) -> String {
    if let Some(rule) = fields["rrule"].as_str() {
        return format!("rrule {rule}");
    }
    let interval = fields["repeatInterval"].as_i64().filter(|n| *n > 1);
    let every = |unit: &str, adverb: &str| match interval {
        Some(n) => format!("every {n} {unit}s"),
        None => adverb.to_string(),
    };
    let days: Vec<&str> = fields["daysOfWeek"]
        .as_array()
        .map(|days| days.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if days.len() == 7 && interval.is_none() {
        return "daily".into();
    }
    if !days.is_empty() {
        return format!("{} on {}", every("week", "weekly"), days.join(" "));
    }
    match (fields["month"].as_i64(), fields["dayOfMonth"].as_i64()) {
        (Some(month), Some(day)) => format!("{} on {month:02}-{day:02}", every("year", "yearly")),
        (None, Some(day)) => format!("{} on day {day}", every("month", "monthly")),
        _ => format!("unreadable series: {fields}"),
    }
}
