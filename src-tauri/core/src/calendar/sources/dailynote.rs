//! Daily-note calendars: events are list items under a heading of the daily
//! notes in a folder, named by Obsidian's daily-note date format
//! (`YYYY-MM-DD.md` by default; see [`super::dateformat`]).
//!
//! ```markdown
//! ## Events
//! - [ ] Call Ann [startTime:: 09:00]  [endTime:: 09:30]
//! - [x] Pay rent [allDay:: true]
//! - Dentist [startTime:: 14:00] [location:: Main St 1] [notify:: 15]
//! - [ ] 16:00 - 17:30 Review
//! ```
//!
//! Every list item in the heading's section (up to the next heading of the
//! same or a higher level) is an event on the note's date: `- [ ]` an open
//! task, `- [x]` a done one, a plain `- ` item no task. Dataview inline
//! fields `[key:: value]` carry `startTime`, `endTime`, `endDate`, `allDay`,
//! `timezone`, `category`, `url`, `location`, `uid`, `display`,
//! `endReminder` and `notify` (minutes before the start, as Full Calendar
//! writes it); other inline fields are the user's and are kept on rewrite.
//! A title starting `HH:mm - HH:mm ` (Full Calendar's Day Planner format)
//! gives the times when the item has no `startTime` / `endTime` field, and
//! such an item is written back in that format. Items without a start time
//! are all-day. Fenced code blocks are skipped.

use chrono::NaiveDate;
use chrono_tz::Tz;
use sha2::{Digest, Sha256};

use super::ParsedNote;
use super::dateformat::DateFormat;
use crate::calendar::index::cache::Indexed;
use almanac_model::error::CalendarError;
use almanac_model::event::{Completion, DisplayMode, EventType};
use almanac_model::id::EventId;
use almanac_model::series::recurrence::Timing;
use almanac_model::spec::{self, EventSpec, format_date, format_time};
use almanac_model::status::SkippedNote;

/// Inline fields that are part of the event.
const EVENT_FIELDS: [&str; 12] = [
    "startTime",
    "endTime",
    "endDate",
    "allDay",
    "timezone",
    "category",
    "url",
    "location",
    "uid",
    "display",
    "endReminder",
    "notify",
];

/// One list item, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// 0-based line in the note.
    pub line: usize,
    /// Leading whitespace.
    pub indent: String,
    /// The list marker (`-`, `*` or `+`).
    pub marker: char,
    /// `Some(' ')` for `[ ]`, `Some('x')` for `[x]`, `None` without a box.
    pub checkbox: Option<char>,
    /// The text without checkbox, inline fields and Day Planner times,
    /// trimmed.
    pub title: String,
    /// The `HH:mm - HH:mm ` times the title started with (Day Planner
    /// format), if it did and the item has no time field.
    pub planner: Option<(String, String)>,
    /// Inline fields in order of appearance.
    pub fields: Vec<(String, String)>,
}

/// Parses one line as a list item (`None` when it is not one).
pub fn parse_line(line: &str, line_number: usize) -> Option<Item> {
    let rest = line.trim_start();
    let indent = &line[..line.len() - rest.len()];
    let mut chars = rest.chars();
    let marker = chars.next().filter(|c| matches!(c, '-' | '*' | '+'))?;
    let after = chars.as_str();
    if !after.starts_with([' ', '\t']) {
        return None;
    }
    let mut text = after.trim_start();
    let mut checkbox = None;
    if let Some(inner) = text.strip_prefix('[') {
        let mut inner_chars = inner.chars();
        if let (Some(c), Some(']')) = (inner_chars.next(), inner_chars.next()) {
            let tail = inner_chars.as_str();
            if tail.is_empty() || tail.starts_with([' ', '\t']) {
                checkbox = Some(c);
                text = tail.trim_start();
            }
        }
    }
    let (title, fields) = split_inline_fields(text);
    // As in Full Calendar, the title's times count only without time fields.
    let timed = fields
        .iter()
        .any(|(k, _)| k == "startTime" || k == "endTime");
    let (planner, title) = match split_planner_times(&title).filter(|_| !timed) {
        Some((start, end, rest)) => (Some((start.to_string(), end.to_string())), rest.to_string()),
        None => (None, title),
    };
    Some(Item {
        line: line_number,
        indent: indent.to_string(),
        marker,
        checkbox,
        title,
        planner,
        fields,
    })
}

