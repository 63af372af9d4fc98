//! Quick-add: one line such as "Lunch with Ada tomorrow 12:30" read as a new
//! event's fields, in the display time zone. One grammar for every way in —
//! the REST route `POST /api/v1/events/quick`, the window's sidebar, the
//! command line and MCP — so a phrase means the same everywhere.
//!
//! [`parse`] is the whole grammar: a plain function of the text, "now", the
//! display zone and the calendars' names. The line is cut into [`words`];
//! at each word the phrases are tried in turn (a calendar, "all day", a
//! repeat, "until", "in 2 hours", a day, a time); the words no phrase took
//! are the title. docs/quick-add.md lists the phrases with the events they
//! make; the tests read that table.

mod dates;
mod repeat;
mod resolve;
mod times;
mod words;

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use chrono_tz::Tz;

use crate::calendar::{EventFields, SourceInfo};
use dates::DayFound;
use repeat::Repeat;
use times::TimeFound;
use words::Word;

/// The longest line read, in characters: a title is at most 500 bytes.
pub const MAX_TEXT_CHARS: usize = 1000;

/// What a user can type; shown in the sidebar's field and in errors.
pub const EXAMPLE: &str = "Lunch tomorrow 12:30";

/// A line quick-add cannot read, and why, said to the person who typed it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QuickAddError(String);

impl QuickAddError {
    fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// A calendar "in <name>" can pick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalendarName {
    pub id: String,
    pub name: String,
}

impl From<&SourceInfo> for CalendarName {
    fn from(source: &SourceInfo) -> Self {
        Self {
            id: source.id.clone(),
            name: source.name.clone(),
        }
    }
}

/// What a line is read against.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// The moment relative phrases ("tomorrow", "in 2 hours") count from.
    pub now: DateTime<Utc>,
    /// The display time zone: "tomorrow" is tomorrow there, and the times
    /// typed are wall times there.
    pub zone: Tz,
    pub calendars: &'a [CalendarName],
}

/// A line read: its event's fields and the calendar it named, if any. The
/// fields are the ones `POST /events` takes (wall times in the display zone,
/// no `timezone`): always `title`, `type` and `allDay`, and the day, times
/// and repeat the line gave.
#[derive(Debug, Clone, PartialEq)]
pub struct QuickAdd {
    pub fields: EventFields,
    pub calendar_id: Option<String>,
}

/// A phrase of the line, as found.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Day(DayFound),
    Time(TimeFound),
    FromNow(TimeDelta),
    Repeat(Repeat),
    Until(NaiveDate),
    Calendar(String),
    AllDay,
}

/// A phrase and the words it took.
#[derive(Debug, Clone)]
struct Found {
    piece: Piece,
    /// The words as typed, for messages.
    text: String,
}

/// Reads `text` as a new event (see the module docs and docs/quick-add.md).
pub fn parse(text: &str, context: &Context) -> Result<QuickAdd, QuickAddError> {
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(QuickAddError::new(format!(
            "The line is longer than {MAX_TEXT_CHARS} characters."
        )));
    }
    let words = words::split(text);
    if words.is_empty() {
        return Err(QuickAddError::new(format!(
            "Type what and when, e.g. “{EXAMPLE}”."
        )));
    }
    let today = context.now.with_timezone(&context.zone).date_naive();
    let mut taken = vec![false; words.len()];
    let mut found = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match piece_at(&words, i, today, context.calendars)? {
            Some((used, piece)) => {
                let used = used.max(1).min(words.len() - i);
                taken[i..i + used].fill(true);
                found.push(Found {
                    piece,
                    text: joined(&words[i..i + used]),
                });
                i += used;
            }
            None => i += 1,
        }
    }
    let title = title(&words, &taken);
    let fields = resolve::resolve(title, &found, context, text.trim())?;
    let calendar_id = found.iter().find_map(|f| match &f.piece {
        Piece::Calendar(id) => Some(id.clone()),
        _ => None,
    });
    Ok(QuickAdd {
        fields,
        calendar_id,
    })
}

/// A day typed on its own ("next friday", "march 3", "2027-01-15"), read
/// as the quick-add line reads its days, from `today`: the calendar window's
/// "Go to date".
pub fn read_day(text: &str, today: NaiveDate) -> Result<NaiveDate, QuickAddError> {
    let not_a_day = || {
        QuickAddError::new(format!(
            "“{}” is not a day: try “next friday”, “march 3” or “2027-01-15”.",
            text.trim()
        ))
    };
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(not_a_day());
    }
    let words = words::split(text);
    match dates::day_at(&words, 0, today)? {
        Some(found) if found.used == words.len() => Ok(found.first),
        _ => Err(not_a_day()),
    }
}

