//! One Obsidian Tasks line, read as the Tasks plugin reads it
//! (`TaskRegularExpressions.taskRegex` and `DefaultTaskSerializer`):
//!
//! ```markdown
//! - [ ] Pay rent #home 🔼 🔁 every month on the 1st ➕ 2026-10-01 📅 2026-11-01
//! > 1. [x] 09:00 - 10:00 Review ⏳ 2026-11-30 ✅ 2026-11-30 ^review
//! ```
//!
//! A line is a task when, after any indentation and `>` (blockquotes and
//! callouts), a list marker (`-`, `*`, `+` or `1.`), spaces and a one
//! character status box (`[ ]`, `[x]`, `[-]`, `[/]`, …) start it. The fields
//! are then taken off the end, in any order, until none is left: priority
//! (🔺 ⏫ 🔼 🔽 ⏬), dates (➕ created, 🛫 start, ⏳ scheduled, 📅 due, ✅ done,
//! ❌ cancelled, ⏰ reminder), 🔁 recurrence text, 🆔 id and ⛔ depends-on.
//! Tags met on the way are put back at the end of the description, as the
//! plugin shows them. A trailing block link (` ^id`) is set aside first.
//!
//! The description may hold a time, the two forms the Full Calendar plugin
//! reads: leading Day Planner times (`09:00 - 10:00 Title`, or one time) and
//! a time in parentheses anywhere (`Title (9:00 AM-10:00 AM)`, `(18:00)`).
//!
//! Every part keeps its byte range in the line, so a write can change one
//! field and leave every other byte as it was.

use std::ops::Range;

use chrono::{NaiveDate, NaiveTime};

use crate::settings::TaskDateField;

/// The Tasks plugin's own failsafe: fields are taken off the end at most
/// this many rounds.
const MAX_ROUNDS: usize = 20;

/// A date field: the date, and where its `YYYY-MM-DD` is in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dated {
    /// `None` when the ten characters are shaped like a date but name no
    /// day (`2026-02-30`).
    pub date: Option<NaiveDate>,
    /// The field from the space before its emoji to the end of its value.
    pub field: Range<usize>,
    /// The `YYYY-MM-DD` text.
    pub value: Range<usize>,
}

/// How a task's time is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeStyle {
    /// `09:00 - 10:00 Title`: leading the description.
    Planner,
    /// `Title (09:00-10:00)`: in parentheses.
    Parens,
}

/// A time written in the description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeForm {
    pub start: NaiveTime,
    pub end: Option<NaiveTime>,
    pub style: TimeStyle,
    /// Written with AM / PM.
    pub twelve_hour: bool,
    /// The times as written (for the planner form, without the spaces that
    /// follow them).
    pub range: Range<usize>,
}

/// The fields of a task, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields {
    pub created: Option<Dated>,
    pub start: Option<Dated>,
    pub scheduled: Option<Dated>,
    pub due: Option<Dated>,
    pub done: Option<Dated>,
    pub cancelled: Option<Dated>,
    /// ⏰ with a date or `YYYY-MM-DD HH:mm`, kept as written.
    pub reminder: Option<String>,
    /// The priority emoji.
    pub priority: Option<char>,
    /// The 🔁 text, e.g. `every week on Monday`.
    pub recurrence: Option<String>,
    pub id: Option<String>,
    pub depends_on: Vec<String>,
}

/// One task line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLine {
    /// 0-based line in the note.
    pub line: usize,
    /// The status character (`' '`, `x`, `X`, `-`, `/`, or a custom one).
    pub status: char,
    /// Where the status character is.
    pub status_at: Range<usize>,
    /// The description: fields and time taken out, tags kept, spaces
    /// collapsed.
    pub title: String,
    pub fields: Fields,
    pub time: Option<TimeForm>,
    /// Where the fields end: a trailing block link (` ^id`) or the line's
    /// end. A new field is written here.
    pub fields_end: usize,
    /// The text that names the task for its id: everything after the box
    /// but the done and cancelled dates.
    pub identity: String,
}

impl TaskLine {
    /// The date that places the task: `field`, else the others in
    /// [`TaskDateField::order`].
    pub fn placing(&self, field: TaskDateField) -> Option<(TaskDateField, &Dated)> {
        field.order().into_iter().find_map(|f| {
            let dated = match f {
                TaskDateField::Due => self.fields.due.as_ref(),
                TaskDateField::Scheduled => self.fields.scheduled.as_ref(),
                TaskDateField::Start => self.fields.start.as_ref(),
            };
            dated.map(|d| (f, d))
        })
    }