/// `HH:mm - HH:mm Title` → the two times and the title.
fn split_planner_times(title: &str) -> Option<(&str, &str, &str)> {
    let clock = |s: &str| {
        s.len() == 5
            && s.bytes().enumerate().all(|(i, b)| {
                if i == 2 {
                    b == b':'
                } else {
                    b.is_ascii_digit()
                }
            })
    };
    let (start, rest) = title.split_at_checked(5)?;
    let rest = rest.strip_prefix(" - ")?;
    let (end, rest) = rest.split_at_checked(5)?;
    let rest = rest.strip_prefix(' ')?.trim();
    (clock(start) && clock(end) && !rest.is_empty()).then_some((start, end, rest))
}

/// Separates `[key:: value]` fields from the rest of the text (the same
/// shape Dataview and Full Calendar accept: `[`, a key without `]`, `::`, an
/// optional space, a value without `]`, `]`).
fn split_inline_fields(text: &str) -> (String, Vec<(String, String)>) {
    let mut title = String::with_capacity(text.len());
    let mut fields = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let candidate = &rest[open + 1..];
        let parsed = candidate.find(']').and_then(|close| {
            let inner = &candidate[..close];
            let (key, value) = inner.split_once("::")?;
            let value = value.strip_prefix(' ').unwrap_or(value);
            (!key.is_empty() && !value.is_empty())
                .then(|| (key.to_string(), value.to_string(), close))
        });
        match parsed {
            Some((key, value, close)) => {
                title.push_str(&rest[..open]);
                fields.push((key.trim().to_string(), value.trim().to_string()));
                rest = &candidate[close + 1..];
            }
            None => {
                title.push_str(&rest[..=open]);
                rest = candidate;
            }
        }
    }
    title.push_str(rest);
    (title.trim().to_string(), fields)
}

/// Where the section of `heading` is: `(heading line, end line)`, the end
/// being the next heading of the same or a higher level (or the line count).
pub fn section(lines: &[&str], heading: &str) -> Option<(usize, usize)> {
    let mut fenced = false;
    let mut start: Option<(usize, usize)> = None;
    for (index, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let Some(level) = heading_level(line) else {
            continue;
        };
        match start {
            None if line.trim()[level..].trim() == heading => start = Some((index, level)),
            Some((first, start_level)) if level <= start_level => return Some((first, index)),
            _ => {}
        }
    }
    start.map(|(first, _)| (first, lines.len()))
}

fn heading_level(line: &str) -> Option<usize> {
    let trimmed = line.trim();
    let level = trimmed.bytes().take_while(|b| *b == b'#').count();
    let valid = (1..=6).contains(&level)
        && (trimmed.len() == level || trimmed[level..].starts_with([' ', '\t']));
    valid.then_some(level)
}

/// The list items of `heading`'s section.
pub fn items_under_heading(text: &str, heading: &str) -> Vec<Item> {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some((first, end)) = section(&lines, heading) else {
        return vec![];
    };
    let mut fenced = false;
    let mut items = Vec::new();
    for (index, line) in lines.iter().enumerate().take(end).skip(first + 1) {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && let Some(item) = parse_line(line.trim_end_matches('\r'), index) {
            items.push(item);
        }
    }
    items
}

/// The event an item describes, on the note's `date`.
pub fn item_spec(item: &Item, date: NaiveDate) -> Result<EventSpec, CalendarError> {
    let field = |key: &str| {
        item.fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let planner = item.planner.as_ref();
    let start_field = field("startTime").or(planner.map(|(start, _)| start.as_str()));
    let end_field = field("endTime").or(planner.map(|(_, end)| end.as_str()));
    let start_time = start_field
        .map(|v| spec::parse_time("startTime", v))
        .transpose()?;
    let all_day = match field("allDay") {
        Some("true") => true,
        Some("false") => false,
        Some(other) => {
            return Err(CalendarError::invalid(
                "allDay",
                format!("`{other}` is not true or false"),
            ));
        }
        None => start_time.is_none(),
    };
    let spec = EventSpec {
        title: item.title.clone(),
        kind: EventType::Single,
        all_day,
        date: Some(date),
        end_date: field("endDate")
            .map(|v| spec::parse_date("endDate", v))
            .transpose()?,
        start_time: if all_day { None } else { start_time },
        end_time: if all_day {
            None
        } else {
            end_field
                .map(|v| spec::parse_time("endTime", v))
                .transpose()?
        },
        completed: item.checkbox.map(|c| {
            if c == ' ' {
                Completion::Open
            } else {
                Completion::Done(None)
            }
        }),
        timezone: field("timezone").map(spec::parse_timezone).transpose()?,
        category: field("category").map(str::to_string),
        url: field("url").map(str::to_string),
        location: field("location").map(str::to_string),
        uid: field("uid").map(str::to_string),
        display: field("display")
            .map(|name| {
                DisplayMode::parse(name).ok_or_else(|| {
                    CalendarError::invalid(
                        "display",
                        format!("`{name}` is not {}", DisplayMode::NAMES),
                    )
                })
            })
            .transpose()?,
        end_reminder: match field("endReminder") {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(other) => {
                return Err(CalendarError::invalid(
                    "endReminder",
                    format!("`{other}` is not true or false"),
                ));
            }
        },
        notify: field("notify").map(notify_minutes).transpose()?,
        ..EventSpec::default()
    };
    spec.validate()?;
    Ok(spec)
}

/// `[notify:: 15]`: Full Calendar writes `notify` as its minutes.
fn notify_minutes(value: &str) -> Result<serde_json::Value, CalendarError> {
    let minutes: serde_json::Number = value.trim().parse().map_err(|_| {
        CalendarError::invalid("notify", format!("`{value}` is not a number of minutes"))
    })?;
    Ok(serde_json::json!({ "value": minutes }))
}

/// How an item is written: its indentation, list marker and whether its
/// times lead the title (Day Planner format).
#[derive(Debug, Clone, Copy)]
pub struct Style<'a> {
    pub indent: &'a str,
    pub marker: char,
    pub planner: bool,
}

