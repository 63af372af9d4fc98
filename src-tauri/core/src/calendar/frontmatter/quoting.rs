//! How a changed string value is written: in the quoting style it had.
//!
//! Users (and the Full Calendar plugin) quote values on purpose; a rewrite
//! that drops the quotes can change what other readers see. Obsidian reads
//! YAML 1.2, but many tools still read YAML 1.1, where a plain `10:00` is the
//! base-60 integer 600 and a plain `on` is `true`. So:
//!
//! - a double- or single-quoted value stays double- or single-quoted;
//! - a plain value stays plain while both a YAML 1.2 reader (the parse-back
//!   check) and a YAML 1.1 reader would read it as the same string, and is
//!   double-quoted otherwise;
//! - a new value is written like a plain one, except that times (`09:30`) are
//!   always double-quoted, as the Full Calendar plugin writes them.

use serde_norway::Value;

/// The quoting of a value as it was written, or `New` for a key that is
/// added (or whose old value was not a one-line scalar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Double,
    Single,
    Plain,
    New,
}

/// The style of the value text that follows a key's `:` (its first line and
/// any lines that belong to it).
pub fn of(value_text: &str) -> Style {
    let mut lines = value_text.lines();
    let first = lines.next().unwrap_or("").trim_start_matches([' ', '\t']);
    let continued = lines.any(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with('#')
    });
    match first.chars().next() {
        _ if continued => Style::New,
        Some('"') => Style::Double,
        Some('\'') => Style::Single,
        None | Some('#' | '|' | '>' | '[' | '{' | '&' | '*' | '!') => Style::New,
        Some(_) => Style::Plain,
    }
}

/// `value` as a YAML scalar in `style` (or double-quoted where that style
/// cannot hold it, or would change its meaning).
pub fn scalar(value: &str, style: Style) -> String {
    match style {
        Style::Single if fits_single(value) => format!("'{}'", value.replace('\'', "''")),
        Style::Plain if plain_is_same_string(value) => value.to_string(),
        Style::New if plain_is_same_string(value) && !looks_like_time(value) => value.to_string(),
        _ => double_quoted(value),
    }
}

/// Whether a key can be written without quotes (the event keys can).
pub fn is_plain_key(key: &str) -> bool {
    key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters YAML does not allow raw inside quotes, or that some readers
/// take for line breaks.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

fn fits_single(value: &str) -> bool {
    !value.chars().any(needs_escape)
}

/// Whether `value`, written plain, reads back as the same string in YAML 1.2
/// (our own parser) and in YAML 1.1.
fn plain_is_same_string(value: &str) -> bool {
    if value.chars().any(needs_escape) || read_otherwise_by_yaml_1_1(value) {
        return false;
    }
    let parsed = serde_norway::from_str::<Value>(&format!("k: {value}\n"));
    matches!(parsed, Ok(Value::Mapping(m)) if m.get("k") == Some(&Value::String(value.to_string())))
}

/// `H:MM`, `HH:MM` or `HH:MM:SS`.
fn looks_like_time(value: &str) -> bool {
    value.contains(':') && value.bytes().all(|b| b.is_ascii_digit() || b == b':')
}

/// Whether a YAML 1.1 reader takes the plain scalar `value` for a bool, a
/// null or a number (base 2, 8, 10, 16 or 60, or a float). Errs on the side
/// of "yes": quoting a string never changes its meaning.
fn read_otherwise_by_yaml_1_1(value: &str) -> bool {
    const WORDS: [&str; 29] = [
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL",
        ".inf", ".Inf", ".INF",
    ];
    let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
    let number = unsigned.replace('_', "");
    let all = |s: &str, f: fn(u8) -> bool| !s.is_empty() && s.bytes().all(f);
    // `1:30` (int 90) and `0:30.5` (float), but not `09:30`: a base-60
    // integer cannot start with 0.
    let base_60 = || {
        let mut parts = number.split(':');
        let last = parts.next_back().unwrap_or("");
        let (whole, fraction) = match last.split_once('.') {
            Some((whole, fraction)) => (whole, Some(fraction)),
            None => (last, None),
        };
        number.contains(':')
            && (fraction.is_some() || !number.starts_with('0'))
            && parts.all(|p| all(p, |b| b.is_ascii_digit()))
            && all(whole, |b| b.is_ascii_digit())
            && fraction.is_none_or(|f| f.bytes().all(|b| b.is_ascii_digit()))
    };
    value.is_empty()
        || WORDS.contains(&value)
        || WORDS.contains(&unsigned)
        || matches!(value, ".nan" | ".NaN" | ".NAN")
        || number.parse::<f64>().is_ok()
        || number
            .strip_prefix("0x")
            .is_some_and(|h| all(h, |b| b.is_ascii_hexdigit()))
        || number
            .strip_prefix("0b")
            .is_some_and(|d| all(d, |b| b == b'0' || b == b'1'))
        || base_60()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_are_kept_and_plain_only_where_it_reads_the_same() {
        assert_eq!(scalar("10:00", Style::Double), "\"10:00\"");
        assert_eq!(scalar("it's", Style::Single), "'it''s'");
        assert_eq!(scalar("09:30", Style::Plain), "09:30");
        assert_eq!(scalar("10:00", Style::Plain), "\"10:00\"");
        assert_eq!(scalar("09:30", Style::New), "\"09:30\"");
        assert_eq!(scalar("2024-05-01", Style::New), "2024-05-01");
        assert_eq!(scalar("Team sync", Style::Plain), "Team sync");
        for odd in [
            "on",
            "No",
            "~",
            "",
            "1_000",
            "0x1F",
            "-1.5",
            "190:20:30",
            "a: b",
            "#x",
        ] {
            assert!(scalar(odd, Style::Plain).starts_with('"'), "{odd:?}");
        }
        assert_eq!(
            scalar("tab\there \u{7f}", Style::Single),
            "\"tab\\there \\u007F\""
        );
    }

    #[test]
    fn the_style_is_read_from_the_value_text() {
        assert_eq!(of(" \"09:00\"\n"), Style::Double);
        assert_eq!(of(" '09:00' # note\n"), Style::Single);
        assert_eq!(of(" 09:00\n"), Style::Plain);
        assert_eq!(of("\n  - a\n"), Style::New);
        assert_eq!(of(" |\n  text\n"), Style::New);
    }
}
