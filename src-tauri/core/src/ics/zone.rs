//! The zones a feed's `TZID`s name.
//!
//! A `TZID` is resolved, in order:
//! 1. as an IANA name, also behind a prefix (`/mozilla.org/20050126_1/Europe/Berlin`);
//! 2. by the feed's own `VTIMEZONE` of that `TZID`: its observances give the
//!    offsets and transitions, and the zone is the IANA zone that has the
//!    same ones from [`MATCH_FROM_YEAR`] to [`MATCH_TO_YEAR`] (the Windows
//!    zone of the same name first, then the zones by region). A definition
//!    no IANA zone follows is applied by its own offset when it has one for
//!    all time (ical.js's `Nowhere/Middle`, UTC−07:41): its times are then
//!    exact instants. The engine computes series in IANA zones, so one with
//!    transitions of its own is reported, never guessed;
//! 3. as a Windows zone name ("W. Europe Standard Time", as Outlook and
//!    Exchange write them), through CLDR's windowsZones table;
//! 4. else not at all: the times are floating (shown in the display zone).

use std::collections::HashMap;

use chrono::{
    DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone, Utc,
};
use chrono_tz::{TZ_VARIANTS, Tz};
use icalendar::parser::Component;
use rrule::Frequency;

use almanac_model::series::rule_parse::parse_rrule;

/// The years a `VTIMEZONE` definition must agree with an IANA zone in.
/// Definitions written by Outlook describe today's rules only (from 1601
/// on), so older years would reject the zone they mean.
pub const MATCH_FROM_YEAR: i32 = 2010;
pub const MATCH_TO_YEAR: i32 = 2037;

/// Most `VTIMEZONE` definitions one feed gets matched (a real feed has a
/// handful; matching one costs about a millisecond in a release build).
pub const MAX_DEFINITIONS: usize = 100;

/// Most `STANDARD` / `DAYLIGHT` observances one definition may have. Outlook
/// writes two; full-history definitions (tzurl.org) a few dozen.
pub const MAX_OBSERVANCES: usize = 200;

/// Most `RRULE`s one definition may have, and all the definitions of one
/// feed together: a rule that never matches is iterated year by year to the
/// rrule crate's last year (milliseconds each). Full-history definitions
/// have one per observance at most.
pub const MAX_ZONE_RULES: usize = 100;
pub const MAX_FEED_ZONE_RULES: usize = 300;

/// Most onsets one `RRULE` of a definition yields: two a year from 1601 on
/// is more than any zone has had.
pub const MAX_ONSETS_PER_RULE: usize = 2 * 600;

/// Most transitions one definition may have in all (from `RRULE`s,
/// `RDATE`s and `DTSTART`s), so matching it against the IANA zones stays
/// cheap.
pub const MAX_TRANSITIONS: usize = 5_000;

/// What a `TZID` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// An IANA zone: by name, by its Windows name, or the one behaving as
    /// the feed's definition does.
    Iana(Tz),
    /// A definition no IANA zone follows, with one offset for all time, in
    /// seconds east of UTC.
    Fixed(i32),
}

/// The zones of one feed, by `TZID`.
#[derive(Debug, Default)]
pub struct Zones {
    /// `TZID`s defined by the feed: the matching zone, or why none.
    defined: HashMap<String, Result<Zone, String>>,
}

impl Zones {
    /// Reads the feed's `VTIMEZONE` definitions.
    pub fn from_components(components: &[Component<'_>]) -> Zones {
        let mut defined = HashMap::new();
        let mut rules = 0;
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
            rules += component
                .components
                .iter()
                .flat_map(|observance| &observance.properties)
                .filter(|p| p.name.as_str().eq_ignore_ascii_case("RRULE"))
                .count();
            let zone = if rules > MAX_FEED_ZONE_RULES {
                Err(format!(
                    "the feed's time zones have more than {MAX_FEED_ZONE_RULES} RRULEs; \
                     `{tzid}` was not read"
                ))
            } else if defined.len() < MAX_DEFINITIONS {
                matching_zone(tzid, component)
            } else {
                Err(format!(
                    "the feed defines more than {MAX_DEFINITIONS} time zones; \
                     `{tzid}` was not read"
                ))
            };
            defined.insert(tzid.to_string(), zone);
        }
        Zones { defined }
    }

