//! Writing events into notes: creates, updates, moves, deletes and
//! suppressed occurrences.
//!
//! Every change is validated completely before the first byte is written, and
//! every file write is atomic (`fsutil`): a crash leaves the old note or the
//! new one, never a mix. A move writes the new note (refusing to replace an
//! existing one) before removing the old, so a crash in between leaves a
//! duplicate, never a loss. Functions return the vault-relative paths they
//! touched, for the cache to re-read.

use std::fs;

use chrono::NaiveDate;

use crate::calendar::sources::dailynote::{self, Style};
use crate::calendar::sources::dateformat::DateFormat;
use crate::calendar::sources::fullnote;
use crate::calendar::vault::Vault;
use crate::fsutil::{atomic_write, sync_dir};
use crate::history::record_write;
use almanac_model::error::CalendarError;
use almanac_model::event::EventType;
use almanac_model::fields::{EventFields, NOTE_TEXT};
use almanac_model::spec::{EventSpec, format_date};

pub(in crate::calendar) fn read(vault: &Vault, rel: &str) -> Result<String, CalendarError> {
    let path = vault.existing(rel)?;
    let bytes = fs::read(&path).map_err(|e| CalendarError::io(&path, e))?;
    String::from_utf8(bytes)
        .map_err(|_| CalendarError::invalid("event", format!("`{rel}` is not UTF-8 text")))
}

// The three ways a note is written; each is recorded in the history
// (`record_write`) just before it happens.

fn create_new(vault: &Vault, rel: &str, text: &str) -> Result<(), CalendarError> {
    create_bytes(vault, rel, text.as_bytes())
}

fn create_bytes(vault: &Vault, rel: &str, bytes: &[u8]) -> Result<(), CalendarError> {
    let path = vault.join(rel)?;
    record_write(rel, &path, Some(bytes), || vault.create_new(rel, bytes))
}

fn replace(vault: &Vault, rel: &str, text: &str) -> Result<(), CalendarError> {
    replace_bytes(vault, rel, text.as_bytes())
}

fn replace_bytes(vault: &Vault, rel: &str, bytes: &[u8]) -> Result<(), CalendarError> {
    let path = vault.existing(rel)?;
    record_write(rel, &path, Some(bytes), || {
        atomic_write(&path, bytes).map_err(|e| CalendarError::io(&path, e))
    })
}

fn remove(vault: &Vault, rel: &str) -> Result<(), CalendarError> {
    let path = vault.existing(rel)?;
    record_write(rel, &path, None, || {
        fs::remove_file(&path).map_err(|e| CalendarError::io(&path, e))?;
        if let Some(dir) = path.parent() {
            sync_dir(dir).map_err(|e| CalendarError::io(dir, e))?;
        }
        Ok(())
    })
}

