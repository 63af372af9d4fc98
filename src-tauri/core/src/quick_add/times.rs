//! Time phrases: "at 3pm", "15:00", "3-4pm", "9:00 to 10:30", "noon",
//! "for 90 minutes", and "in 2 hours" (a moment from now).

use chrono::{NaiveTime, TimeDelta};

use super::QuickAddError;
use super::words::{self, Unit, Word};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Meridiem {
    Am,
    Pm,
}

/// A clock reading as written: "3" has neither minutes nor a meridiem.
#[derive(Debug, Clone, Copy)]
struct Reading {
    hour: u32,
    minute: u32,
    meridiem: Option<Meridiem>,
    /// A bare number ("3"): a time only where the phrase says so.
    bare: bool,
}

impl Reading {
    fn time(self, meridiem: Option<Meridiem>) -> Option<NaiveTime> {
        let hour = match meridiem {
            None => self.hour,
            Some(_) if !(1..=12).contains(&self.hour) => return None,
            Some(Meridiem::Am) => self.hour % 12,
            Some(Meridiem::Pm) => self.hour % 12 + 12,
        };
        NaiveTime::from_hms_opt(hour, self.minute, 0)
    }
}

/// A time phrase found: the words it used, its start and, for a range,
/// its end; or a length ("for 2 hours").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeFound {
    Span {
        used: usize,
        start: NaiveTime,
        end: Option<NaiveTime>,
    },
    Length {
        used: usize,
        length: TimeDelta,
    },
}

fn at(words: &[Word], i: usize) -> &str {
    words.get(i).map_or("", |w| w.lower.as_str())
}

fn meridiem(word: &str) -> Option<Meridiem> {
    match word {
        "am" | "a.m." | "a.m" => Some(Meridiem::Am),
        "pm" | "p.m." | "p.m" => Some(Meridiem::Pm),
        _ => None,
    }
}

/// "3", "3pm", "3:30pm", "15:00", "noon", "midnight"; then "pm" as a word
/// of its own. The reading and the words it used.
fn reading(words: &[Word], i: usize) -> Option<(usize, Reading)> {
    let word = at(words, i);
    let fixed = |hour| Reading {
        hour,
        minute: 0,
        meridiem: None,
        bare: false,
    };
    match word {
        "noon" | "midday" => return Some((1, fixed(12))),
        "midnight" => return Some((1, fixed(0))),
        _ => {}
    }
    let digits_end = word
        .find(|c: char| !c.is_ascii_digit() && c != ':' && c != '.')
        .unwrap_or(word.len());
    let (number, suffix) = word.split_at(digits_end);
    let (hour, minute) = match number.split_once([':', '.']) {
        Some((h, m)) if m.len() == 2 => (h, Some(m)),
        Some(_) => return None,
        None => (number, None),
    };
    if hour.is_empty() || hour.len() > 2 || !hour.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hour: u32 = hour.parse().ok()?;
    let minute: u32 = match minute {
        Some(m) => m.parse().ok().filter(|m| *m < 60)?,
        None => 0,
    };
    let (meridiem, used) = match (suffix, meridiem(at(words, i + 1))) {
        ("", Some(m)) => (Some(m), 2),
        ("", None) => (None, 1),
        (suffix, _) => (Some(self::meridiem(suffix)?), 1),
    };
    let bare = minute_less(number) && meridiem.is_none();
    (hour <= 23).then_some((
        used,
        Reading {
            hour,
            minute,
            meridiem,
            bare,
        },
    ))
}

fn minute_less(number: &str) -> bool {
    !number.contains([':', '.'])
}

/// The time phrase starting at word `i`, if one does. A bare number is a
/// time only after "at", "from" or "between", or when the range's end
/// names its meridiem ("3-4pm").
pub fn time_at(words: &[Word], i: usize) -> Result<Option<TimeFound>, QuickAddError> {
    if at(words, i) == "for"
        && let Some(n) = words::count(at(words, i + 1))
        && let Some(unit @ (Unit::Minute | Unit::Hour)) = words::unit(at(words, i + 2))
    {
        let length = match unit {
            Unit::Hour => TimeDelta::hours(n.into()),
            _ => TimeDelta::minutes(n.into()),
        };
        if length <= TimeDelta::zero() {
            return Err(QuickAddError::new("an event lasts more than no time"));
        }
        return Ok(Some(TimeFound::Length { used: 3, length }));
    }
    let lead = at(words, i);
    let introduced = matches!(lead, "at" | "@" | "from" | "between");
    let first = i + usize::from(introduced);
    let Some((used, start)) = reading(words, first) else {
        return Ok(None);
    };
    let after = first + used;
    let joiner = at(words, after);
    let joins = words::is_range_joiner(joiner) || (lead == "between" && joiner == "and");
    let end = if joins {
        reading(words, after + 1).filter(|(_, end)| !end.bare || introduced || !start.bare)
    } else {
        None
    };
    let Some((end_used, end)) = end else {
        if start.bare && !introduced {
            return Ok(None);
        }
        let time = start
            .time(start.meridiem)
            .ok_or_else(|| out_of_range(words, first))?;
        return Ok(Some(TimeFound::Span {
            used: after - i,
            start: time,
            end: None,
        }));
    };
    if start.bare && end.bare && !introduced {
        return Ok(None);
    }
    let end_time = end
        .time(end.meridiem)
        .ok_or_else(|| out_of_range(words, after + 1))?;
    // "3-4pm": the start takes the end's meridiem, unless that puts it after
    // the end ("11-1pm" is 11am to 1pm).
    let start_time = match (start.meridiem, end.meridiem) {
        (None, Some(m)) if start.hour <= 12 => {
            let same = start.time(Some(m));
            match same {
                Some(t) if t < end_time => Some(t),
                _ => start.time(Some(other(m))),
            }
        }
        (m, _) => start.time(m),
    }
    .ok_or_else(|| out_of_range(words, first))?;
    Ok(Some(TimeFound::Span {
        used: after + 1 + end_used - i,
        start: start_time,
        end: Some(end_time),
    }))
}

fn other(meridiem: Meridiem) -> Meridiem {
    match meridiem {
        Meridiem::Am => Meridiem::Pm,
        Meridiem::Pm => Meridiem::Am,
    }
}

fn out_of_range(words: &[Word], i: usize) -> QuickAddError {
    let word = words.get(i).map_or("", |w| w.text.as_str());
    QuickAddError::new(format!("“{word}” is not a time of day"))
}

/// "in 2 hours", "in 30 minutes": how long from now.
/// Also "2 hours from now" and "30 minutes later".
pub fn from_now_at(words: &[Word], i: usize) -> Option<(usize, TimeDelta)> {
    let (first, used) = match at(words, i) {
        "in" => (i + 1, 3),
        _ => match words::later(words, i + 2) {
            Some(after) => (i, 2 + after),
            None => return None,
        },
    };
    let n = words::count(at(words, first))?;
    let delta = match words::unit(at(words, first + 1))? {
        Unit::Hour => TimeDelta::hours(n.into()),
        Unit::Minute => TimeDelta::minutes(n.into()),
        _ => return None,
    };
    Some((used, delta))
}
