//! Writing to a task line: ticking it, unticking it, moving it to another
//! day or time. Only that line changes, and in it only the parts that say
//! what changed, so every other byte of the note stays as it was:
//!
//! - ticking: `[ ]` → `[x]` and ` ✅ YYYY-MM-DD` added after the last field
//!   (before a block link), as the Tasks plugin marks a task done (a ✅ date
//!   the open task still holds is set to the day instead);
//!   unticking: `[x]` (or `[-]`) → `[ ]`, its ✅ (or ❌) date removed;
//! - a new date rewrites the date that placed the task (📅, ⏳ or 🛫);
//! - new times rewrite the time written in the description, in its form
//!   (`09:00 - 10:00 Title` or `Title (9:00 AM-10:00 AM)`).
//!
//! Anything else (the title, making a task timed or all-day, the
//! recurrence) is edited in the note, and refused here with a reason, as is
//! any change to a recurring task: ticking one in Obsidian writes its next
//! occurrence, which Almanac does not.

use std::ops::Range;

use chrono::{NaiveDate, NaiveTime, Timelike};

use super::line::{TaskLine, TimeForm, TimeStyle};
use super::{ids, task_event, task_lines};
use crate::calendar::vault::Vault;
use crate::fsutil::atomic_write;
use crate::settings::TaskDateField;
use almanac_model::error::CalendarError;
use almanac_model::event::{Completion, EventType};
use almanac_model::fields::EventFields;
use almanac_model::spec::{EventSpec, format_date, format_time};

/// What a write changes in a task line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// `Some(Some(day))`: tick it, done on `day`; `Some(None)`: untick it.
    pub completed: Option<Option<NaiveDate>>,
    /// The new day of the placing date.
    pub date: Option<NaiveDate>,
    /// The new start and end times.
    pub time: Option<(NaiveTime, Option<NaiveTime>)>,
}

