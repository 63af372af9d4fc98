//! Daily-note file names in Obsidian's date format: the moment.js pattern
//! of the Daily notes core plugin (`.obsidian/daily-notes.json`, `format`).
//!
//! Supported tokens: `YYYY`, `MM`, `M`, `DD`, `D`, `MMM`, `MMMM` (English
//! month names), `ddd`, `dddd` (English weekday names) and literal text in
//! `[brackets]`; any other character that is not a letter is literal. A `/`
//! makes folders (`YYYY/MM/YYYY-MM-DD`): as in Obsidian, a note's date is read
//! from its file name by the pattern's last segment, and a new note goes to
//! the whole pattern's path. Other tokens are refused when the format is
//! read, so a format Almanac cannot follow is reported, never silently
//! matching nothing.

use chrono::{Datelike, NaiveDate};

/// Obsidian's default daily-note format.
pub const DEFAULT_FORMAT: &str = "YYYY-MM-DD";

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Year,
    /// `MM` (true) or `M`.
    Month(bool),
    /// `MMMM` (true) or `MMM`.
    MonthName(bool),
    /// `DD` (true) or `D`.
    Day(bool),
    /// `dddd` (true) or `ddd`.
    WeekdayName(bool),
}

/// A compiled daily-note date format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateFormat {
    pattern: String,
    /// The whole pattern (folders included), for new notes.
    path: Vec<Part>,
    /// The last `/` segment, for reading a note's file name.
    name: Vec<Part>,
}

impl Default for DateFormat {
    fn default() -> Self {
        Self::parse(DEFAULT_FORMAT).expect("the default format is supported")
    }
}

impl DateFormat {
    /// Compiles a moment.js pattern, or says which part is not supported.
    pub fn parse(pattern: &str) -> Result<DateFormat, String> {
        let path = tokens(pattern)?;
        let last = pattern.rsplit('/').next().unwrap_or(pattern);
        let name = tokens(last)?;
        let has = |f: fn(&Part) -> bool| name.iter().any(f);
        if !(has(|p| *p == Part::Year)
            && has(|p| matches!(p, Part::Month(_) | Part::MonthName(_)))
            && has(|p| matches!(p, Part::Day(_))))
        {
            return Err(format!(
                "date format `{pattern}`: the file name (`{last}`) must contain the year (YYYY), month (M, MM, MMM or MMMM) and day (D or DD)"
            ));
        }
        Ok(DateFormat {
            pattern: pattern.to_string(),
            path,
            name,
        })
    }

    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The vault path, relative to the daily-notes folder and without
    /// `.md`, of the note for `date`.
    pub fn render(&self, date: NaiveDate) -> String {
        render(&self.path, date)
    }

    /// The date of the daily note at `path` (any folder), when its file name
    /// is exactly the format's for that date.
    pub fn date_of(&self, path: &str) -> Option<NaiveDate> {
        let name = path.rsplit('/').next()?.strip_suffix(".md")?;
        let date = read(&self.name, name)?;
        (render(&self.name, date) == name).then_some(date)
    }
}

/// Splits a pattern into parts.
fn tokens(pattern: &str) -> Result<Vec<Part>, String> {
    let unsupported = |token: &str| {
        format!(
            "date format `{pattern}`: `{token}` is not supported (supported: YYYY, MM, M, DD, D, MMM, MMMM, ddd, dddd and [literal text])"
        )
    };
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '[' {
            let mut closed = false;
            for inner in chars.by_ref() {
                if inner == ']' {
                    closed = true;
                    break;
                }
                literal.push(inner);
            }
            if !closed {
                return Err(format!("date format `{pattern}`: `[` is never closed"));
            }
            continue;
        }
        if !c.is_ascii_alphabetic() {
            literal.push(c);
            continue;
        }
        let mut run = 1;
        while chars.next_if_eq(&c).is_some() {
            run += 1;
        }
        let part = match (c, run) {
            ('Y', 4) => Part::Year,
            ('M', 1 | 2) => Part::Month(run == 2),
            ('M', 3 | 4) => Part::MonthName(run == 4),
            ('D', 1 | 2) => Part::Day(run == 2),
            ('d', 3 | 4) => Part::WeekdayName(run == 4),
            _ => return Err(unsupported(&c.to_string().repeat(run))),
        };
        if !literal.is_empty() {
            parts.push(Part::Literal(std::mem::take(&mut literal)));
        }
        parts.push(part);
    }
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