    /// Whether the status counts as finished: done (`x`, `X`) or cancelled
    /// (`-`).
    pub fn is_finished(&self) -> bool {
        matches!(self.status, 'x' | 'X' | '-')
    }
}

/// Reads `line` (without its line break) as a task; `None` when it is not
/// one.
pub fn parse_line(line: &str, number: usize) -> Option<TaskLine> {
    let (status, status_at, body_at) = task_prefix(line)?;
    // `end` moved back over whitespace, never into the box.
    let trim = |end: usize| body_at + line[body_at..end].trim_end().len();
    let mut fields = Fields::default();
    let mut tags: Vec<Range<usize>> = Vec::new();
    let mut end = trim(line.len());
    let fields_end = match block_link(&line[body_at..end]) {
        Some(start) => {
            end = trim(body_at + start);
            body_at + start
        }
        None => end,
    };
    for _ in 0..MAX_ROUNDS {
        let before = end;
        let text = &line[body_at..end];
        if let Some((at, emoji)) = trailing_priority(text) {
            fields.priority = Some(emoji);
            end = body_at + at;
        }
        let dates: [(&[&str], &mut Option<Dated>); 6] = [
            (&["✅"], &mut fields.done),
            (&["❌"], &mut fields.cancelled),
            (&["📅", "📆", "🗓"], &mut fields.due),
            (&["⏳", "⌛"], &mut fields.scheduled),
            (&["🛫"], &mut fields.start),
            (&["➕"], &mut fields.created),
        ];
        for (emojis, slot) in dates {
            end = trim(end);
            if let Some(dated) = trailing_date(line, body_at, end, emojis) {
                end = trim(dated.field.start.max(body_at));
                *slot = Some(dated);
            }
        }
        end = trim(end);
        if let Some((at, value)) = trailing_reminder(&line[body_at..end]) {
            fields.reminder = Some(value);
            end = body_at + at;
        }
        end = trim(end);
        if let Some((at, rule)) = trailing_recurrence(&line[body_at..end]) {
            fields.recurrence = Some(rule);
            end = body_at + at;
        }
        end = trim(end);
        if let Some(at) = trailing_tag(&line[body_at..end]) {
            tags.insert(0, body_at + at..end);
            end = body_at + at;
        }
        end = trim(end);
        if let Some((at, id)) = trailing_ids(&line[body_at..end], "🆔", false) {
            fields.id = id.into_iter().next();
            end = body_at + at;
        }
        end = trim(end);
        if let Some((at, ids)) = trailing_ids(&line[body_at..end], "⛔", true) {
            fields.depends_on = ids;
            end = body_at + at;
        }
        end = trim(end);
        if end == before {
            break;
        }
    }
    let description = &line[body_at..end];
    let time = time_form(description).map(|mut form| {
        form.range = body_at + form.range.start..body_at + form.range.end;
        form
    });
    let mut title = String::new();
    let mut kept = |text: &str| {
        for word in text.split_whitespace() {
            if !title.is_empty() {
                title.push(' ');
            }
            title.push_str(word);
        }
    };
    match &time {
        Some(form) => {
            kept(&line[body_at..form.range.start]);
            kept(&line[form.range.end..end]);
        }
        None => kept(description),
    }
    for tag in &tags {
        kept(&line[tag.clone()]);
    }
    let mut identity = String::new();
    let mut at = status_at.end + 1;
    let mut cuts: Vec<Range<usize>> = [&fields.done, &fields.cancelled]
        .into_iter()
        .flatten()
        .map(|d| d.field.clone())
        .collect();
    cuts.sort_by_key(|r| r.start);
    for cut in cuts {
        identity.push_str(&line[at..cut.start]);
        at = cut.end;
    }
    identity.push_str(&line[at..]);
    let identity = identity.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(TaskLine {
        line: number,
        status,
        status_at,
        title,
        fields,
        time,
        fields_end,
        identity,
    })
}

/// `indentation / > , list marker, spaces, [c], spaces`: the status, its
/// range, and where the body starts.
fn task_prefix(line: &str) -> Option<(char, Range<usize>, usize)> {
    let rest = line.trim_start_matches(|c: char| c.is_whitespace() || c == '>');
    let at = line.len() - rest.len();
    let marker = if rest.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || rest.as_bytes().get(digits) != Some(&b'.') {
            return None;
        }
        digits + 1
    };
    let after_marker = &rest[marker..];
    let spaces = after_marker.len() - after_marker.trim_start_matches(' ').len();
    if spaces == 0 {
        return None;
    }
    let boxed = &after_marker[spaces..];
    let inner = boxed.strip_prefix('[')?;
    let status = inner.chars().next()?;
    let after_status = &inner[status.len_utf8()..];
    after_status.strip_prefix(']')?;
    let status_start = at + marker + spaces + 1;
    let body = status_start + status.len_utf8() + 1;
    let body = body + (line.len() - body - line[body..].trim_start_matches(' ').len());
    Some((status, status_start..status_start + status.len_utf8(), body))
}