/// Applies `fields` to the task `id` of note `rel` and writes the note;
/// returns the task's (unchanged) line number. `today` is the done date
/// when the client sends `completed: true`.
pub fn update(
    vault: &Vault,
    rel: &str,
    id: &str,
    field: TaskDateField,
    fields: &EventFields,
    today: NaiveDate,
) -> Result<usize, CalendarError> {
    let path = vault.existing(rel)?;
    let bytes = std::fs::read(&path).map_err(|e| CalendarError::io(&path, e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| CalendarError::invalid("event", format!("`{rel}` is not UTF-8 text")))?;
    let tasks = task_lines(&text);
    let task = ids(rel, &tasks)
        .iter()
        .position(|candidate| candidate == id)
        .map(|index| &tasks[index])
        .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
    let current = task_event(task, field)
        .ok()
        .flatten()
        .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
    let change = change_of(&current.spec, fields, today)?;
    if change == Change::default() {
        return Ok(task.line);
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    let raw = lines[task.line];
    let (line, cr) = match raw.strip_suffix('\r') {
        Some(line) => (line, "\r"),
        None => (raw, ""),
    };
    let rewritten = format!("{}{cr}", edit_line(line, task, field, &change)?);
    lines[task.line] = &rewritten;
    let text = lines.join("\n");
    crate::history::record_write(rel, &path, Some(text.as_bytes()), || {
        atomic_write(&path, text.as_bytes()).map_err(|e| CalendarError::io(&path, e))
    })?;
    Ok(task.line)
}

/// What `fields` change in the task `current`, refusing what a task line
/// cannot hold.
pub fn change_of(
    current: &EventSpec,
    fields: &EventFields,
    today: NaiveDate,
) -> Result<Change, CalendarError> {
    let next = current.patched(fields)?;
    let refuse = |reason: &str| Err(CalendarError::invalid("task", reason.to_string()));
    if next.completed.is_none() {
        return refuse("a task line is always a task (`isTask` cannot be false)");
    }
    if next.all_day != current.all_day {
        return refuse(
            "a task's time is written in its text (`09:00 - 10:00 Title` or `Title (09:00-10:00)`): \
             add or remove it in the note",
        );
    }
    let mut rest = next.clone();
    rest.completed = current.completed.clone();
    rest.date = current.date;
    rest.start_time = current.start_time;
    rest.end_time = current.end_time;
    if rest != *current {
        return refuse(
            "only a task's status, date and time can be changed here; edit the rest in its note",
        );
    }
    if current.kind != EventType::Single && next != *current {
        return refuse(
            "a recurring task is changed in Obsidian, which writes its next occurrence when it is ticked",
        );
    }
    let done = |spec: &EventSpec| spec.completed.as_ref().is_some_and(Completion::is_done);
    let completed = match (done(current), done(&next)) {
        (false, true) => Some(Some(done_day(fields).unwrap_or(today))),
        (true, false) => Some(None),
        _ => None,
    };
    let times = (next.start_time, next.end_time);
    Ok(Change {
        completed,
        date: next.date.filter(|d| Some(*d) != current.date),
        time: match times.0 {
            Some(start) if times != (current.start_time, current.end_time) => {
                Some((start, times.1))
            }
            _ => None,
        },
    })
}

/// The day a client's `completed` names (`YYYY-MM-DD…`), if it names one.
fn done_day(fields: &EventFields) -> Option<NaiveDate> {
    let Some(Completion::Done(Some(at))) = &fields.completed else {
        return None;
    };
    NaiveDate::parse_from_str(at.trim().get(..10)?, "%Y-%m-%d").ok()
}

/// `line` (the task `task`) with `change` made.
pub fn edit_line(
    line: &str,
    task: &TaskLine,
    field: TaskDateField,
    change: &Change,
) -> Result<String, CalendarError> {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    match change.completed {
        Some(Some(day)) => {
            edits.push((task.status_at.clone(), "x".to_string()));
            // An open task may still hold a ✅ date (ticked and unticked by
            // hand): it is the day it is done now, as the plugin writes it.
            match &task.fields.done {
                Some(done) => edits.push((done.value.clone(), format_date(day))),
                None => {
                    let at = task.fields_end;
                    edits.push((at..at, format!(" ✅ {}", format_date(day))));
                }
            }
        }
        Some(None) => {
            edits.push((task.status_at.clone(), " ".to_string()));
            for finished in [&task.fields.done, &task.fields.cancelled]
                .into_iter()
                .flatten()
            {
                edits.push((finished.field.clone(), String::new()));
            }
        }
        None => {}
    }
    if let Some(day) = change.date {
        let (_, placed) = task
            .placing(field)
            .ok_or_else(|| CalendarError::invalid("date", "the task has no date to move"))?;
        edits.push((placed.value.clone(), format_date(day)));
    }
    if let Some((start, end)) = change.time {
        let form = task.time.as_ref().ok_or_else(|| {
            CalendarError::invalid("startTime", "the task has no time written in its text")
        })?;
        edits.push((form.range.clone(), time_text(form, start, end)));
    }
    // From the end, so every range still points where it did.
    edits.sort_by_key(|(range, _)| std::cmp::Reverse((range.start, range.end)));
    let mut out = line.to_string();
    for (range, text) in edits {
        out.replace_range(range, &text);
    }
    Ok(out)
}

/// The times written in `form`'s style.
fn time_text(form: &TimeForm, start: NaiveTime, end: Option<NaiveTime>) -> String {
    let clock = |t: NaiveTime| {
        if form.twelve_hour {
            let (pm, hour) = t.hour12();
            format!("{hour}:{:02} {}", t.minute(), if pm { "PM" } else { "AM" })
        } else {
            format_time(t)
        }
    };
    match (form.style, end) {
        (TimeStyle::Planner, Some(end)) => format!("{} - {}", clock(start), clock(end)),
        (TimeStyle::Planner, None) => clock(start),
        (TimeStyle::Parens, Some(end)) => format!("({}-{})", clock(start), clock(end)),
        (TimeStyle::Parens, None) => format!("({})", clock(start)),
    }
}