fn render(parts: &[Part], date: NaiveDate) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Literal(text) => out.push_str(text),
            Part::Year => out.push_str(&format!("{:04}", date.year())),
            Part::Month(true) => out.push_str(&format!("{:02}", date.month())),
            Part::Month(false) => out.push_str(&date.month().to_string()),
            Part::Day(true) => out.push_str(&format!("{:02}", date.day())),
            Part::Day(false) => out.push_str(&date.day().to_string()),
            Part::MonthName(long) => out.push_str(short(MONTHS[date.month0() as usize], *long)),
            Part::WeekdayName(long) => out.push_str(short(
                WEEKDAYS[date.weekday().num_days_from_monday() as usize],
                *long,
            )),
        }
    }
    out
}

/// A name, or its three-letter abbreviation (as moment.js's English locale).
fn short(name: &str, long: bool) -> &str {
    if long { name } else { &name[..3] }
}

/// Reads year, month and day out of `text` (names are checked afterwards,
/// by rendering the date again).
fn read(parts: &[Part], mut text: &str) -> Option<NaiveDate> {
    let (mut year, mut month, mut day) = (None, None, None);
    for part in parts {
        match part {
            Part::Literal(literal) => text = text.strip_prefix(literal.as_str())?,
            Part::Year => year = Some(digits(&mut text, 4, 4)?),
            Part::Month(two) => month = Some(digits(&mut text, usize::from(*two) + 1, 2)?),
            Part::Day(two) => day = Some(digits(&mut text, usize::from(*two) + 1, 2)?),
            Part::MonthName(long) => {
                let index = MONTHS
                    .iter()
                    .position(|m| text.starts_with(short(m, *long)))?;
                text = &text[short(MONTHS[index], *long).len()..];
                month = Some(index as u32 + 1);
            }
            Part::WeekdayName(long) => {
                let name = WEEKDAYS
                    .iter()
                    .map(|d| short(d, *long))
                    .find(|d| text.starts_with(d))?;
                text = &text[name.len()..];
            }
        }
    }
    if !text.is_empty() {
        return None;
    }
    NaiveDate::from_ymd_opt(i32::try_from(year?).ok()?, month?, day?)
}

/// Takes `min..=max` leading ASCII digits (as many as there are).
fn digits(text: &mut &str, min: usize, max: usize) -> Option<u32> {
    let count = text
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    if count < min {
        return None;
    }
    let value = text[..count].parse().ok()?;
    *text = &text[count..];
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn renders_and_reads_back_every_supported_token() {
        let format = DateFormat::parse("YYYY/MM-MMM/dddd, MMMM D, YYYY [Log] ddd DD.M").unwrap();
        let day = date(2026, 3, 3);
        let path = format.render(day);
        assert_eq!(path, "2026/03-Mar/Tuesday, March 3, 2026 Log Tue 03.3");
        assert_eq!(format.date_of(&format!("Journal/{path}.md")), Some(day));
        assert_eq!(
            format.date_of("Journal/x/Tuesday, March 3, 2026 Log Tue 03.3.md"),
            Some(day)
        );
    }

    #[test]
    fn refuses_names_that_are_not_exactly_the_format() {
        let format = DateFormat::parse("dddd, MMMM D, YYYY").unwrap();
        // Wrong weekday, zero-padded day, missing extension, other text.
        assert_eq!(format.date_of("Monday, March 3, 2026.md"), None);
        assert_eq!(format.date_of("Tuesday, March 03, 2026.md"), None);
        assert_eq!(format.date_of("Tuesday, March 3, 2026"), None);
        assert_eq!(format.date_of("notes.md"), None);
        let default = DateFormat::default();
        assert_eq!(default.date_of("2026-02-30.md"), None);
        assert_eq!(default.date_of("d/2026-02-28.md"), Some(date(2026, 2, 28)));
    }

    #[test]
    fn unsupported_formats_say_why() {
        let week = DateFormat::parse("YYYY-[W]ww").unwrap_err();
        assert!(week.contains("`ww` is not supported"), "{week}");
        let no_day = DateFormat::parse("YYYY-MM").unwrap_err();
        assert!(no_day.contains("must contain"), "{no_day}");
        let open = DateFormat::parse("YYYY-MM-DD [x").unwrap_err();
        assert!(open.contains("never closed"), "{open}");
        assert!(DateFormat::parse("YY-MM-DD").is_err());
        assert!(DateFormat::parse("Do MMMM YYYY").is_err());
    }
}