/// `end` moved back over whitespace.
fn trim_end(line: &str, end: usize) -> usize {
    line[..end].trim_end().len()
}

/// The start of a trailing ` ^block-id`, if any.
fn block_link(text: &str) -> Option<usize> {
    let caret = text.rfind(" ^")?;
    let id = &text[caret + 2..];
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')).then_some(caret)
}

/// A trailing priority emoji (with an optional variation selector).
fn trailing_priority(text: &str) -> Option<(usize, char)> {
    let text_vs = text.strip_suffix('\u{FE0F}').unwrap_or(text);
    let last = text_vs.chars().next_back()?;
    matches!(last, '🔺' | '⏫' | '🔼' | '🔽' | '⏬')
        .then(|| (trim_end(text, text_vs.len() - last.len_utf8()), last))
}

/// `emoji *YYYY-MM-DD` at the end of `line[body..end]`.
fn trailing_date(line: &str, body: usize, end: usize, emojis: &[&str]) -> Option<Dated> {
    let text = &line[body..end];
    let value_at = text.len().checked_sub(10)?;
    let value = text.get(value_at..)?;
    let shaped = value.bytes().enumerate().all(|(i, b)| match i {
        4 | 7 => b == b'-',
        _ => b.is_ascii_digit(),
    });
    if !shaped {
        return None;
    }
    let before = text[..value_at].trim_end_matches(' ');
    let before = before.strip_suffix('\u{FE0F}').unwrap_or(before);
    let emoji = emojis.iter().find(|e| before.ends_with(*e))?;
    // The field and the one space that separates it (removing it leaves
    // the rest of the line as it was before the field was added).
    let emoji_at = body + before.len() - emoji.len();
    let field_start = if line[..emoji_at].ends_with(' ') {
        emoji_at - 1
    } else {
        emoji_at
    };
    Some(Dated {
        date: NaiveDate::parse_from_str(value, "%Y-%m-%d").ok(),
        field: field_start..end,
        value: body + value_at..end,
    })
}

/// `⏰ YYYY-MM-DD` or `⏰ YYYY-MM-DD HH:mm` at the end.
fn trailing_reminder(text: &str) -> Option<(usize, String)> {
    let at = text.rfind('⏰')?;
    let value = text[at + '⏰'.len_utf8()..].trim_start_matches(' ');
    let shaped = |v: &str, pattern: &str| {
        v.len() == pattern.len()
            && v.bytes().zip(pattern.bytes()).all(|(b, p)| match p {
                b'9' => b.is_ascii_digit(),
                _ => b == p,
            })
    };
    (shaped(value, "9999-99-99") || shaped(value, "9999-99-99 99:99"))
        .then(|| (trim_end(text, at), value.to_string()))
}

/// `🔁 every …` at the end (the rule's characters are the plugin's:
/// letters, digits, `,`, `!` and spaces).
fn trailing_recurrence(text: &str) -> Option<(usize, String)> {
    let at = text.rfind('🔁')?;
    let rule = &text[at + '🔁'.len_utf8()..];
    let rule = rule.strip_prefix(' ').unwrap_or(rule);
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, ',' | ' ' | '!');
    (!rule.is_empty() && rule.chars().all(allowed))
        .then(|| (trim_end(text, at), rule.trim().to_string()))
}

/// A trailing `#tag` (after whitespace or at the start; none of the
/// characters the plugin ends a tag at).
fn trailing_tag(text: &str) -> Option<usize> {
    let at = text.rfind(char::is_whitespace).map_or(0, |i| {
        i + text[i..].chars().next().map_or(1, char::len_utf8)
    });
    let tag = text[at..].strip_prefix('#')?;
    let stops = " !@#$%^&*(),.?\":{}|<>";
    (!tag.is_empty() && !tag.contains(|c| stops.contains(c))).then_some(at)
}

