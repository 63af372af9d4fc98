//! The line cut into words, and the vocabulary the phrases are made of.

use chrono::Weekday;

/// One word of the line as typed, and whether a space came before it (so
/// the title keeps "Follow-up" whole even though `-` is a word of its own).
#[derive(Debug, Clone)]
pub struct Word {
    pub text: String,
    pub lower: String,
    pub spaced: bool,
}

/// Characters that are words of their own: dashes join ranges, commas
/// separate dates and weekdays.
fn is_mark(c: char) -> bool {
    matches!(c, '-' | '–' | '—' | ',')
}

/// `2026-12-01`: a dash inside an ISO date does not cut it.
fn iso_date_at(chars: &[char], i: usize) -> bool {
    let shape = "dddd-dd-dd";
    chars.len() >= i + shape.len()
        && shape.chars().enumerate().all(|(k, s)| match s {
            'd' => chars[i + k].is_ascii_digit(),
            _ => chars[i + k] == '-',
        })
        && (chars
            .get(i + shape.len())
            .is_none_or(|c| !c.is_alphanumeric())
            || date_time_at(chars, i + shape.len()))
}

/// `T10:00` right after an ISO date (`2026-12-01T10:00`).
fn date_time_at(chars: &[char], i: usize) -> bool {
    matches!(chars.get(i), Some('T' | 't')) && chars.get(i + 1).is_some_and(char::is_ascii_digit)
}

/// The words of `line`.
pub fn split(line: &str) -> Vec<Word> {
    let chars: Vec<char> = line.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    // Whether whitespace came before the word being read.
    let mut spaced = true;
    let mut current_spaced = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if current.is_empty() {
            current_spaced = spaced;
        }
        if c.is_whitespace() {
            end_word(&mut words, &mut current, current_spaced);
            spaced = true;
        } else if current.is_empty() && iso_date_at(&chars, i) {
            current.extend(&chars[i..i + 10]);
            spaced = false;
            i += 10;
            if date_time_at(&chars, i) {
                // The time is a word of its own, glued to the date.
                end_word(&mut words, &mut current, current_spaced);
                current_spaced = false;
                i += 1;
            }
            continue;
        } else if is_mark(c) {
            end_word(&mut words, &mut current, current_spaced);
            words.push(Word {
                text: c.to_string(),
                lower: c.to_string(),
                spaced,
            });
            spaced = false;
        } else {
            current.push(c);
            spaced = false;
        }
        i += 1;
    }
    end_word(&mut words, &mut current, current_spaced);
    words
}

fn end_word(words: &mut Vec<Word>, text: &mut String, spaced: bool) {
    if !text.is_empty() {
        words.push(Word {
            lower: text.to_lowercase(),
            text: std::mem::take(text),
            spaced,
        });
    }
}

/// A dash or a word that joins the two ends of a range.
pub fn is_range_joiner(word: &str) -> bool {
    matches!(
        word,
        "-" | "–" | "—" | "to" | "until" | "till" | "til" | "through" | "thru"
    )
}

/// Words that joined a title to its date ("Party on Friday") and end no
/// title; dropped when a phrase follows them.
pub fn is_connector(word: &str) -> bool {
    matches!(word, "at" | "on" | "from" | "by" | "for" | "@" | "in")
}

/// A dash or comma alone.
pub fn is_mark_word(word: &str) -> bool {
    word.chars().count() == 1 && word.chars().all(is_mark)
}

pub fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" | "mon" => Weekday::Mon,
        "tuesday" | "tue" | "tues" => Weekday::Tue,
        "wednesday" | "wed" => Weekday::Wed,
        "thursday" | "thu" | "thur" | "thurs" => Weekday::Thu,
        "friday" | "fri" => Weekday::Fri,
        "saturday" | "sat" => Weekday::Sat,
        "sunday" | "sun" => Weekday::Sun,
        _ => return None,
    })
}

/// A weekday name in the plural ("every Mondays" is rare; "on Mondays" is
/// how people say "every Monday").
pub fn weekday_plural(word: &str) -> Option<Weekday> {
    word.strip_suffix('s').and_then(weekday)
}

/// 1 to 12.
pub fn month(word: &str) -> Option<u32> {
    let word = word.strip_suffix('.').unwrap_or(word);
    (1u8..=12).map(u32::from).find(|&number| {
        let name = chrono::Month::try_from(number as u8)
            .map_or(String::new(), |m| m.name().to_ascii_lowercase());
        name == word || (word.len() >= 3 && name.starts_with(word))
    })
}

/// "3", "a", "an", "one" … "twelve".
pub fn count(word: &str) -> Option<u32> {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    match word {
        "a" | "an" => Some(1),
        _ => WORDS
            .iter()
            .position(|w| *w == word)
            .map(|n| n as u32)
            .or_else(|| small_number(word)),
    }
}

/// A plain number of at most four digits.
pub fn small_number(word: &str) -> Option<u32> {
    (!word.is_empty() && word.len() <= 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// "3", "3rd", "21st": a day of the month.
pub fn day_of_month(word: &str) -> Option<u32> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|suffix| word.strip_suffix(suffix))
        .unwrap_or(word);
    let day = small_number(digits).filter(|_| digits.len() <= 2)?;
    (1..=31).contains(&day).then_some(day)
}

/// A span of the calendar: days, weeks, months or years.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

pub fn unit(word: &str) -> Option<Unit> {
    let word = word.strip_suffix('s').unwrap_or(word);
    Some(match word {
        "minute" | "min" => Unit::Minute,
        "hour" | "hr" | "h" => Unit::Hour,
        "day" => Unit::Day,
        "week" | "wk" => Unit::Week,
        "month" => Unit::Month,
        "year" | "yr" => Unit::Year,
        _ => return None,
    })
}

/// "from now" or "later" at word `i`: the words it used.
pub fn later(words: &[Word], i: usize) -> Option<usize> {
    let at = |k: usize| words.get(k).map_or("", |w| w.lower.as_str());
    match (at(i), at(i + 1)) {
        ("from", "now") => Some(2),
        ("later", _) => Some(1),
        _ => None,
    }
}
