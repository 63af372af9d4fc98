//! The zones a feed's `TZID`s name.
//!
//! A `TZID` is resolved, in order:
//! 1. as an IANA name, also behind a prefix (`/mozilla.org/20050126_1/Europe/Berlin`);
//! 2. by the feed's own `VTIMEZONE` of that `TZID`: its observances give the
//!    offsets and transitions, and the zone is the IANA zone that has the
//!    same ones from [`MATCH_FROM_YEAR`] to [`MATCH_TO_YEAR`] (the Windows
//!    zone of the same name first, then the zones by region). The engine
//!    computes in IANA zones, so a definition no IANA zone follows is
//!    reported, never guessed;
//! 3. as a Windows zone name ("W. Europe Standard Time", as Outlook and
//!    Exchange write them), through CLDR's windowsZones table;
//! 4. else not at all: the times are floating (shown in the display zone).

use std::collections::HashMap;

use chrono::{DateTime, Datelike, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::{TZ_VARIANTS, Tz};
use icalendar::parser::Component;
use rrule::RRuleSet;

/// The years a `VTIMEZONE` definition must agree with an IANA zone in.
/// Definitions written by Outlook describe today's rules only (from 1601
/// on), so older years would reject the zone they mean.
pub const MATCH_FROM_YEAR: i32 = 2010;
pub const MATCH_TO_YEAR: i32 = 2037;

/// Most `VTIMEZONE` definitions one feed gets matched (a real feed has a
/// handful; matching one costs about a millisecond in a release build).
pub const MAX_DEFINITIONS: usize = 100;

/// The zones of one feed, by `TZID`.
#[derive(Debug, Default)]
pub struct Zones {
    /// `TZID`s defined by the feed: the matching zone, or why none.
    defined: HashMap<String, Result<Tz, String>>,
}

impl Zones {
    /// Reads the feed's `VTIMEZONE` definitions.
    pub fn from_components(components: &[Component<'_>]) -> Zones {
        let mut defined = HashMap::new();
        for component in components {
            if !component.name.as_str().eq_ignore_ascii_case("VTIMEZONE") {
                continue;
            }
            let Some(tzid) = component.find_prop("TZID").map(|p| p.val.as_str().trim()) else {
                continue;
            };
            if iana_zone(tzid).is_some() || defined.contains_key(tzid) {
                continue;
            }
            let zone = if defined.len() < MAX_DEFINITIONS {
                matching_zone(tzid, component)
            } else {
                Err(format!(
                    "the feed defines more than {MAX_DEFINITIONS} time zones;                      `{tzid}` was not read"
                ))
            };
            defined.insert(tzid.to_string(), zone);
        }
        Zones { defined }
    }

    /// The zone `tzid` names; `None` for a name nothing defines, whose
    /// times are then floating (as other readers, Python's `icalendar`
    /// among them, take them); an error for a definition no IANA zone
    /// follows.
    pub fn resolve(&self, tzid: &str) -> Result<Option<Tz>, String> {
        let tzid = tzid.trim().trim_matches('"');
        if let Some(tz) = iana_zone(tzid) {
            return Ok(Some(tz));
        }
        if let Some(defined) = self.defined.get(tzid) {
            return defined.clone().map(Some);
        }
        Ok(windows_zone(tzid))
    }
}

/// A `TZID` as an IANA zone; tolerates prefixes such as
/// `/mozilla.org/20050126_1/Europe/Berlin`.
fn iana_zone(tzid: &str) -> Option<Tz> {
    tzid.parse::<Tz>().ok().or_else(|| {
        let parts: Vec<&str> = tzid.rsplit('/').take(3).collect();
        (1..=parts.len()).rev().find_map(|n| {
            let candidate: Vec<&str> = parts[..n].iter().rev().copied().collect();
            candidate.join("/").parse::<Tz>().ok()
        })
    })
}

fn windows_zone(name: &str) -> Option<Tz> {
    localzone::win_zone_to_iana(name, None)?.parse().ok()
}

/// One switch of a definition: from this instant on, `offset` seconds.
#[derive(Debug, Clone, Copy)]
struct Transition {
    at: i64,
    before: i32,
    offset: i32,
}

/// The IANA zone that behaves like the `VTIMEZONE` `definition`.
fn matching_zone(tzid: &str, definition: &Component<'_>) -> Result<Tz, String> {
    let transitions = transitions(definition)
        .ok_or_else(|| format!("the VTIMEZONE of `{tzid}` cannot be read"))?;
    let offset_at = |at: i64| -> i32 {
        match transitions.partition_point(|t| t.at <= at) {
            0 => transitions[0].before,
            n => transitions[n - 1].offset,
        }
    };
    // Instants to compare: each transition and the second before it, and
    // noon UTC on the first of every month.
    let mut samples: Vec<i64> = transitions
        .iter()
        .flat_map(|t| [t.at - 1, t.at])
        .filter(|at| in_match_years(*at))
        .collect();
    for year in MATCH_FROM_YEAR..=MATCH_TO_YEAR {
        for month in 1..=12 {
            if let Some(noon) = Utc.with_ymd_and_hms(year, month, 1, 12, 0, 0).single() {
                samples.push(noon.timestamp());
            }
        }
    }
    let agrees = |tz: &Tz| {
        samples.iter().all(|at| {
            DateTime::from_timestamp(*at, 0).is_some_and(|t| {
                tz.offset_from_utc_datetime(&t.naive_utc())
                    .fix()
                    .local_minus_utc()
                    == offset_at(*at)
            })
        })
    };
    let by_name = windows_zone(tzid);
    by_name
        .iter()
        .chain(candidates().iter())
        .find(|tz| agrees(tz))
        .copied()
        .ok_or_else(|| {
            format!(
                "the VTIMEZONE of `{tzid}` matches no IANA zone \
                 ({MATCH_FROM_YEAR}–{MATCH_TO_YEAR})"
            )
        })
}

fn in_match_years(at: i64) -> bool {
    DateTime::from_timestamp(at, 0)
        .is_some_and(|t| (MATCH_FROM_YEAR..=MATCH_TO_YEAR).contains(&t.year()))
}

/// The IANA zones by region (the names people use first, legacy aliases
/// such as `US/Eastern` last), so a definition gets a familiar name.
fn candidates() -> &'static [Tz] {
    static ORDER: std::sync::OnceLock<Vec<Tz>> = std::sync::OnceLock::new();
    ORDER.get_or_init(|| {
        const REGIONS: [&str; 9] = [
            "Europe/",
            "America/",
            "Asia/",
            "Australia/",
            "Pacific/",
            "Africa/",
            "Atlantic/",
            "Indian/",
            "Etc/",
        ];
        let rank = |tz: &Tz| {
            REGIONS
                .iter()
                .position(|r| tz.name().starts_with(r))
                .unwrap_or(REGIONS.len())
        };
        let mut zones = TZ_VARIANTS.to_vec();
        zones.sort_by_key(|tz| (rank(tz), tz.name()));
        zones
    })
}

/// The definition's transitions in time order, through [`MATCH_TO_YEAR`].
fn transitions(definition: &Component<'_>) -> Option<Vec<Transition>> {
    let mut all = Vec::new();
    for observance in &definition.components {
        let name = observance.name.as_str();
        if !name.eq_ignore_ascii_case("STANDARD") && !name.eq_ignore_ascii_case("DAYLIGHT") {
            continue;
        }
        let before = utc_offset(observance.find_prop("TZOFFSETFROM")?.val.as_str())?;
        let offset = utc_offset(observance.find_prop("TZOFFSETTO")?.val.as_str())?;
        let start = observance
            .find_prop("DTSTART")?
            .val
            .as_str()
            .trim()
            .to_string();
        let start = NaiveDateTime::parse_from_str(&start, "%Y%m%dT%H%M%S").ok()?;
        let mut onsets = vec![start];
        for property in &observance.properties {
            let value = property.val.as_str();
            match property.name.as_str().to_ascii_uppercase().as_str() {
                "RRULE" => onsets.extend(rule_onsets(start, value)?),
                "RDATE" => {
                    onsets.extend(value.split(',').filter_map(|v| {
                        NaiveDateTime::parse_from_str(v.trim(), "%Y%m%dT%H%M%S").ok()
                    }))
                }
                _ => {}
            }
        }
        // Onsets are wall-clock times of the offset in force before them.
        all.extend(onsets.into_iter().map(|local| Transition {
            at: local.and_utc().timestamp() - i64::from(before),
            before,
            offset,
        }));
    }
    all.sort_by_key(|t| t.at);
    all.dedup_by_key(|t| t.at);
    (!all.is_empty()).then_some(all)
}

/// The wall-clock onsets of an observance's `RRULE` through
/// [`MATCH_TO_YEAR`] (expanded as if in UTC: the rule is wall-clock).
fn rule_onsets(start: NaiveDateTime, rule: &str) -> Option<Vec<NaiveDateTime>> {
    let text = format!(
        "DTSTART:{}\nRRULE:{}",
        start.format("%Y%m%dT%H%M%S"),
        rule.trim()
    );
    let set: RRuleSet = text.parse().ok()?;
    Some(
        set.into_iter()
            .map(|t| t.naive_utc())
            .take_while(|t| t.year() <= MATCH_TO_YEAR)
            // A yearly rule from 1601 has a few hundred onsets; no
            // definition needs more than two a year.
            .take(2 * 600)
            .collect(),
    )
}

/// `+0200`, `-0530`, `+013045` as seconds east of UTC.
fn utc_offset(text: &str) -> Option<i32> {
    let text = text.trim();
    let (sign, digits) = match text.split_at_checked(1)? {
        ("+", rest) => (1, rest),
        ("-", rest) => (-1, rest),
        _ => return None,
    };
    if !(digits.len() == 4 || digits.len() == 6) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |range: std::ops::Range<usize>| digits.get(range)?.parse::<i32>().ok();
    let seconds = if digits.len() == 6 { field(4..6)? } else { 0 };
    Some(sign * (field(0..2)? * 3600 + field(2..4)? * 60 + seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones(feed: &str) -> Zones {
        let unfolded = icalendar::parser::unfold(feed);
        let calendar = icalendar::parser::read_calendar(&unfolded).unwrap();
        Zones::from_components(&calendar.components)
    }

    const OUTLOOK: &str = "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Customized Time Zone\r\n\
BEGIN:STANDARD\r\nDTSTART:16010101T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\n\
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10\r\nEND:STANDARD\r\n\
BEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n\
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n\
BEGIN:VTIMEZONE\r\nTZID:India\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n\
TZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n\
BEGIN:VTIMEZONE\r\nTZID:Nowhere\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\n\
TZOFFSETFROM:+0517\r\nTZOFFSETTO:+0517\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nEND:VCALENDAR\r\n";

    #[test]
    fn definitions_resolve_to_the_zone_that_behaves_alike() {
        let zones = zones(OUTLOOK);
        let custom = zones.resolve("Customized Time Zone").unwrap().unwrap();
        assert!(custom.name().starts_with("Europe/"), "{custom:?}");
        // Two names of one zone (the second a link to the first).
        let india = zones.resolve("India").unwrap().unwrap();
        assert!(
            [Tz::Asia__Kolkata, Tz::Asia__Calcutta].contains(&india),
            "{india:?}"
        );
        let err = zones.resolve("Nowhere").unwrap_err();
        assert!(err.contains("matches no IANA zone"), "{err}");
    }

    #[test]
    fn names_resolve_without_definitions() {
        let zones = Zones::default();
        assert_eq!(
            zones.resolve("W. Europe Standard Time"),
            Ok(Some(Tz::Europe__Berlin))
        );
        assert_eq!(
            zones.resolve("/mozilla.org/20050126_1/America/New_York"),
            Ok(Some(Tz::America__New_York))
        );
        // Nothing defines it: floating.
        assert_eq!(zones.resolve("Mars Standard Time"), Ok(None));
        assert_eq!(utc_offset("-0330"), Some(-12_600));
        assert_eq!(utc_offset("0100"), None);
    }
}