/// `emoji id` (or, with `list`, `emoji id, id`) at the end; ids are
/// `[A-Za-z0-9_-]+`.
fn trailing_ids(text: &str, emoji: &str, list: bool) -> Option<(usize, Vec<String>)> {
    let at = text.rfind(emoji)?;
    let value = &text[at + emoji.len()..];
    let value = value.strip_prefix('\u{FE0F}').unwrap_or(value);
    let value = value.trim_start_matches(' ');
    let id_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let ids: Vec<String> = if list {
        value
            .split(',')
            .map(|id| id.trim_matches(' ').to_string())
            .collect()
    } else {
        vec![value.to_string()]
    };
    (ids.iter()
        .all(|id| !id.is_empty() && id.chars().all(id_char)))
    .then(|| (trim_end(text, at), ids))
}

/// The first time form of `description` (the Full Calendar plugin's order:
/// leading range, leading time, parenthesised range, parenthesised time).
fn time_form(description: &str) -> Option<TimeForm> {
    let lead = description.len() - description.trim_start().len();
    let text = &description[lead..];
    // A leading form needs a title after it.
    let titled = |len: usize| {
        let rest = &text[len..];
        rest.starts_with(char::is_whitespace) && !rest.trim().is_empty()
    };
    if let Some(((start, twelve), len)) = clock(text) {
        let dash = text[len..].trim_start();
        let ranged = dash.strip_prefix('-').and_then(|rest| {
            let rest = rest.trim_start();
            let ((end, end_twelve), end_len) = clock(rest)?;
            let consumed = text.len() - rest.len() + end_len;
            titled(consumed).then_some((end, twelve || end_twelve, consumed))
        });
        let form = |end, twelve_hour, consumed: usize| TimeForm {
            start,
            end,
            style: TimeStyle::Planner,
            twelve_hour,
            range: lead..lead + consumed,
        };
        if let Some((end, twelve_hour, consumed)) = ranged {
            return Some(form(Some(end), twelve_hour, consumed));
        }
        if titled(len) {
            return Some(form(None, twelve, len));
        }
    }
    paren_form(description, true).or_else(|| paren_form(description, false))
}

/// `(T-T)` (with `ranged`) or `(T)` anywhere in `text`.
fn paren_form(text: &str, ranged: bool) -> Option<TimeForm> {
    text.match_indices('(').find_map(|(open, _)| {
        let inner = &text[open + 1..];
        let ((start, twelve), len) = clock(inner)?;
        let mut rest = &inner[len..];
        let mut end = None;
        let mut twelve_hour = twelve;
        if ranged {
            let after_dash = rest.strip_prefix('-')?;
            let ((time, end_twelve), end_len) = clock(after_dash)?;
            end = Some(time);
            twelve_hour |= end_twelve;
            rest = &after_dash[end_len..];
        }
        rest.starts_with(')').then(|| TimeForm {
            start,
            end,
            style: TimeStyle::Parens,
            twelve_hour,
            range: open..text.len() - rest.len() + 1,
        })
    })
}

/// `H:MM` or `HH:MM`, optionally with ` AM` / `pm` (spaces allowed before
/// it), at the start of `text`: the time, whether it was 12-hour, and its
/// length. A time that names no time of day (`25:00`, `13:00 PM`) is none.
fn clock(text: &str) -> Option<((NaiveTime, bool), usize)> {
    let bytes = text.as_bytes();
    let hour_len = bytes
        .iter()
        .take(2)
        .take_while(|b| b.is_ascii_digit())
        .count();
    let minutes = bytes.get(hour_len + 1..hour_len + 3)?;
    if hour_len == 0 || bytes[hour_len] != b':' || !minutes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let hour: u32 = text[..hour_len].parse().ok()?;
    let minute: u32 = text[hour_len + 1..hour_len + 3].parse().ok()?;
    let mut len = hour_len + 3;
    let after = &text[len..];
    let spaced = after.trim_start();
    // `10:00 Amsterdam` is ten o'clock and a word, not 10 AM.
    let meridiem = spaced
        .get(..2)
        .filter(|_| !spaced[2..].starts_with(|c: char| c.is_alphanumeric()))
        .map(str::to_ascii_lowercase);
    let pm = match meridiem.as_deref() {
        Some(m @ ("am" | "pm")) => {
            len += after.len() - spaced.len() + 2;
            Some(m == "pm")
        }
        _ => None,
    };
    let hour = match pm {
        None => hour,
        Some(_) if !(1..=12).contains(&hour) => return None,
        Some(pm) => hour % 12 + if pm { 12 } else { 0 },
    };
    let time = NaiveTime::from_hms_opt(hour, minute, 0)?;
    Some(((time, pm.is_some()), len))
}
