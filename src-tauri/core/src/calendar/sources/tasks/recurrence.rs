//! The Tasks plugin's 🔁 text (`every week on Monday`, `every 2 days`,
//! `every month on the 1st`, `every weekday`, …: rrule.js's English) as an
//! RRULE, for the rules an RRULE can say. The result is checked by the
//! calendar's one rule parser when the task's spec is validated.
//!
//! Not read (the task then shows once, on its date, and the source's
//! status names the rule): `when done` (the next date depends on when the
//! task is ticked), `until` / `for N times`, and any wording not listed in
//! [`rule`].

const WEEKDAYS: [(&str, &str); 7] = [
    ("monday", "MO"),
    ("tuesday", "TU"),
    ("wednesday", "WE"),
    ("thursday", "TH"),
    ("friday", "FR"),
    ("saturday", "SA"),
    ("sunday", "SU"),
];

/// The RRULE value (`FREQ=…`) of a 🔁 text, or why it cannot be read.
///
/// Read: `every [N|other] day(s)|week(s)|month(s)|year(s)`; `every weekday`;
/// `every Monday[, Friday …]`; weekly `… on Monday, Friday` (also `and`);
/// monthly `… on the 1st[, 15th]`, `… on the last`, `… on the 2nd Tuesday`,
/// `… on the last Friday`; yearly `every January [on the 15th]`.
pub fn rule(text: &str) -> Result<String, String> {
    let unread = |why: &str| Err(format!("🔁 `{text}` is not read: {why}"));
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty() && *w != "and")
        .collect();
    if words.ends_with(&["when", "done"]) {
        return unread("`when done` repeats from the day the task is ticked");
    }
    let Some((&"every", mut rest)) = words.split_first() else {
        return unread("a rule starts with `every`");
    };
    let mut interval = 1u32;
    if let Some((first, after)) = rest.split_first() {
        if *first == "other" {
            interval = 2;
            rest = after;
        } else if let Ok(n) = first.parse::<u32>() {
            if n == 0 || n > u32::from(u16::MAX) {
                return unread("the interval is out of range");
            }
            interval = n;
            rest = after;
        }
    }
    let Some((unit, tail)) = rest.split_first() else {
        return unread("no unit (day, week, month, year)");
    };
    let unit = unit.trim_end_matches('s');
    let mut parts = Vec::new();
    let tail = match unit {
        "day" => {
            parts.push("FREQ=DAILY".to_string());
            tail
        }
        "week" => {
            parts.push("FREQ=WEEKLY".to_string());
            match tail.split_first() {
                Some((&"on", days)) => {
                    parts.push(format!(
                        "BYDAY={}",
                        weekdays(days).ok_or_else(|| {
                            format!("🔁 `{text}` is not read: `on` names no weekdays")
                        })?
                    ));
                    &[][..]
                }
                _ => tail,
            }
        }
        "weekday" if interval == 1 => {
            parts.push("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR".to_string());
            tail
        }
        "month" => {
            parts.push("FREQ=MONTHLY".to_string());
            match tail.split_first() {
                Some((&"on", on)) => {
                    parts.push(month_days(on).ok_or_else(|| {
                        format!("🔁 `{text}` is not read: the day of the month is not clear")
                    })?);
                    &[][..]
                }
                _ => tail,
            }
        }
        "year" => {
            parts.push("FREQ=YEARLY".to_string());
            tail
        }
        other => {
            if let Ok(month) = other.parse::<chrono::Month>() {
                parts.push(format!("FREQ=YEARLY;BYMONTH={}", month.number_from_month()));
                match tail.split_first() {
                    Some((&"on", on)) => {
                        let days = month_days(on)
                            .filter(|d| d.starts_with("BYMONTHDAY"))
                            .ok_or_else(|| {
                                format!(
                                    "🔁 `{text}` is not read: the day of the month is not clear"
                                )
                            })?;
                        parts.push(days);
                        &[][..]
                    }
                    _ => tail,
                }
            } else if let Some(days) = weekdays(rest) {
                parts.push(format!("FREQ=WEEKLY;BYDAY={days}"));
                &[][..]
            } else {
                return unread("the unit is not day, week, month, year or a weekday");
            }
        }
    };
    if !tail.is_empty() {
        return unread("only `every …` and `on …` are read (not `until`, `for N times`)");
    }
    if interval > 1 {
        parts.push(format!("INTERVAL={interval}"));
    }
    Ok(parts.join(";"))
}