/// The bytes of the note `rel`, `None` when there is none (an undo's check).
pub(in crate::calendar) fn file_state(
    vault: &Vault,
    rel: &str,
) -> Result<Option<Vec<u8>>, CalendarError> {
    match vault.existing(rel) {
        Ok(path) => fs::read(&path)
            .map(Some)
            .map_err(|e| CalendarError::io(&path, e)),
        Err(CalendarError::NotFound(_)) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Puts the note `rel` in the state `bytes` (`None`: no note), as an undo
/// does.
pub(in crate::calendar) fn put(
    vault: &Vault,
    rel: &str,
    bytes: Option<&[u8]>,
) -> Result<(), CalendarError> {
    let exists = file_state(vault, rel)?.is_some();
    match (bytes, exists) {
        (Some(bytes), true) => replace_bytes(vault, rel, bytes),
        (Some(bytes), false) => create_bytes(vault, rel, bytes),
        (None, true) => remove(vault, rel),
        (None, false) => Ok(()),
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

// ---- Full Note ----

/// How a new note is named when `YYYY-MM-DD Title.md` is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TakenName {
    /// Refused (`Conflict`): a person or script chose that title and date.
    #[default]
    Refuse,
    /// `YYYY-MM-DD Title 2.md`, `… 3.md`: a CalDAV client cannot choose a
    /// note's name, and two events may share a title and a day.
    Number,
}

/// Most numbered names tried before a create is refused after all.
const MAX_NUMBERED: usize = 100;

/// Creates the note of a new event in folder `dir`; returns its path.
pub fn create_fullnote(
    vault: &Vault,
    dir: &str,
    fields: &EventFields,
    taken: TakenName,
) -> Result<String, CalendarError> {
    let spec = EventSpec::default().patched(fields)?;
    let text = fullnote::render_new(&spec)?;
    let name = fullnote::file_name(&spec);
    let tries = if taken == TakenName::Number {
        MAX_NUMBERED
    } else {
        1
    };
    let mut outcome = Err(CalendarError::Conflict(String::new()));
    for n in 1..=tries {
        let numbered = match n {
            1 => name.clone(),
            n => format!("{} {n}.md", name.trim_end_matches(".md")),
        };
        let rel = join(dir, &numbered);
        outcome = create_new(vault, &rel, &text).map(|()| rel);
        if !matches!(outcome, Err(CalendarError::Conflict(_))) {
            break;
        }
    }
    outcome
}

/// Updates the note at `rel`; returns its (possibly new) path. The note is
/// renamed to `YYYY-MM-DD Title.md` when its first day or title changes.
pub fn update_fullnote(
    vault: &Vault,
    rel: &str,
    fields: &EventFields,
) -> Result<String, CalendarError> {
    rewrite_fullnote(vault, rel, None, fields)
}

/// Moves the note at `rel` into folder `dir` (another Full Note calendar)
/// with `fields` applied; its own keys and body come along unchanged.
pub fn move_fullnote(
    vault: &Vault,
    rel: &str,
    dir: &str,
    fields: &EventFields,
) -> Result<String, CalendarError> {
    rewrite_fullnote(vault, rel, Some(dir), fields)
}

/// Rewrites the note at `rel` in its folder, or with `into` in that one.
fn rewrite_fullnote(
    vault: &Vault,
    rel: &str,
    into: Option<&str>,
    fields: &EventFields,
) -> Result<String, CalendarError> {
    let text = read(vault, rel)?;
    let old = fullnote::spec_of(rel, &text)?;
    let new = old.patched(fields)?;
    let updated = fullnote::render_update(rel, &text, &old, &new)?;
    let renamed = old.first_day() != new.first_day() || old.title != new.title;
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    let name = if renamed {
        fullnote::file_name(&new)
    } else {
        name.to_string()
    };
    let target = join(into.unwrap_or(dir), &name);
    if target == rel {
        replace(vault, rel, &updated)?;
    } else {
        create_new(vault, &target, &updated)?;
        remove(vault, rel)?;
    }
    Ok(target)
}

/// Moves the Full Note event at `rel` into a daily note, as an item with
/// `fields` applied; returns that note's path. A note holding more than the
/// event (text, or keys of its own) is refused: an item could not keep it.
pub fn move_fullnote_to_daily(
    vault: &Vault,
    rel: &str,
    target: &DailyTarget,
    fields: &EventFields,
    existing_note: impl Fn(NaiveDate) -> Option<String>,
) -> Result<String, CalendarError> {
    let text = read(vault, rel)?;
    if fullnote::holds_more_than_event(&text) {
        return Err(CalendarError::invalid(
            "calendarId",
            "the note has text or keys of its own that a daily-note item cannot keep; \
             move it to a Full Note calendar instead",
        ));
    }
    let spec = daily_spec(fullnote::spec_of(rel, &text)?.patched(fields)?)?;
    let path = append_new_item(vault, target, &spec, &[], existing_note)?;
    remove(vault, rel)?;
    Ok(path)
}

/// Deletes the note at `rel`.
pub fn delete_fullnote(vault: &Vault, rel: &str) -> Result<(), CalendarError> {
    remove(vault, rel)
}

/// Adds `date` to the `skipDates` of the series at `rel`, and `uid` when
/// given and the note has none (a detached occurrence names its series by
/// it).
pub fn skip_fullnote_occurrence(
    vault: &Vault,
    rel: &str,
    date: NaiveDate,
    uid: Option<&str>,
) -> Result<(), CalendarError> {
    let text = read(vault, rel)?;
    let old = fullnote::spec_of(rel, &text)?;
    if old.kind == EventType::Single {
        return Err(CalendarError::invalid(
            "instanceDate",
            "the event is not recurring; delete it instead",
        ));
    }
    let pin = uid.filter(|_| old.uid.is_none());
    if old.skip_dates.contains(&date) && pin.is_none() {
        return Ok(());
    }
    let mut skips: Vec<String> = old.skip_dates.iter().copied().map(format_date).collect();
    skips.push(format_date(date));
    let fields = EventFields {
        skip_dates: Some(Some(skips)),
        uid: pin.map(|uid| Some(uid.to_string())),
        ..EventFields::default()
    };
    let new = old.patched(&fields)?;
    replace(
        vault,
        rel,
        &fullnote::render_update(rel, &text, &old, &new)?,
    )
}

// ---- Daily notes ----

/// A daily-note source's folder, heading and note names.
pub struct DailyTarget<'a> {
    pub dir: &'a str,
    pub heading: &'a str,
    pub format: &'a DateFormat,
}

impl<'a> DailyTarget<'a> {
    /// The target of a daily-note source, unless its notes cannot be named
    /// (an unsupported date format).
    pub fn new(
        dir: &'a str,
        heading: &'a str,
        format: &'a Result<DateFormat, String>,
    ) -> Result<Self, CalendarError> {
        let format = format.as_ref().map_err(|problem| {
            CalendarError::invalid(
                "calendarId",
                format!("daily notes cannot be written: {problem}"),
            )
        })?;
        Ok(Self {
            dir,
            heading,
            format,
        })
    }

    /// The path of the note for `date` (`existing`, or a new one in the
    /// folder, named by the date format).
    fn note_for(&self, date: NaiveDate, existing: Option<String>) -> String {
        existing.unwrap_or_else(|| join(self.dir, &format!("{}.md", self.format.render(date))))
    }
}

fn daily_spec(mut spec: EventSpec) -> Result<EventSpec, CalendarError> {
    // iCalendar's default: an item without a class stands for it.
    if spec.class.as_deref() == Some("PUBLIC") {
        spec.class = None;
    }
    if spec.kind != EventType::Single {
        return Err(CalendarError::invalid(
            "type",
            "daily-note events are single events",
        ));
    }
    // Keys a list item has no inline field for are refused, not dropped.
    let note_text = NOTE_TEXT
        .iter()
        .map(|field| (field.wire, (field.spec)(&spec).is_some()));
    for (field, present) in [
        ("alarms", spec.alarms.is_some()),
        ("class", spec.class.is_some()),
        ("relatedTo", spec.related_to.is_some()),
    ]
    .into_iter()
    .chain(note_text)
    {
        if present {
            return Err(CalendarError::invalid(
                field,
                "daily-note events cannot carry it; use a Full Note calendar",
            ));
        }
    }
    Ok(spec)
}

/// Appends `line` as the last item under the heading of the note `rel`,
/// creating the note and the heading as needed.
fn append_item(
    vault: &Vault,
    target: &DailyTarget,
    rel: &str,
    line: &str,
) -> Result<(), CalendarError> {
    let text = match vault.existing(rel) {
        Ok(_) => read(vault, rel)?,
        Err(CalendarError::NotFound(_)) => {
            return create_new(vault, rel, &format!("## {}\n{line}\n", target.heading));
        }
        Err(e) => return Err(e),
    };
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.split('\n').collect();
    let new_text = match dailynote::section(&lines, target.heading) {
        Some((first, end)) => {
            // After the section's last non-blank line, before trailing blanks.
            let at = (first..end)
                .rev()
                .find(|i| !lines[*i].trim().is_empty())
                .unwrap_or(first)
                + 1;
            let item = format!("{line}{}", newline.trim_end_matches('\n'));
            let mut lines = lines;
            lines.insert(at, &item);
            lines.join("\n")
        }
        None => {
            let mut out = text.clone();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            if !out.is_empty() {
                out.push_str(newline);
            }
            out.push_str(&format!("## {}{newline}{line}{newline}", target.heading));
            out
        }
    };
    replace(vault, rel, &new_text)
}

/// Creates a daily-note item; returns the note's path.
pub fn create_daily(
    vault: &Vault,
    target: &DailyTarget,
    fields: &EventFields,
    existing_note: impl Fn(NaiveDate) -> Option<String>,
) -> Result<String, CalendarError> {
    let spec = daily_spec(EventSpec::default().patched(fields)?)?;
    append_new_item(vault, target, &spec, &[], existing_note)
}

/// Appends `spec` (with the user's inline fields `extra`) as a new item of
/// its day's note; returns the note's path.
fn append_new_item(
    vault: &Vault,
    target: &DailyTarget,
    spec: &EventSpec,
    extra: &[(String, String)],
    existing_note: impl Fn(NaiveDate) -> Option<String>,
) -> Result<String, CalendarError> {
    let date = spec
        .date
        .ok_or_else(|| CalendarError::invalid("date", "is required"))?;
    let rel = target.note_for(date, existing_note(date));
    append_item(
        vault,
        target,
        &rel,
        &dailynote::render_line(spec, Style::NEW, extra),
    )?;
    Ok(rel)
}

/// The item with id `id` in the note `rel`, re-read from disk so a note
/// edited since it was indexed is still changed at the right line.
fn find_item(
    text: &str,
    target: &DailyTarget,
    rel: &str,
    id: &str,
) -> Result<dailynote::Item, CalendarError> {
    let items = dailynote::items_under_heading(text, target.heading);
    let ids = dailynote::item_ids(rel, items.iter().map(|i| &i.title));
    items
        .into_iter()
        .zip(ids)
        .find(|(_, item_id)| item_id == id)
        .map(|(item, _)| item)
        .ok_or_else(|| CalendarError::NotFound(id.to_string()))
}

/// Replaces (or with `None` removes) line `index` of `text`, keeping a
/// trailing `\r`.
fn set_line(text: &str, index: usize, new: Option<&str>) -> String {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let cr = lines.get(index).is_some_and(|l| l.ends_with('\r'));
    let replacement = new.map(|n| if cr { format!("{n}\r") } else { n.to_string() });
    match &replacement {
        Some(line) => lines[index] = line,
        None => {
            lines.remove(index);
        }
    }
    lines.join("\n")
}

/// Updates a daily-note item; returns `(note path, title)` of the result. An
/// item whose date changes moves to that day's note.
pub fn update_daily(
    vault: &Vault,
    target: &DailyTarget,
    rel: &str,
    id: &str,
    fields: &EventFields,
    existing_note: impl Fn(NaiveDate) -> Option<String>,
) -> Result<String, CalendarError> {
    let text = read(vault, rel)?;
    let item = find_item(&text, target, rel, id)?;
    let date = target
        .format
        .date_of(rel)
        .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
    let old = dailynote::item_spec(&item, date)?;
    let new = daily_spec(old.patched(fields)?)?;
    let extra = dailynote::extra_fields(&item);
    let new_date = new.date.unwrap_or(date);
    if new_date == date {
        let written = text.lines().nth(item.line).unwrap_or_default();
        let line = ticked(written, &item, &old, &new)
            .unwrap_or_else(|| dailynote::render_line(&new, Style::of(&item), &extra));
        replace(vault, rel, &set_line(&text, item.line, Some(&line)))?;
        return Ok(rel.to_string());
    }
    let other = target.note_for(new_date, existing_note(new_date));
    append_item(
        vault,
        target,
        &other,
        &dailynote::render_line(
            &new,
            Style {
                indent: "",
                ..Style::of(&item)
            },
            &extra,
        ),
    )?;
    replace(vault, rel, &set_line(&text, item.line, None))?;
    Ok(other)
}

/// `line` with only its checkbox changed, when (un)ticking it is all an
/// edit does: the rest of the line stays as the user wrote it, rather than
/// as [`dailynote::render_line`] would spell it.
fn ticked(line: &str, item: &dailynote::Item, old: &EventSpec, new: &EventSpec) -> Option<String> {
    let only_ticked = EventSpec {
        completed: new.completed.clone(),
        ..old.clone()
    };
    if only_ticked != *new || item.checkbox.is_none() {
        return None;
    }
    let done = new.completed.as_ref()?.is_done();
    let at = item.indent.len() + item.marker.len_utf8() + 1;
    let checkbox = line.get(at..at + 3)?;
    if !checkbox.starts_with('[') || !checkbox.ends_with(']') {
        return None;
    }
    let mark = if done { 'x' } else { ' ' };
    Some(format!("{}[{mark}]{}", &line[..at], &line[at + 3..]))
}

/// Removes a daily-note item.
pub fn delete_daily(
    vault: &Vault,
    target: &DailyTarget,
    rel: &str,
    id: &str,
) -> Result<(), CalendarError> {
    let text = read(vault, rel)?;
    let item = find_item(&text, target, rel, id)?;
    replace(vault, rel, &set_line(&text, item.line, None))
}

/// Moves the daily-note item `id` (in note `rel` of `from`) to the daily
/// notes of `to`, with `fields` applied; its own inline fields come along.
/// Returns the path of the note it is now in.
pub fn move_daily(
    vault: &Vault,
    from: &DailyTarget,
    rel: &str,
    id: &str,
    to: &DailyTarget,
    fields: &EventFields,
    existing_note: impl Fn(NaiveDate) -> Option<String>,
) -> Result<String, CalendarError> {
    let (spec, extra) = daily_item_patched(vault, from, rel, id, fields)?;
    let path = append_new_item(vault, to, &daily_spec(spec)?, &extra, existing_note)?;
    // Re-read: the item may have been added to this very note.
    delete_daily(vault, from, rel, id)?;
    Ok(path)
}

/// Moves the daily-note item `id` (in note `rel` of `from`) into a new note
/// in folder `dir` (a Full Note calendar), with `fields` applied. An item
/// with inline fields of its own is refused rather than losing them.
pub fn move_daily_to_fullnote(
    vault: &Vault,
    from: &DailyTarget,
    rel: &str,
    id: &str,
    dir: &str,
    fields: &EventFields,
) -> Result<String, CalendarError> {
    let (spec, extra) = daily_item_patched(vault, from, rel, id, fields)?;
    refuse_own_fields(&extra, "a Full Note event")?;
    let path = join(dir, &fullnote::file_name(&spec));
    create_new(vault, &path, &fullnote::render_new(&spec)?)?;
    delete_daily(vault, from, rel, id)?;
    Ok(path)
}

/// Refuses to move daily-note item `id` (in note `rel` of `from`) to a
/// CalDAV calendar when it has inline fields of its own: an event there has
/// no place for them, and the move would drop them.
pub(in crate::calendar) fn movable_daily_to_caldav(
    vault: &Vault,
    from: &DailyTarget,
    rel: &str,
    id: &str,
) -> Result<(), CalendarError> {
    let (_, extra) = daily_item_patched(vault, from, rel, id, &EventFields::default())?;
    refuse_own_fields(&extra, "a CalDAV event")
}

/// The refusal of a move to `into` (an event that has no place for a
/// daily-note item's own inline fields `extra`), naming the first.
fn refuse_own_fields(extra: &[(String, String)], into: &str) -> Result<(), CalendarError> {
    match extra.first() {
        Some((key, _)) => Err(CalendarError::invalid(
            "calendarId",
            format!("the item has an inline field of its own (`{key}`) that {into} does not keep"),
        )),
        None => Ok(()),
    }
}

/// The event of daily-note item `id` with `fields` applied, and its own
/// inline fields.
fn daily_item_patched(
    vault: &Vault,
    from: &DailyTarget,
    rel: &str,
    id: &str,
    fields: &EventFields,
) -> Result<(EventSpec, Vec<(String, String)>), CalendarError> {
    let text = read(vault, rel)?;
    let item = find_item(&text, from, rel, id)?;
    let date = from
        .format
        .date_of(rel)
        .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
    let spec = dailynote::item_spec(&item, date)?.patched(fields)?;
    Ok((spec, dailynote::extra_fields(&item)))
}