/// The phrase starting at word `i`, in the order the phrases are tried.
fn piece_at(
    words: &[Word],
    i: usize,
    today: NaiveDate,
    calendars: &[CalendarName],
) -> Result<Option<(usize, Piece)>, QuickAddError> {
    let word = words[i].lower.as_str();
    let next = words.get(i + 1).map_or("", |w| w.lower.as_str());
    if let Some((used, id)) = calendar_at(words, i, calendars) {
        return Ok(Some((used, Piece::Calendar(id))));
    }
    if word == "all" && next == "day" {
        return Ok(Some((2, Piece::AllDay)));
    }
    if word == "all" && next == "-" && words.get(i + 2).is_some_and(|w| w.lower == "day") {
        return Ok(Some((3, Piece::AllDay)));
    }
    if let Some((used, repeat)) = repeat::repeat_at(words, i) {
        return Ok(Some((used, Piece::Repeat(repeat))));
    }
    if matches!(word, "until" | "till" | "through" | "thru")
        && let Some(day) = dates::day_at(words, i + 1, today)?
    {
        return Ok(Some((1 + day.used, Piece::Until(day.first))));
    }
    if let Some((used, delta)) = times::from_now_at(words, i) {
        return Ok(Some((used, Piece::FromNow(delta))));
    }
    // "on Friday", "from Dec 3 to Dec 5": the connector goes with the day.
    let lead = usize::from(matches!(word, "on" | "from" | "by" | "the"));
    if let Some(day) = dates::day_at(words, i + lead, today)? {
        let (used, piece) = with_range_end(words, i + lead, day)?;
        return Ok(Some((lead + used, piece)));
    }
    Ok(times::time_at(words, i)?.map(|time| {
        let used = match time {
            TimeFound::Span { used, .. } | TimeFound::Length { used, .. } => used,
        };
        (used, Piece::Time(time))
    }))
}

/// A day, or with "- Dec 5" / "to Friday" after it a range of days.
fn with_range_end(
    words: &[Word],
    i: usize,
    day: DayFound,
) -> Result<(usize, Piece), QuickAddError> {
    let after = i + day.used;
    if day.last.is_none()
        && words
            .get(after)
            .is_some_and(|w| words::is_range_joiner(&w.lower))
        && let Some(end) = dates::day_at(words, after + 1, day.first)?
    {
        let range = DayFound {
            used: day.used + 1 + end.used,
            first: day.first,
            last: Some(end.first),
            today_by_weekday: false,
        };
        return Ok((range.used, Piece::Day(range)));
    }
    Ok((day.used, Piece::Day(day)))
}

/// "in Work": a calendar by its name, case-insensitive, the longest name
/// that fits.
fn calendar_at(words: &[Word], i: usize, calendars: &[CalendarName]) -> Option<(usize, String)> {
    if words[i].lower != "in" {
        return None;
    }
    calendars
        .iter()
        .filter_map(|calendar| {
            let name = words::split(&calendar.name);
            let fits = !name.is_empty()
                && words.len() > i + name.len()
                && name
                    .iter()
                    .zip(&words[i + 1..])
                    .all(|(n, w)| n.lower == w.lower);
            fits.then(|| (1 + name.len(), calendar.id.clone()))
        })
        .max_by_key(|(used, _)| *used)
}

/// The words no phrase took, as typed. A connector ("at", "on") right
/// before a phrase, and a dash or comma next to one, go with the phrase.
fn title(words: &[Word], taken: &[bool]) -> String {
    let is_taken = |k: Option<usize>| k.is_some_and(|k| taken.get(k).copied().unwrap_or(false));
    let mut kept: Vec<&Word> = Vec::new();
    for (k, word) in words.iter().enumerate() {
        if taken[k] {
            continue;
        }
        let before_phrase = is_taken(Some(k + 1));
        let after_phrase = is_taken(k.checked_sub(1));
        if words::is_connector(&word.lower) && before_phrase {
            continue;
        }
        if words::is_mark_word(&word.lower) && (before_phrase || after_phrase) {
            continue;
        }
        kept.push(word);
    }
    // A dash or comma left dangling at either end.
    while kept.first().is_some_and(|w| words::is_mark_word(&w.lower)) {
        kept.remove(0);
    }
    while kept.last().is_some_and(|w| words::is_mark_word(&w.lower)) {
        kept.pop();
    }
    let mut title = String::new();
    for word in kept {
        if word.spaced && !title.is_empty() {
            title.push(' ');
        }
        title.push_str(&word.text);
    }
    title
}

fn joined(words: &[Word]) -> String {
    let mut text = String::new();
    for word in words {
        if word.spaced && !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&word.text);
    }
    text
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::read_day;

    #[test]
    fn a_day_on_its_own_is_read_as_quick_add_reads_days() {
        // A Friday.
        let today = NaiveDate::from_ymd_opt(2026, 10, 23).unwrap();
        for (text, day) in [
            ("next friday", "2026-10-30"),
            ("march 3", "2027-03-03"),
            ("2027-01-15", "2027-01-15"),
            ("Tomorrow", "2026-10-24"),
        ] {
            assert_eq!(read_day(text, today).unwrap().to_string(), day, "{text}");
        }
        for text in ["", "lunch tomorrow", "tomorrow 9am", "30 feb"] {
            assert!(read_day(text, today).is_err(), "{text}");
        }
    }
}