/// `Monday Friday` (plurals allowed) as `MO,FR`.
fn weekdays(words: &[&str]) -> Option<String> {
    let days: Option<Vec<&str>> = words
        .iter()
        .map(|w| {
            let w = w.trim_end_matches('s');
            WEEKDAYS
                .iter()
                .find(|(name, _)| *name == w)
                .map(|(_, code)| *code)
        })
        .collect();
    days.filter(|d| !d.is_empty()).map(|d| d.join(","))
}

/// After `on`: `the 1st 15th`, `the last`, `the 2nd tuesday`, `the last
/// friday`, as `BYMONTHDAY=…` or `BYDAY=…`.
fn month_days(words: &[&str]) -> Option<String> {
    let words = words.strip_prefix(&["the"]).unwrap_or(words);
    let (last, days) = words.split_last()?;
    if let Some((_, code)) = WEEKDAYS.iter().find(|(name, _)| *name == *last) {
        let [nth] = days else { return None };
        let nth = ordinal(nth).filter(|n| (-1..=5).contains(n) && *n != 0)?;
        return Some(format!("BYDAY={nth}{code}"));
    }
    let words = words.strip_suffix(&["day"]).unwrap_or(words);
    let days: Option<Vec<String>> = words
        .iter()
        .map(|w| {
            ordinal(w)
                .filter(|n| *n == -1 || (1..=31).contains(n))
                .map(|n| n.to_string())
        })
        .collect();
    days.filter(|d| !d.is_empty())
        .map(|d| format!("BYMONTHDAY={}", d.join(",")))
}

/// `1st`, `22nd`, `3rd`, `4th` (or a bare number) and `last` (-1).
fn ordinal(word: &str) -> Option<i32> {
    if word == "last" {
        return Some(-1);
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugins_common_rules_become_rrules() {
        for (text, expected) in [
            ("every day", "FREQ=DAILY"),
            ("every 2 days", "FREQ=DAILY;INTERVAL=2"),
            ("every week", "FREQ=WEEKLY"),
            ("every 3 weeks", "FREQ=WEEKLY;INTERVAL=3"),
            ("every other week", "FREQ=WEEKLY;INTERVAL=2"),
            ("every week on Monday, Friday", "FREQ=WEEKLY;BYDAY=MO,FR"),
            (
                "every week on Tuesday and Thursday",
                "FREQ=WEEKLY;BYDAY=TU,TH",
            ),
            ("every weekday", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
            ("every Monday", "FREQ=WEEKLY;BYDAY=MO"),
            ("every Saturday, Sunday", "FREQ=WEEKLY;BYDAY=SA,SU"),
            ("every month", "FREQ=MONTHLY"),
            ("every month on the 1st", "FREQ=MONTHLY;BYMONTHDAY=1"),
            (
                "every 2 months on the 15th",
                "FREQ=MONTHLY;BYMONTHDAY=15;INTERVAL=2",
            ),
            (
                "every month on the 1st, 15th",
                "FREQ=MONTHLY;BYMONTHDAY=1,15",
            ),
            ("every month on the last", "FREQ=MONTHLY;BYMONTHDAY=-1"),
            ("every month on the last day", "FREQ=MONTHLY;BYMONTHDAY=-1"),
            ("every month on the 2nd Tuesday", "FREQ=MONTHLY;BYDAY=2TU"),
            ("every month on the last Friday", "FREQ=MONTHLY;BYDAY=-1FR"),
            ("every year", "FREQ=YEARLY"),
            (
                "every January on the 15th",
                "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=15",
            ),
            ("every March", "FREQ=YEARLY;BYMONTH=3"),
        ] {
            assert_eq!(rule(text).as_deref(), Ok(expected), "{text}");
            // And the calendar's one rule parser reads it.
            almanac_model::series::rule_parse::parse_rrule(expected).unwrap();
        }
    }

    #[test]
    fn what_a_calendar_cannot_say_is_refused_with_the_reason() {
        for (text, why) in [
            ("every week when done", "when done"),
            ("every day until January 1, 2027", "until"),
            ("every 0 days", "out of range"),
            ("daily", "starts with `every`"),
            ("every fortnight", "unit"),
            ("every month on the 40th", "day of the month"),
            ("every week on payday", "weekdays"),
            ("every", "no unit"),
        ] {
            let refused = rule(text).unwrap_err();
            assert!(refused.contains(why), "{text}: {refused}");
            assert!(refused.contains(text), "{text}: {refused}");
        }
    }
}