impl Style<'_> {
    /// A new item: `- `, no indentation, times as fields.
    pub const NEW: Style<'static> = Style {
        indent: "",
        marker: '-',
        planner: false,
    };

    /// The style `item` is written in.
    pub fn of(item: &Item) -> Style<'_> {
        Style {
            indent: &item.indent,
            marker: item.marker,
            planner: item.planner.is_some(),
        }
    }
}

/// The list item line for `spec` in `style`, keeping the user's own inline
/// fields.
pub fn render_line(spec: &EventSpec, style: Style, extra: &[(String, String)]) -> String {
    let mut line = format!("{}{} ", style.indent, style.marker);
    match &spec.completed {
        Some(Completion::Open) => line.push_str("[ ] "),
        Some(Completion::Done(_)) => line.push_str("[x] "),
        None => {}
    }
    let planner = match (style.planner, spec.start_time, spec.end_time) {
        (true, Some(start), Some(end)) => Some((start, end)),
        _ => None,
    };
    if let Some((start, end)) = planner {
        line.push_str(&format!("{} - {} ", format_time(start), format_time(end)));
    }
    line.push_str(&spec.title);
    let mut push = |key: &str, value: String| line.push_str(&format!(" [{key}:: {value}]"));
    if spec.all_day {
        push("allDay", "true".to_string());
    }
    if planner.is_none() {
        if let Some(t) = spec.start_time {
            push("startTime", format_time(t));
        }
        if let Some(t) = spec.end_time {
            push("endTime", format_time(t));
        }
    }
    if let Some(d) = spec.end_date {
        push("endDate", format_date(d));
    }
    if let Some(tz) = spec.timezone {
        push("timezone", tz.name().to_string());
    }
    if let Some(c) = &spec.category {
        push("category", c.clone());
    }
    if let Some(u) = &spec.url {
        push("url", u.clone());
    }
    if let Some(l) = &spec.location {
        push("location", l.clone());
    }
    if let Some(u) = &spec.uid {
        push("uid", u.clone());
    }
    if let Some(d) = spec.display {
        push("display", d.as_str().to_string());
    }
    if let Some(r) = spec.end_reminder {
        push("endReminder", r.to_string());
    }
    if let Some(minutes) = spec.notify.as_ref().and_then(|n| n.get("value")) {
        push("notify", minutes.to_string());
    }
    for (key, value) in extra {
        push(key, value.clone());
    }
    line
}

/// [`render_line`], checked to read back as exactly `spec` (on `date`) with
/// the same user fields: a title that looks like a checkbox or an inline
/// field would silently change meaning, so it is refused instead.
pub fn render_checked(
    spec: &EventSpec,
    style: Style,
    extra: &[(String, String)],
    date: NaiveDate,
) -> Result<String, CalendarError> {
    let line = render_line(spec, style, extra);
    let same = parse_line(&line, 0).is_some_and(|item| {
        item_spec(&item, date).ok().as_ref() == Some(spec) && extra_fields(&item) == extra
    });
    if !same {
        return Err(CalendarError::invalid(
            "title",
            "cannot be written as a daily-note item unchanged (it looks like a checkbox or an inline [key:: value] field)",
        ));
    }
    Ok(line)
}

