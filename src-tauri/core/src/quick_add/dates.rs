//! Day phrases: "tomorrow", "next friday", "on 12 Dec", "2026-12-01",
//! "in 3 days", "Dec 3-5". Days without a year never fall in the past.

use chrono::{Datelike, Days, Months, NaiveDate};

use super::QuickAddError;
use super::words::{self, Unit, Word};

/// A day phrase found: how many words it used, its first day and, for a
/// range written in one phrase ("Dec 3-5"), its last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayFound {
    pub used: usize,
    pub first: NaiveDate,
    pub last: Option<NaiveDate>,
    /// A weekday name ("friday", "this friday") that fell on today: with a
    /// time already past, it means the same day next week.
    pub today_by_weekday: bool,
}

fn at(words: &[Word], i: usize) -> &str {
    words.get(i).map_or("", |w| w.lower.as_str())
}

/// The day phrase starting at word `i`, if one does.
pub fn day_at(
    words: &[Word],
    i: usize,
    today: NaiveDate,
) -> Result<Option<DayFound>, QuickAddError> {
    let one = |used, first| {
        Ok(Some(DayFound {
            used,
            first,
            last: None,
            today_by_weekday: false,
        }))
    };
    let word = at(words, i);
    match word {
        "today" | "tonight" => return one(1, today),
        "tomorrow" | "tmrw" | "tmr" => return one(1, today + Days::new(1)),
        "yesterday" => return one(1, today - Days::new(1)),
        "day" if at(words, i + 1) == "after" && at(words, i + 2) == "tomorrow" => {
            return one(3, today + Days::new(2));
        }
        "the"
            if at(words, i + 1) == "day"
                && at(words, i + 2) == "after"
                && at(words, i + 3) == "tomorrow" =>
        {
            return one(4, today + Days::new(2));
        }
        _ => {}
    }
    if let Some(found) = weekday_phrase(words, i, today) {
        return Ok(Some(found));
    }
    if word == "next" {
        let next = match words::unit(at(words, i + 1)) {
            Some(Unit::Week) => today.checked_add_days(Days::new(7)),
            Some(Unit::Month) => today.checked_add_months(Months::new(1)),
            Some(Unit::Year) => today.checked_add_months(Months::new(12)),
            _ => None,
        };
        if let Some(day) = next {
            return one(2, day);
        }
    }
    if word == "in"
        && let Some(n) = words::count(at(words, i + 1))
        && let Some(unit) = words::unit(at(words, i + 2))
        && let Some(day) = days_later(today, n, unit)
    {
        return one(3, day);
    }
    // "3 days from now", "2 weeks later".
    if let Some(n) = words::count(word)
        && word != "a"
        && let Some(unit) = words::unit(at(words, i + 1))
        && let Some(after) = words::later(words, i + 2)
        && let Some(day) = days_later(today, n, unit)
    {
        return one(2 + after, day);
    }
    if let Some(day) = iso(word)? {
        return one(1, day);
    }
    if let Some(found) = day_then_month(words, i, today)? {
        return Ok(Some(found));
    }
    if let Some(found) = month_then_day(words, i, today)? {
        return Ok(Some(found));
    }
    slashed(word, today).map(|day| {
        day.map(|d| DayFound {
            used: 1,
            first: d,
            last: None,
            today_by_weekday: false,
        })
    })
}

/// `today` plus `n` days, weeks, months or years (none for hours).
pub fn days_later(today: NaiveDate, n: u32, unit: Unit) -> Option<NaiveDate> {
    match unit {
        Unit::Day => today.checked_add_days(Days::new(n.into())),
        Unit::Week => today.checked_add_days(Days::new(u64::from(n) * 7)),
        Unit::Month => today.checked_add_months(Months::new(n)),
        Unit::Year => today.checked_add_months(Months::new(n.checked_mul(12)?)),
        Unit::Minute | Unit::Hour => None,
    }
}

/// "friday", "this friday" (today or later), "next friday" (after today).
fn weekday_phrase(words: &[Word], i: usize, today: NaiveDate) -> Option<DayFound> {
    let (skip, after_today) = match at(words, i) {
        "this" | "coming" => (1, false),
        "next" => (1, true),
        _ => (0, false),
    };
    let day = words::weekday(at(words, i + skip))?;
    let mut date = today + Days::new(u64::from(after_today));
    while date.weekday() != day {
        date = date.succ_opt()?;
    }
    Some(DayFound {
        used: skip + 1,
        first: date,
        last: None,
        today_by_weekday: date == today,
    })
}

