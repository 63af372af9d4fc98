//! `VTIMEZONE` definitions written from the IANA database (chrono-tz).
//!
//! chrono-tz exposes offsets, not rules, so the definition lists the zone's
//! actual transitions over a window of years: one `STANDARD` / `DAYLIGHT`
//! component per distinct (offset from, offset to, name), its first
//! transition as `DTSTART` and the others as `RDATE`s. Clients that know the
//! IANA name (most do) use their own database; the others get exact offsets
//! for every year the window covers.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{DateTime, Duration, NaiveDate, Offset, TimeZone, Utc};
use chrono_tz::{OffsetComponents, Tz};

use super::text::raw_line;

/// The years a definition can cover: events' years come from clients, and
/// the work (a step a day) and the text grow with the window.
const FIRST_YEAR: i32 = 1900;
const LAST_YEAR: i32 = 2200;

/// Definitions kept in the cache; past it, the cache starts over, so
/// events spread over many windows cannot grow it without bound.
const MAX_CACHED: usize = 1024;

/// The `VTIMEZONE` of `tz` covering the years `from..=to` (clamped to
/// [`FIRST_YEAR`]`..=`[`LAST_YEAR`]; cached: a calendar of thousands of
/// events uses a handful of zones and windows).
pub fn vtimezone(tz: Tz, from: i32, to: i32) -> Arc<str> {
    static CACHE: OnceLock<Mutex<HashMap<Window, Arc<str>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    let from = from.clamp(FIRST_YEAR, LAST_YEAR);
    let to = to.clamp(FIRST_YEAR - 1, LAST_YEAR - 1);
    let key = (tz, from, to);
    if let Some(text) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return text.clone();
    }
    let text: Arc<str> = build(tz, from, to).into();
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(key, text.clone());
    text
}

/// A zone and the years a definition covers.
type Window = (Tz, i32, i32);

/// What one observance is: daylight or not, offsets in seconds, name.
type Observance = (bool, i32, i32, String);

fn build(tz: Tz, from: i32, to: i32) -> String {
    let start = year_start(from);
    let end = year_start(to.saturating_add(1));
    let mut groups: BTreeMap<Observance, Vec<chrono::NaiveDateTime>> = BTreeMap::new();
    let mut at = start;
    while at < end {
        let next = at + Duration::days(1);
        if offset_secs(tz, at) != offset_secs(tz, next) || name(tz, at) != name(tz, next) {
            let instant = transition(tz, at, next);
            let before = offset_secs(tz, instant - Duration::seconds(1));
            let after = tz.offset_from_utc_datetime(&instant.naive_utc());
            let key = (
                !after.dst_offset().is_zero(),
                before,
                after.fix().local_minus_utc(),
                after.to_string(),
            );
            let local = instant.naive_utc() + Duration::seconds(i64::from(before));
            groups.entry(key).or_default().push(local);
        }
        at = next;
    }
    let mut out = String::new();
    out.push_str("BEGIN:VTIMEZONE\r\n");
    raw_line(&mut out, "TZID", tz.name());
    if groups.is_empty() {
        let offset = tz.offset_from_utc_datetime(&start.naive_utc());
        let secs = offset.fix().local_minus_utc();
        let kind = if offset.dst_offset().is_zero() {
            "STANDARD"
        } else {
            "DAYLIGHT"
        };
        observance(
            &mut out,
            kind,
            &[start.naive_utc() + Duration::seconds(i64::from(secs))],
            secs,
            secs,
            &offset.to_string(),
        );
    }
    for ((daylight, before, after, name), dates) in &groups {
        let kind = if *daylight { "DAYLIGHT" } else { "STANDARD" };
        observance(&mut out, kind, dates, *before, *after, name);
    }
    out.push_str("END:VTIMEZONE\r\n");
    out
}

fn observance(
    out: &mut String,
    kind: &str,
    dates: &[chrono::NaiveDateTime],
    before: i32,
    after: i32,
    name: &str,
) {
    let format = |d: &chrono::NaiveDateTime| d.format("%Y%m%dT%H%M%S").to_string();
    out.push_str(&format!("BEGIN:{kind}\r\n"));
    raw_line(out, "DTSTART", &format(&dates[0]));
    for date in &dates[1..] {
        raw_line(out, "RDATE", &format(date));
    }
    raw_line(out, "TZOFFSETFROM", &utc_offset(before));
    raw_line(out, "TZOFFSETTO", &utc_offset(after));
    if !name.is_empty() {
        raw_line(out, "TZNAME", name);
    }
    out.push_str(&format!("END:{kind}\r\n"));
}

fn year_start(year: i32) -> DateTime<Utc> {
    let date = NaiveDate::from_ymd_opt(year.clamp(FIRST_YEAR, LAST_YEAR), 1, 1).unwrap_or_default();
    Utc.from_utc_datetime(&date.and_time(chrono::NaiveTime::MIN))
}

fn offset_secs(tz: Tz, at: DateTime<Utc>) -> i32 {
    tz.offset_from_utc_datetime(&at.naive_utc())
        .fix()
        .local_minus_utc()
}

fn name(tz: Tz, at: DateTime<Utc>) -> String {
    tz.offset_from_utc_datetime(&at.naive_utc()).to_string()
}

/// The first second in `(low, high]` with `high`'s offset and name.
fn transition(tz: Tz, mut low: DateTime<Utc>, mut high: DateTime<Utc>) -> DateTime<Utc> {
    let target = (offset_secs(tz, high), name(tz, high));
    while high - low > Duration::seconds(1) {
        let middle = low + (high - low) / 2;
        if (offset_secs(tz, middle), name(tz, middle)) == target {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

/// `+HHMM` / `-HHMM` (with seconds only when the offset has them).
fn utc_offset(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let secs = secs.unsigned_abs();
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if s == 0 {
        format!("{sign}{h:02}{m:02}")
    } else {
        format!("{sign}{h:02}{m:02}{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn berlin_has_its_real_transitions() {
        let text = vtimezone(chrono_tz::Europe::Berlin, 2024, 2025);
        assert!(text.contains("TZID:Europe/Berlin"));
        assert!(
            text.contains("BEGIN:DAYLIGHT\r\nDTSTART:20240331T020000\r\nRDATE:20250330T020000"),
            "{text}"
        );
        assert!(
            text.contains("BEGIN:STANDARD\r\nDTSTART:20241027T030000\r\nRDATE:20251026T030000"),
            "{text}"
        );
        assert!(text.contains("TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST"));
    }

    #[test]
    fn windows_past_the_covered_years_cost_no_more_than_the_years_covered() {
        let wide = vtimezone(chrono_tz::Europe::Berlin, i32::MIN, i32::MAX);
        assert_eq!(
            wide,
            vtimezone(chrono_tz::Europe::Berlin, FIRST_YEAR, LAST_YEAR - 1)
        );
        assert!(wide.contains("DTSTART:19160430T230000"), "{wide}");
    }

    #[test]
    fn a_zone_without_transitions_has_one_observance() {
        let text = vtimezone(chrono_tz::Asia::Tokyo, 2024, 2024);
        assert!(
            text.contains("BEGIN:STANDARD\r\nDTSTART:20240101T090000"),
            "{text}"
        );
        assert!(text.contains("TZOFFSETFROM:+0900\r\nTZOFFSETTO:+0900"));
    }
}