/// The user's own inline fields of an item (kept on rewrite).
pub fn extra_fields(item: &Item) -> Vec<(String, String)> {
    item.fields
        .iter()
        .filter(|(k, _)| !EVENT_FIELDS.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// Ids of the items of one note, in order (see the event module docs).
pub fn item_ids(path: &str, titles: impl IntoIterator<Item = impl AsRef<str>>) -> Vec<String> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    titles
        .into_iter()
        .map(|title| {
            let digest = Sha256::digest(title.as_ref().as_bytes());
            let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
            let count = match seen.iter_mut().find(|(h, _)| *h == hash) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((hash.clone(), 1));
                    1
                }
            };
            let item = if count == 1 {
                hash
            } else {
                format!("{hash}-{count}")
            };
            EventId::DailyNote {
                path: path.to_string(),
                item,
            }
            .to_string()
        })
        .collect()
}

/// Reads every item of one daily note.
pub fn parse(
    heading: &str,
    format: &DateFormat,
    path: &str,
    text: &str,
    display_tz: Tz,
) -> ParsedNote {
    let mut parsed = ParsedNote::default();
    let Some(date) = format.date_of(path) else {
        return parsed;
    };
    let items = items_under_heading(text, heading);
    let ids = item_ids(path, items.iter().map(|i| &i.title));
    for (item, id) in items.iter().zip(ids) {
        let outcome = item_spec(item, date).and_then(|spec| {
            let timing = Timing::compile(&spec, display_tz)?;
            Ok((spec, timing))
        });
        match outcome {
            Ok((spec, timing)) => {
                parsed
                    .entries
                    .push(Indexed::new(id, spec, timing, "", item.line).into());
            }
            Err(e) => parsed.skipped.push(SkippedNote {
                path: format!("{path}:{}", item.line),
                reason: e.to_string(),
            }),
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_items_with_fields_and_checkboxes() {
        let item = parse_line(
            "  - [x] Call Ann [startTime:: 09:00] [endTime::10:30] [mood:: ok]",
            4,
        )
        .unwrap();
        assert_eq!(item.indent, "  ");
        assert_eq!(item.checkbox, Some('x'));
        assert_eq!(item.title, "Call Ann");
        assert_eq!(item.fields.len(), 3);
        assert_eq!(item.fields[1], ("endTime".into(), "10:30".into()));
        let plain = parse_line("- Dentist [link] tomorrow", 0).unwrap();
        assert_eq!(plain.checkbox, None);
        assert_eq!(plain.title, "Dentist [link] tomorrow");
        assert!(parse_line("not a list", 0).is_none());
        assert!(parse_line("-nospace", 0).is_none());
    }

    #[test]
    fn day_planner_times_lead_the_title() {
        let item = parse_line("- [ ] 09:00 - 10:30 Review  [mood:: ok]", 0).unwrap();
        assert_eq!(item.title, "Review");
        assert_eq!(item.planner, Some(("09:00".into(), "10:30".into())));
        for not_planner in ["- 09:00 - 10:30", "- 9:00 - 10:30 Late", "- 09:00-10:30 X"] {
            assert_eq!(
                parse_line(not_planner, 0).unwrap().planner,
                None,
                "{not_planner}"
            );
        }
        // With time fields, the times are part of the title.
        let both = parse_line("- 09:00 - 10:30 Review [startTime:: 11:00]", 0).unwrap();
        assert_eq!(both.title, "09:00 - 10:30 Review");
        let spec = item_spec(&both, NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()).unwrap();
        assert_eq!(spec.start_time.map(format_time).as_deref(), Some("11:00"));
        assert_eq!(spec.end_time, None);
    }

    #[test]
    fn only_the_headings_section_counts() {
        let text = "# Day\n- outside\n## Events\n- [ ] a\n```\n- fenced\n```\n### Sub\n- b\n## Other\n- c\n";
        let items = items_under_heading(text, "Events");
        let titles: Vec<_> = items.iter().map(|i| i.title.as_str()).collect();
        assert_eq!(titles, ["a", "b"]);
        assert_eq!(items[0].line, 3);
    }

    #[test]
    fn ids_are_stable_and_distinct() {
        let ids = item_ids("d/2024-01-01.md", ["a", "b", "a"]);
        assert_eq!(ids[0], item_ids("d/2024-01-01.md", ["a"])[0]);
        assert!(ids[2].ends_with("-2"));
        assert_ne!(ids[0], ids[1]);
    }
}