    /// The zone `tzid` names; `None` for a name nothing defines, whose
    /// times are then floating (as other readers, Python's `icalendar`
    /// among them, take them); an error for a definition with transitions
    /// no IANA zone follows.
    pub fn resolve(&self, tzid: &str) -> Result<Option<Zone>, String> {
        let tzid = tzid.trim().trim_matches('"');
        if let Some(tz) = iana_zone(tzid) {
            return Ok(Some(Zone::Iana(tz)));
        }
        if let Some(defined) = self.defined.get(tzid) {
            return defined.clone().map(Some);
        }
        Ok(windows_zone(tzid).map(Zone::Iana))
    }
}

/// The zone a `TZID` names without a definition: an IANA name (behind a
/// prefix too), else a Windows name. A client's `PUT` is read with it too,
/// so both paths know the same names.
pub fn named_zone(tzid: &str) -> Option<Tz> {
    let tzid = tzid.trim().trim_matches('"');
    iana_zone(tzid).or_else(|| windows_zone(tzid))
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

/// The IANA zone that behaves like the `VTIMEZONE` `definition`, else its
/// own offset if it has only one.
fn matching_zone(tzid: &str, definition: &Component<'_>) -> Result<Zone, String> {
    let transitions = transitions(definition)
        .map_err(|why| format!("the VTIMEZONE of `{tzid}` cannot be read: {why}"))?;
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
        .map(|tz| Zone::Iana(*tz))
        .or_else(|| fixed_offset(&transitions).map(Zone::Fixed))
        .ok_or_else(|| {
            format!(
                "the VTIMEZONE of `{tzid}` matches no IANA zone \
                 ({MATCH_FROM_YEAR}–{MATCH_TO_YEAR}) and changes its offset"
            )
        })
}

/// The one offset of a definition that never changes it.
fn fixed_offset(transitions: &[Transition]) -> Option<i32> {
    let offset = transitions.first()?.offset;
    transitions
        .iter()
        .all(|t| t.before == offset && t.offset == offset)
        .then_some(offset)
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

/// The definition's transitions in time order, through [`MATCH_TO_YEAR`],
/// or why they are not read (a malformed observance, or one past the
/// bounds above: a definition never costs more than they allow).
fn transitions(definition: &Component<'_>) -> Result<Vec<Transition>, String> {
    let observances: Vec<&Component<'_>> = definition
        .components
        .iter()
        .filter(|c| {
            let name = c.name.as_str();
            name.eq_ignore_ascii_case("STANDARD") || name.eq_ignore_ascii_case("DAYLIGHT")
        })
        .collect();
    if observances.len() > MAX_OBSERVANCES {
        return Err(format!("more than {MAX_OBSERVANCES} observances"));
    }
    let rules = observances
        .iter()
        .flat_map(|o| &o.properties)
        .filter(|p| p.name.as_str().eq_ignore_ascii_case("RRULE"))
        .count();
    if rules > MAX_ZONE_RULES {
        return Err(format!("more than {MAX_ZONE_RULES} RRULEs"));
    }
    let too_many = || format!("more than {MAX_TRANSITIONS} transitions");
    let mut all = Vec::new();
    for observance in observances {
        let offset_of = |name: &str| {
            observance
                .find_prop(name)
                .and_then(|p| utc_offset(p.val.as_str()))
                .ok_or_else(|| format!("an observance has no valid {name}"))
        };
        let before = offset_of("TZOFFSETFROM")?;
        let offset = offset_of("TZOFFSETTO")?;
        let start = observance
            .find_prop("DTSTART")
            .and_then(|p| {
                NaiveDateTime::parse_from_str(p.val.as_str().trim(), "%Y%m%dT%H%M%S").ok()
            })
            .ok_or("an observance has no valid DTSTART")?;
        let mut onsets = vec![start];
        for property in &observance.properties {
            let value = property.val.as_str();
            match property.name.as_str().to_ascii_uppercase().as_str() {
                "RRULE" => onsets.extend(rule_onsets(start, value)?),
                "RDATE" => {
                    for date in value.split(',') {
                        if all.len() + onsets.len() >= MAX_TRANSITIONS {
                            return Err(too_many());
                        }
                        onsets.extend(
                            NaiveDateTime::parse_from_str(date.trim(), "%Y%m%dT%H%M%S").ok(),
                        );
                    }
                }
                _ => {}
            }
            if all.len() + onsets.len() > MAX_TRANSITIONS {
                return Err(too_many());
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
    if all.is_empty() {
        return Err("it has no observance".into());
    }
    Ok(all)
}

/// What a rule is moved by before it is expanded: 19 Gregorian cycles of
/// 400 years, which repeat the calendar day for day, so its onsets are the
/// same, moved. The rrule crate iterates a rule that never matches up to its
/// last year (10,000); moved, that is a few hundred years past
/// [`MATCH_TO_YEAR`] instead of eight thousand.
const SHIFT_DAYS: i64 = 19 * 146_097;

/// The wall-clock onsets of an observance's `RRULE` through
/// [`MATCH_TO_YEAR`] (expanded as if in UTC: the rule is wall-clock), at
/// most [`MAX_ONSETS_PER_RULE`]. Only yearly rules are read: zones change
/// at most a few times a year, and every definition in use says
/// `FREQ=YEARLY`, while a finer rule that never matches would be iterated
/// second by second.
fn rule_onsets(start: NaiveDateTime, rule: &str) -> Result<Vec<NaiveDateTime>, String> {
    let unreadable = || format!("RRULE `{}` cannot be read", shorten(rule));
    let mut parsed = parse_rrule(rule).map_err(|_| unreadable())?;
    if parsed.get_freq() != Frequency::Yearly {
        return Err(format!("RRULE `{}` is not FREQ=YEARLY", shorten(rule)));
    }
    let shift = Duration::days(SHIFT_DAYS);
    let moved = |t: NaiveDateTime| {
        t.checked_add_signed(shift)
            .map(|t| rrule::Tz::UTC.from_utc_datetime(&t))
            .ok_or_else(unreadable)
    };
    if let Some(until) = parsed.get_until() {
        // Past MATCH_TO_YEAR an end changes nothing here.
        let last = NaiveDate::from_ymd_opt(MATCH_TO_YEAR + 1, 1, 1)
            .unwrap_or_default()
            .and_time(NaiveTime::MIN);
        let until = moved(until.naive_utc().min(last))?;
        parsed = parsed.until(until);
    }
    let set = parsed.build(moved(start)?).map_err(|_| unreadable())?;
    Ok(set
        .into_iter()
        .map(|t| t.naive_utc() - shift)
        .take_while(|t| t.year() <= MATCH_TO_YEAR)
        .take(MAX_ONSETS_PER_RULE)
        .collect())
}

/// A rule as an error shows it: at most 60 characters.
fn shorten(rule: &str) -> String {
    match rule.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &rule[..at]),
        None => rule.to_string(),
    }
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
        let limits = &crate::ics::bounds::Limits::FEED;
        let unfolded = crate::ics::bounds::unfold_bounded(feed, limits).unwrap();
        let calendar = crate::ics::bounds::parse_bounded(&unfolded, limits).unwrap();
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
        let feed = zones(OUTLOOK);
        let Some(Zone::Iana(custom)) = feed.resolve("Customized Time Zone").unwrap() else {
            panic!("not matched");
        };
        assert!(custom.name().starts_with("Europe/"), "{custom:?}");
        // Two names of one zone (the second a link to the first).
        let Some(Zone::Iana(india)) = feed.resolve("India").unwrap() else {
            panic!("not matched");
        };
        assert!(
            [Tz::Asia__Kolkata, Tz::Asia__Calcutta].contains(&india),
            "{india:?}"
        );
        // No IANA zone is at +05:17: its own offset, for all time.
        assert_eq!(
            feed.resolve("Nowhere"),
            Ok(Some(Zone::Fixed(5 * 3600 + 17 * 60)))
        );
        // With a transition of its own, no IANA zone follows it.
        let shifting = OUTLOOK.replace(
            "TZOFFSETFROM:+0517\r\nTZOFFSETTO:+0517\r\nEND:STANDARD",
            "TZOFFSETFROM:+0517\r\nTZOFFSETTO:+0517\r\nEND:STANDARD\r\n\
             BEGIN:DAYLIGHT\r\nDTSTART:20200301T020000\r\nTZOFFSETFROM:+0517\r\n\
             TZOFFSETTO:+0617\r\nEND:DAYLIGHT",
        );
        let err = zones(&shifting).resolve("Nowhere").unwrap_err();
        assert!(err.contains("matches no IANA zone"), "{err}");
        assert!(err.contains("changes its offset"), "{err}");
    }

    /// A `VTIMEZONE` of `tzid` with `observances`, each holding `rules`
    /// (one `RRULE` line each).
    fn definition(tzid: &str, observances: usize, rules: &[&str]) -> String {
        let rules: String = rules.iter().map(|r| format!("RRULE:{r}\r\n")).collect();
        let observance = format!(
            "BEGIN:STANDARD\r\nDTSTART:16010101T030000\r\nTZOFFSETFROM:+0517\r\n\
             TZOFFSETTO:+0517\r\n{rules}END:STANDARD\r\n"
        );
        format!(
            "BEGIN:VTIMEZONE\r\nTZID:{tzid}\r\n{}END:VTIMEZONE\r\n",
            observance.repeat(observances)
        )
    }

    fn feed(definitions: &str) -> String {
        format!("BEGIN:VCALENDAR\r\n{definitions}END:VCALENDAR\r\n")
    }

    fn hostile(observances: usize, rules: &[&str]) -> String {
        feed(&definition("Hostile", observances, rules))
    }

    fn hostile_error(text: &str) -> String {
        zones(text).resolve("Hostile").unwrap_err()
    }

    #[test]
    fn hostile_definitions_are_refused_by_name() {
        let yearly = "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10";
        let err = hostile_error(&hostile(MAX_OBSERVANCES + 1, &[]));
        assert!(err.contains("more than 200 observances"), "{err}");
        // Just under: read (its one offset applied, not refused).
        let fixed = Ok(Some(Zone::Fixed(5 * 3600 + 17 * 60)));
        assert_eq!(
            zones(&hostile(MAX_OBSERVANCES, &[])).resolve("Hostile"),
            fixed
        );
        let err = hostile_error(&hostile(1, &[yearly; MAX_ZONE_RULES + 1]));
        assert!(err.contains("more than 100 RRULEs"), "{err}");
        assert_eq!(zones(&hostile(2, &[yearly; 2])).resolve("Hostile"), fixed);
        // Every rule at its most: the transitions' cap stops the reading
        // (437 onsets each, 1601–2037).
        let err = hostile_error(&hostile(1, &[yearly; MAX_ZONE_RULES]));
        assert!(err.contains("more than 5000 transitions"), "{err}");
        let err = hostile_error(&hostile(1, &["FREQ=SECONDLY"]));
        assert!(
            err.contains("RRULE `FREQ=SECONDLY` is not FREQ=YEARLY"),
            "{err}"
        );
        // A feed's definitions share one budget of rules.
        let definitions: String = (0..4)
            .map(|i| definition(&format!("Z{i}"), 10, &[yearly; MAX_ZONE_RULES / 10]))
            .collect();
        let zones = zones(&feed(&definitions));
        let err = zones.resolve("Z3").unwrap_err();
        assert!(err.contains("more than 300 RRULEs"), "{err}");
        let err = zones.resolve("Z2").unwrap_err();
        assert!(err.contains("more than 5000 transitions"), "{err}");
    }

    #[test]
    fn rules_that_never_match_end_within_a_few_hundred_years() {
        // Iterated year by year: to the rrule crate's year 10,000 unless
        // moved (eight thousand years from 1601; a few hundred moved).
        let never = "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30";
        let start = NaiveDateTime::parse_from_str("16010101T030000", "%Y%m%dT%H%M%S").unwrap();
        let began = std::time::Instant::now();
        for _ in 0..MAX_ZONE_RULES {
            assert_eq!(rule_onsets(start, never), Ok(vec![]));
        }
        let elapsed = began.elapsed();
        assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
        // Moved and back: the same onsets as the rule gives unmoved.
        let october = rule_onsets(
            start,
            "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10;UNTIL=20061029T030000Z",
        )
        .unwrap();
        assert_eq!(october.len(), 2006 - 1601 + 1);
        assert_eq!(october.last().unwrap().to_string(), "2006-10-29 03:00:00");
        let dates: Vec<String> = (0..MAX_TRANSITIONS)
            .map(|i| format!("{}0101T000000", 1601 + i % 400))
            .collect();
        let text = hostile(1, &[]).replace(
            "TZOFFSETTO:+0517\r\n",
            &format!("TZOFFSETTO:+0517\r\nRDATE:{}\r\n", dates.join(",")),
        );
        let err = hostile_error(&text);
        assert!(err.contains("more than 5000 transitions"), "{err}");
    }

    #[test]
    fn names_resolve_without_definitions() {
        let zones = Zones::default();
        assert_eq!(
            zones.resolve("W. Europe Standard Time"),
            Ok(Some(Zone::Iana(Tz::Europe__Berlin)))
        );
        assert_eq!(
            zones.resolve("/mozilla.org/20050126_1/America/New_York"),
            Ok(Some(Zone::Iana(Tz::America__New_York)))
        );
        // Nothing defines it: floating.
        assert_eq!(zones.resolve("Mars Standard Time"), Ok(None));
        assert_eq!(utc_offset("-0330"), Some(-12_600));
        assert_eq!(utc_offset("0100"), None);
    }
}