fn iso(word: &str) -> Result<Option<NaiveDate>, QuickAddError> {
    let shaped = word.len() == 10
        && word.bytes().enumerate().all(|(k, b)| match k {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !shaped {
        return Ok(None);
    }
    NaiveDate::parse_from_str(word, "%Y-%m-%d")
        .map(Some)
        .map_err(|_| QuickAddError::new(format!("{word} is not a date")))
}

/// A four-digit year in the calendar's range.
fn year(word: &str) -> Option<i32> {
    let year = words::small_number(word).filter(|_| word.len() == 4)?;
    (1900..=2999).contains(&year).then_some(year as i32)
}

/// The day `day` of `month`, in `year` or, without one, the first such day
/// from today on.
fn dated(
    day: u32,
    month: u32,
    year: Option<i32>,
    today: NaiveDate,
) -> Result<NaiveDate, QuickAddError> {
    let invalid = || QuickAddError::new(format!("{day} {} is not a date", month_name(month)));
    match year {
        Some(year) => NaiveDate::from_ymd_opt(year, month, day).ok_or_else(invalid),
        None => (today.year()..=today.year() + 8)
            .filter_map(|y| NaiveDate::from_ymd_opt(y, month, day))
            .find(|date| *date >= today)
            .ok_or_else(invalid),
    }
}

fn month_name(month: u32) -> &'static str {
    u8::try_from(month)
        .ok()
        .and_then(|m| chrono::Month::try_from(m).ok())
        .map_or("?", |m| m.name())
}

/// Words `i..` as ", 2026" or "2026": an optional year and the words it used.
fn year_after(words: &[Word], i: usize) -> (Option<i32>, usize) {
    match (at(words, i), year(at(words, i + 1))) {
        (",", Some(y)) => (Some(y), 2),
        (word, _) => year(word).map_or((None, 0), |y| (Some(y), 1)),
    }
}

/// "12 Dec", "12th of December 2026".
fn day_then_month(
    words: &[Word],
    i: usize,
    today: NaiveDate,
) -> Result<Option<DayFound>, QuickAddError> {
    let Some(day) = words::day_of_month(at(words, i)) else {
        return Ok(None);
    };
    let of = usize::from(at(words, i + 1) == "of");
    let Some(month) = words::month(at(words, i + 1 + of)) else {
        return Ok(None);
    };
    let (year, year_used) = year_after(words, i + 2 + of);
    let first = dated(day, month, year, today)?;
    Ok(Some(DayFound {
        used: 2 + of + year_used,
        first,
        last: None,
        today_by_weekday: false,
    }))
}

/// "Dec 12", "December 12th, 2026", and "Dec 3-5" (a range).
fn month_then_day(
    words: &[Word],
    i: usize,
    today: NaiveDate,
) -> Result<Option<DayFound>, QuickAddError> {
    let Some(month) = words::month(at(words, i)) else {
        return Ok(None);
    };
    let Some(day) = words::day_of_month(at(words, i + 1)) else {
        return Ok(None);
    };
    // "Dec 3-5": a second day of the same month, not "Dec 3 - Dec 5" (the
    // general range) nor "Dec 3 - 5pm".
    let to_day = (words::is_range_joiner(at(words, i + 2))
        && words::month(at(words, i + 4)).is_none())
    .then(|| words::day_of_month(at(words, i + 3)))
    .flatten()
    .filter(|_| {
        let next = at(words, i + 4);
        !matches!(next, "am" | "pm" | "a.m." | "p.m." | ":")
    });
    let used = if to_day.is_some() { 4 } else { 2 };
    let (year, year_used) = year_after(words, i + used);
    let first = dated(day, month, year, today)?;
    let last = match to_day {
        Some(to) => Some(dated(to, month, Some(first.year()), today)?),
        None => None,
    };
    Ok(Some(DayFound {
        used: used + year_used,
        first,
        last,
        today_by_weekday: false,
    }))
}

/// "12/3" or "12/3/2026": month, then day, as the sidebar read them.
fn slashed(word: &str, today: NaiveDate) -> Result<Option<NaiveDate>, QuickAddError> {
    let parts: Vec<&str> = word.split('/').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| words::small_number(p).is_none()) {
        return Ok(None);
    }
    let (Some(month), Some(day)) = (words::small_number(parts[0]), words::small_number(parts[1]))
    else {
        return Ok(None);
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return Ok(None);
    }
    let year = match parts.get(2) {
        Some(y) => {
            Some(year(y).ok_or_else(|| QuickAddError::new(format!("{word} is not a date")))?)
        }
        None => None,
    };
    dated(day, month, year, today).map(Some)
}
