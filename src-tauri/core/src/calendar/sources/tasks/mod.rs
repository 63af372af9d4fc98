//! Obsidian Tasks calendars: the task lines of every note in a folder (or
//! the whole vault), read from the Markdown itself, so Obsidian may stay
//! closed.
//!
//! - [`line`]: one line in the Tasks plugin's emoji format, each part with
//!   its place in the line;
//! - [`recurrence`]: the 🔁 text as an RRULE;
//! - [`edit`]: ticking a task and moving it, one line rewritten.
//!
//! A task is an event on the date the source's `dateField` names (📅 due by
//! default), else on its other dates in [`TaskDateField::order`]; a task
//! with none of them is not on the calendar. It is all-day unless its
//! description holds a time. `[ ]`, `[/]` and other statuses are open; `[x]`
//! and `[X]` done (with the ✅ date when written), `[-]` cancelled, which
//! counts as finished too. An open task with a 🔁 rule is a series from its
//! date; a rule that cannot be read leaves the task once on its date, and
//! the source's status names it.
//!
//! Ids (`task:<note>::<item>`): the task's 🆔 (`id-<🆔>`) when it has one,
//! else a hash of its text without the status and the done and cancelled
//! dates, so lines added or ticked elsewhere in the note leave the id as
//! it was; duplicates get a counter (`-2`, `.2` for a 🆔).

pub mod edit;
pub mod line;
pub mod recurrence;

use std::collections::HashMap;

use chrono_tz::Tz;
use sha2::{Digest, Sha256};

use super::ParsedNote;
use crate::calendar::index::cache::Indexed;
use crate::settings::TaskDateField;
use almanac_model::error::CalendarError;
use almanac_model::event::{Completion, EventType};
use almanac_model::id::EventId;
use almanac_model::series::recurrence::Timing;
use almanac_model::spec::{EventSpec, format_date};
use almanac_model::status::SkippedNote;
use line::TaskLine;

/// Every task line of a note, in order: lines in fenced code blocks and the
/// YAML frontmatter are not tasks.
pub fn task_lines(text: &str) -> Vec<TaskLine> {
    let mut fence: Option<&str> = None;
    let mut frontmatter = text.starts_with("---\n") || text.starts_with("---\r\n");
    let mut tasks = Vec::new();
    for (number, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if frontmatter {
            frontmatter = number == 0 || line.trim_end() != "---";
            continue;
        }
        let trimmed = line.trim_start_matches(|c: char| c.is_whitespace() || c == '>');
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(opening)) => fence = Some(opening),
            (Some(open), Some(close)) if open == close => fence = None,
            (None, None) => tasks.extend(line::parse_line(line, number)),
            _ => {}
        }
    }
    tasks
}

/// The most tasks read from one note (a long-kept task list has hundreds);
/// past it the rest are left out, and the calendar's status says so.
pub const MAX_TASKS_PER_NOTE: usize = 10_000;

/// The ids of a note's tasks, in order (see the module docs).
pub fn ids(path: &str, tasks: &[TaskLine]) -> Vec<String> {
    // Keys seen so far and how often: a note of many tasks costs one look-up
    // per task, not a pass over every task before it.
    let mut seen: HashMap<String, usize> = HashMap::new();
    tasks
        .iter()
        .map(|task| {
            let (key, separator) = match &task.fields.id {
                Some(id) => (format!("id-{id}"), '.'),
                None => {
                    let digest = Sha256::digest(task.identity.as_bytes());
                    (
                        digest[..4].iter().map(|b| format!("{b:02x}")).collect(),
                        '-',
                    )
                }
            };
            let count = {
                let n = seen.entry(key.clone()).or_default();
                *n += 1;
                *n
            };
            let item = match count {
                1 => key,
                n => format!("{key}{separator}{n}"),
            };
            EventId::Task {
                path: path.to_string(),
                item,
            }
            .to_string()
        })
        .collect()
}

/// What one task means as an event, and the rule that could not be read
/// (the task is then kept once).
pub struct TaskEvent {
    pub spec: EventSpec,
    pub unread_rule: Option<String>,
}

