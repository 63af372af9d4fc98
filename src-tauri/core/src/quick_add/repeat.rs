//! Repeat phrases: "every Monday", "every day", "every 2 weeks", "daily",
//! "every weekday", "every Mon and Wed", "every 2 weeks on Friday".

use chrono::Weekday;

use super::words::{self, Unit, Word};

/// How a series repeats. Weekly with no days repeats on its first day's
/// weekday.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repeat {
    Daily { interval: u32 },
    Weekly { interval: u32, days: Vec<Weekday> },
    Monthly { interval: u32 },
    Yearly { interval: u32 },
}

fn at(words: &[Word], i: usize) -> &str {
    words.get(i).map_or("", |w| w.lower.as_str())
}

const WORKDAYS: [Weekday; 5] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
];

/// The repeat phrase starting at word `i` and the words it used.
pub fn repeat_at(words: &[Word], i: usize) -> Option<(usize, Repeat)> {
    let word = at(words, i);
    let adverb = match word {
        "daily" => Some(Repeat::Daily { interval: 1 }),
        "weekly" => Some(Repeat::Weekly {
            interval: 1,
            days: vec![],
        }),
        "monthly" => Some(Repeat::Monthly { interval: 1 }),
        "yearly" | "annually" => Some(Repeat::Yearly { interval: 1 }),
        "weekdays" => Some(Repeat::Weekly {
            interval: 1,
            days: WORKDAYS.to_vec(),
        }),
        _ => None,
    };
    if let Some(repeat) = adverb {
        return Some(with_days(words, i + 1, repeat));
    }
    // "Mondays", "Tuesdays and Thursdays": every such day.
    if words::weekday(word).is_none() && words::weekday_plural(word).is_some() {
        let (used, days) = weekday_list(words, i)?;
        return Some((used, Repeat::Weekly { interval: 1, days }));
    }
    if !matches!(word, "every" | "each") {
        return None;
    }
    let next = at(words, i + 1);
    match next {
        "weekday" | "weekdays" => {
            return Some((
                2,
                Repeat::Weekly {
                    interval: 1,
                    days: WORKDAYS.to_vec(),
                },
            ));
        }
        "weekend" | "weekends" => {
            return Some((
                2,
                Repeat::Weekly {
                    interval: 1,
                    days: vec![Weekday::Sat, Weekday::Sun],
                },
            ));
        }
        "other" => {
            let (_, repeat) = unit_repeat(words::unit(at(words, i + 2))?, 2)?;
            let (used, repeat) = with_days(words, i + 3, repeat);
            return Some((3 + used, repeat));
        }
        _ => {}
    }
    if let Some((used, days)) = weekday_list(words, i + 1) {
        let repeat = Repeat::Weekly { interval: 1, days };
        return Some((1 + used, repeat));
    }
    // "every day", "every 2 weeks".
    let (interval, counted) = match words::count(next) {
        Some(n) if next != "a" && next != "an" => (n, 1),
        _ => (1, 0),
    };
    if interval == 0 {
        return None;
    }
    let unit = words::unit(at(words, i + 1 + counted))?;
    let (_, repeat) = unit_repeat(unit, interval)?;
    let (used, repeat) = with_days(words, i + 2 + counted, repeat);
    Some((2 + counted + used, repeat))
}

fn unit_repeat(unit: Unit, interval: u32) -> Option<(usize, Repeat)> {
    let repeat = match unit {
        Unit::Day => Repeat::Daily { interval },
        Unit::Week => Repeat::Weekly {
            interval,
            days: vec![],
        },
        Unit::Month => Repeat::Monthly { interval },
        Unit::Year => Repeat::Yearly { interval },
        Unit::Minute | Unit::Hour => return None,
    };
    Some((1, repeat))
}

/// A weekly repeat followed by "on Monday and Thursday" takes those days.
/// The words used after `i` (none when no days follow).
fn with_days(words: &[Word], i: usize, repeat: Repeat) -> (usize, Repeat) {
    match repeat {
        Repeat::Weekly { interval, days } if days.is_empty() && at(words, i) == "on" => {
            match weekday_list(words, i + 1) {
                Some((used, days)) => (1 + used, Repeat::Weekly { interval, days }),
                None => (0, Repeat::Weekly { interval, days }),
            }
        }
        repeat => (0, repeat),
    }
}

/// "Monday", "Mon, Wed and Fri", "Mondays": the days and the words used.
fn weekday_list(words: &[Word], i: usize) -> Option<(usize, Vec<Weekday>)> {
    let day = |word: &str| words::weekday(word).or_else(|| words::weekday_plural(word));
    let mut days = vec![day(at(words, i))?];
    let mut used = 1;
    loop {
        let joiner = at(words, i + used);
        if !matches!(joiner, "," | "and" | "&") {
            break;
        }
        // ", and"
        let skip = usize::from(joiner == "," && at(words, i + used + 1) == "and");
        match day(at(words, i + used + 1 + skip)) {
            Some(next) => {
                days.push(next);
                used += 2 + skip;
            }
            None => break,
        }
    }
    Some((used, days))
}
