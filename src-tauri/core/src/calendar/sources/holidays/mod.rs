//! The `holidays` kind: a read-only calendar of a country's (or a
//! subdivision's) public holidays, from the data Almanac ships
//! ([`data`]). Nothing is fetched: the events are made when the source is
//! configured.
//!
//! The holidays are written as one iCalendar text (all-day events whose
//! UIDs come from the date and the name, so ids stay the same across
//! restarts and data updates) and read by the one iCalendar reader
//! (`ical::parse`), as an ICS feed is.

use chrono_tz::Tz;

use super::{SourceConfig, ical};
use crate::ics::bounds::Limits;
use crate::ics::text::{raw_line, text_line};

/// The holidays of `country` (and `subdivision`) as an iCalendar text.
pub fn calendar_text(country: &str, subdivision: Option<&str>) -> Result<String, String> {
    let holidays = crate::holiday_data::holidays(country, subdivision)?;
    let place = match subdivision.map(str::trim).filter(|s| !s.is_empty()) {
        Some(sub) => format!("{}-{}", country.trim(), sub),
        None => country.trim().to_string(),
    }
    .to_ascii_uppercase();
    let mut out = String::with_capacity(holidays.len() * 160);
    raw_line(&mut out, "BEGIN", "VCALENDAR");
    raw_line(&mut out, "VERSION", "2.0");
    raw_line(&mut out, "PRODID", "-//Almanac//holidays//EN");
    for holiday in &holidays {
        let date = holiday.date.format("%Y%m%d").to_string();
        raw_line(&mut out, "BEGIN", "VEVENT");
        raw_line(
            &mut out,
            "UID",
            &format!("{date}-{}@{place}.holidays.almanac", slug(&holiday.name)),
        );
        raw_line(&mut out, "DTSTAMP", "20000101T000000Z");
        raw_line(&mut out, "DTSTART;VALUE=DATE", &date);
        text_line(&mut out, "SUMMARY", &holiday.name);
        raw_line(&mut out, "TRANSP", "TRANSPARENT");
        raw_line(&mut out, "END", "VEVENT");
    }
    raw_line(&mut out, "END", "VCALENDAR");
    Ok(out)
}

/// The events of a holidays source, or why there are none and what to do
/// (an unknown country or subdivision: the source's status says so). The
/// settings refuse such a place, so it comes from a settings file written
/// before an update dropped it from the data.
pub fn read(
    source: &SourceConfig,
    country: &str,
    subdivision: &str,
    display_tz: Tz,
) -> Result<ical::Parsed, String> {
    let text = calendar_text(country, Some(subdivision)).map_err(|why| {
        format!(
            "{why}; this version of Almanac has no holidays for it: \
             choose another country or subdivision in the calendar's settings"
        )
    })?;
    ical::parse(source, &text, display_tz, &Limits::FEED)
}

/// A holiday's name as a UID part: lower-case letters and digits, words
/// joined by `-` (names in other scripts keep their letters).
fn slug(name: &str) -> String {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holidays_are_written_as_all_day_events_with_stable_uids() {
        let text = calendar_text("de", Some("by")).unwrap();
        assert!(text.starts_with("BEGIN:VCALENDAR\r\n"));
        assert!(text.contains("UID:20260106-epiphany@DE-BY.holidays.almanac\r\n"));
        assert!(text.contains("DTSTART;VALUE=DATE:20260106\r\n"));
        assert_eq!(text, calendar_text("DE", Some("BY")).unwrap());
    }

    #[test]
    fn names_are_escaped_as_text() {
        assert_eq!(slug("New Year's Day (observed)"), "new-year-s-day-observed");
        let us = calendar_text("US", None).unwrap();
        assert!(
            us.contains("SUMMARY:Washington's Birthday\r\n"),
            "{}",
            &us[..400]
        );
    }
}