/// The event `task` describes, or why it is not one (no date: `Ok(None)`).
pub fn task_event(task: &TaskLine, field: TaskDateField) -> Result<Option<TaskEvent>, String> {
    let Some((which, placed)) = task.placing(field) else {
        return Ok(None);
    };
    let date = placed.date.ok_or_else(|| {
        let name = match which {
            TaskDateField::Due => "due",
            TaskDateField::Scheduled => "scheduled",
            TaskDateField::Start => "start",
        };
        format!("its {name} date is not a day of the calendar")
    })?;
    let completed = if task.is_finished() {
        let finished = match task.status {
            '-' => &task.fields.cancelled,
            _ => &task.fields.done,
        };
        let on = finished.as_ref().and_then(|d| d.date).map(format_date);
        Completion::Done(on)
    } else {
        Completion::Open
    };
    let mut spec = EventSpec {
        title: task.title.clone(),
        kind: EventType::Single,
        all_day: task.time.is_none(),
        date: Some(date),
        start_time: task.time.as_ref().map(|t| t.start),
        end_time: task.time.as_ref().and_then(|t| t.end),
        completed: Some(completed),
        ..EventSpec::default()
    };
    let mut unread_rule = None;
    // A finished recurring task is the plugin's record of one occurrence
    // (it wrote the next one as a new line): it shows once.
    if let Some(text) = task
        .fields
        .recurrence
        .as_ref()
        .filter(|_| !task.is_finished())
    {
        match recurrence::rule(text) {
            Ok(rule) => {
                spec.kind = EventType::Rrule;
                spec.rrule = Some(rule);
                spec.start_date = Some(date);
                spec.date = None;
            }
            Err(why) => unread_rule = Some(why),
        }
    }
    spec.validate().map_err(|e| match e {
        CalendarError::InvalidInput { field, reason } => format!("{field} {reason}"),
        other => other.to_string(),
    })?;
    Ok(Some(TaskEvent { spec, unread_rule }))
}

/// Reads every task of one note. Tasks that cannot be events are named in
/// `skipped` (`path:line`), as are rules kept as one occurrence.
pub fn parse(field: TaskDateField, path: &str, text: &str, display_tz: Tz) -> ParsedNote {
    let mut parsed = ParsedNote::default();
    let mut tasks = task_lines(text);
    if tasks.len() > MAX_TASKS_PER_NOTE {
        parsed.skipped.push(SkippedNote {
            path: path.to_string(),
            reason: format!(
                "holds {} tasks; only its first {MAX_TASKS_PER_NOTE} are read",
                tasks.len()
            ),
        });
        tasks.truncate(MAX_TASKS_PER_NOTE);
    }
    let lines: Vec<&str> = text.split('\n').collect();
    for (task, id) in tasks.iter().zip(ids(path, &tasks)) {
        let place = format!("{path}:{}", task.line + 1);
        let event = task_event(task, field).and_then(|event| {
            let Some(event) = event else { return Ok(None) };
            let timing = Timing::compile(&event.spec, display_tz).map_err(|e| e.to_string())?;
            Ok(Some((event, timing)))
        });
        match event {
            Ok(None) => {}
            Ok(Some((event, timing))) => {
                if let Some(why) = event.unread_rule {
                    parsed.skipped.push(SkippedNote {
                        path: place,
                        reason: format!("kept once, on its date: {why}"),
                    });
                }
                let contents = lines.get(task.line).copied().unwrap_or_default();
                parsed
                    .entries
                    .push(Indexed::new(id, event.spec, timing, contents, task.line).into());
            }
            Err(reason) => parsed.skipped.push(SkippedNote {
                path: place,
                reason: format!("task not shown: {reason}"),
            }),
        }
    }
    parsed
}

/// The source's status from what its notes' task lines left out or kept
/// once (`None` when nothing was).
pub fn status(skipped: &[&SkippedNote]) -> Option<String> {
    let (first, others) = skipped.split_first()?;
    let more = match others.len() {
        0 => String::new(),
        1 => " (and 1 more line)".to_string(),
        n => format!(" (and {n} more lines)"),
    };
    Some(format!("{}: {}{more}", first.path, first.reason))
}

#[cfg(test)]
mod tests;
