//! A whole `VCALENDAR` (a feed, a CalDAV calendar's resources, a vault
//! `.ics` file, the shipped holidays) to the cache's entries: the one reader
//! of VEVENTs into events, shared by every kind that reads iCalendar. It
//! reads property values and zones through [`crate::ics`], which knows
//! iCalendar but not the cache.
//!
//!
//! A VEVENT without a `UID` gets one derived from its times, rules and
//! summary ([`derived_uid`]).
//! `DTSTART`/`DTEND`/`DURATION` give date, times and zone (a `TZID` as
//! [`Zones`] resolves it; UTC and floating times, and those of a `TZID`
//! nothing defines, show in the display zone).
//! A VEVENT with `RRULE`s or `RDATE`s is a series ([`RecurrenceSet`]): every
//! `RRULE` and `EXRULE`, `RDATE`s as dates, date-times or periods, `EXDATE`s
//! as exact starts (a date excludes its whole day). The VEVENTs of a UID with
//! a `RECURRENCE-ID` override the occurrence they name: each is an event of
//! its own, and its occurrence leaves the series; with
//! `RANGE=THISANDFUTURE` the occurrences after it follow it too (moved by
//! as much, with its length and fields). `STATUS:CANCELLED` hides a VEVENT.

use chrono::{Duration, NaiveDate, NaiveDateTime};
use chrono_tz::Tz;
use icalendar::parser::{Component, Property};

use super::{ParsedNote, SourceConfig};
use crate::calendar::index::cache::Indexed;
use crate::ics::bounds::{self, Limits};
use crate::ics::values::{IcsTime, PeriodEnd, alarms, duration, first_value, param, values};
use crate::ics::zone::Zones;
use almanac_model::event::EventType;
use almanac_model::id::EventId;
use almanac_model::series::recurrence::Timing;
use almanac_model::series::recurrence_set::RecurrenceSet;
use almanac_model::spec::EventSpec;
use almanac_model::status::SkippedNote;

/// One VEVENT, read.
struct Vevent<'a> {
    index: usize,
    uid: String,
    component: &'a Component<'a>,
    start: IcsTime,
    end: Option<IcsTime>,
    duration: Option<Duration>,
    /// `RECURRENCE-ID`, and whether it has `RANGE=THISANDFUTURE`.
    recurrence_id: Option<(IcsTime, bool)>,
    rdates: Vec<(IcsTime, Option<PeriodEnd>)>,
    exdates: Vec<IcsTime>,
    sequence: i64,
}

impl Vevent<'_> {
    fn text(&self, name: &str) -> Option<&str> {
        self.component.find_prop(name).map(|p| p.val.as_str())
    }

    /// Whether rules or extra dates make it a series.
    fn recurs(&self) -> bool {
        self.properties("RRULE").next().is_some() || self.properties("RDATE").next().is_some()
    }

    fn cancelled(&self) -> bool {
        self.text("STATUS")
            .is_some_and(|s| s.trim().eq_ignore_ascii_case("CANCELLED"))
    }

    fn properties<'p>(&'p self, name: &'p str) -> impl Iterator<Item = &'p Property<'p>> + 'p {
        self.component
            .properties
            .iter()
            .filter(move |p| p.name.as_str().eq_ignore_ascii_case(name))
    }
}

/// A feed (or CalDAV item) read: its entries, and the items that could not
/// be read at all (also among `note.skipped`), which the calendar's status
/// names.
pub struct Parsed {
    pub note: ParsedNote,
    /// Each as "VEVENT at line 7: why".
    pub set_aside: Vec<String>,
}

/// Parses a feed into cache entries, through the bounded reader with
/// `limits`. Fails only when the whole text is refused (not iCalendar, or
/// past a limit of the whole text); a bad item is set aside, a bad event
/// skipped, and both reported.
pub fn parse(
    source: &SourceConfig,
    text: &str,
    display_tz: Tz,
    limits: &Limits,
) -> Result<Parsed, String> {
    let unfolded = bounds::unfold_bounded(text, limits).map_err(|e| e.to_string())?;
    let calendar = bounds::parse_items(&unfolded, limits).map_err(|e| e.to_string())?;
    let zones = Zones::from_components(&calendar.components);
    let mut result = ParsedNote::default();
    let mut set_aside = Vec::new();
    for item in &calendar.set_aside {
        let reason = format!("{} at line {}: {}", item.name, item.line, item.error);
        result.skipped.push(SkippedNote {
            path: format!("{}:{}", source.id, item.line),
            reason: reason.clone(),
        });
        set_aside.push(reason);
    }
    let mut skip = |index: usize, reason: String| {
        result.skipped.push(SkippedNote {
            path: format!("{}#{}", source.id, index + 1),
            reason,
        })
    };
    // The VEVENTs by UID, in feed order.
    let mut groups: Vec<(String, Vec<Vevent>)> = Vec::new();
    let vevents = calendar
        .components
        .iter()
        .filter(|c| c.name.as_str().eq_ignore_ascii_case("VEVENT"));
    for (index, component) in vevents.enumerate() {
        match read(index, component, &zones) {
            Ok(vevent) => match groups.iter_mut().find(|(uid, _)| *uid == vevent.uid) {
                Some((_, group)) => group.push(vevent),
                None => groups.push((vevent.uid.clone(), vec![vevent])),
            },
            Err(reason) => skip(index, reason),
        }
    }
    let mut entries = Vec::new();
    for (_, group) in &groups {
        for (index, outcome) in convert_group(source, group, display_tz) {
            match outcome {
                Ok(entry) => entries.push(entry.into()),
                Err(reason) => skip(index, reason),
            }
        }
    }
    result.entries = entries;
    Ok(Parsed {
        note: result,
        set_aside,
    })
}

/// For each VEVENT of `text`, in order: the occurrence it overrides
/// (`RECURRENCE-ID`) as the key its event id carries (the local time in its
/// series' zone, `YYYYMMDDTHHMMSS`), or `None` when it overrides none (or
/// cannot be read). A CalDAV write finds the override it replaces by it.
pub fn override_keys(text: &str, display_tz: Tz) -> Result<Vec<Option<String>>, String> {
    let limits = &Limits::RESOURCE;
    let unfolded = bounds::unfold_bounded(text, limits).map_err(|e| e.to_string())?;
    let calendar = bounds::parse_bounded(&unfolded, limits).map_err(|e| e.to_string())?;
    let zones = Zones::from_components(&calendar.components);
    let vevents: Vec<Option<Vevent>> = calendar
        .components
        .iter()
        .filter(|c| c.name.as_str().eq_ignore_ascii_case("VEVENT"))
        .enumerate()
        .map(|(index, component)| read(index, component, &zones).ok())
        .collect();
    let key = |vevent: &Vevent| {
        let (rid, _) = vevent.recurrence_id?;
        let master = vevents
            .iter()
            .flatten()
            .find(|m| m.uid == vevent.uid && m.recurrence_id.is_none());
        let zone = zone_of(master.unwrap_or(vevent), display_tz).0;
        Some(rid.local(zone).format("%Y%m%dT%H%M%S").to_string())
    };
    Ok(vevents.iter().map(|v| v.as_ref().and_then(key)).collect())
}

/// The id of a VEVENT without a `UID` (RFC 5545 requires one; published
/// samples and hand-written feeds go without): a digest of its start, end,
/// rules and summary, so it stays the same across refreshes while the
/// event does.
fn derived_uid(component: &Component<'_>) -> String {
    use sha2::Digest;
    let mut digest = sha2::Sha256::new();
    for name in ["DTSTART", "DTEND", "DURATION", "RRULE", "RDATE", "SUMMARY"] {
        for property in component
            .properties
            .iter()
            .filter(|p| p.name.as_str().eq_ignore_ascii_case(name))
        {
            digest.update(name.as_bytes());
            for param in &property.params {
                digest.update(param.key.as_str().as_bytes());
                digest.update(param.val.as_ref().map_or("", |v| v.as_str()).as_bytes());
            }
            digest.update(property.val.as_str().as_bytes());
            digest.update(b"\n");
        }
    }
    let hex: String = digest
        .finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("no-uid-{hex}")
}

fn read<'a>(
    index: usize,
    component: &'a Component<'a>,
    zones: &Zones,
) -> Result<Vevent<'a>, String> {
    let uid = component
        .find_prop("UID")
        .map(|p| p.val.as_str().trim().to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| derived_uid(component));
    let time = |name: &str| -> Result<Option<IcsTime>, String> {
        component
            .find_prop(name)
            .map(|p| first_value(p, zones).map_err(|e| format!("`{uid}`: {name}: {e}")))
            .transpose()
    };
    let start = time("DTSTART")?.ok_or_else(|| format!("`{uid}` has no DTSTART"))?;
    let recurrence_id = component.find_prop("RECURRENCE-ID").map(|p| {
        let future = param(p, "RANGE").is_some_and(|r| r.eq_ignore_ascii_case("THISANDFUTURE"));
        first_value(p, zones).map(|t| (t, future))
    });
    let mut rdates = Vec::new();
    let mut exdates = Vec::new();
    for property in &component.properties {
        let name = property.name.as_str();
        let read = || values(property, zones).map_err(|e| format!("`{uid}`: {name}: {e}"));
        if name.eq_ignore_ascii_case("RDATE") {
            rdates.extend(read()?);
        } else if name.eq_ignore_ascii_case("EXDATE") {
            exdates.extend(read()?.into_iter().map(|(t, _)| t));
        }
    }
    Ok(Vevent {
        index,
        start,
        rdates,
        exdates,
        end: time("DTEND")?,
        duration: component
            .find_prop("DURATION")
            .and_then(|d| duration(d.val.as_str())),
        recurrence_id: recurrence_id
            .transpose()
            .map_err(|e| format!("`{uid}`: RECURRENCE-ID: {e}"))?,
        sequence: component
            .find_prop("SEQUENCE")
            .and_then(|s| s.val.as_str().trim().parse().ok())
            .unwrap_or(0),
        uid,
        component,
    })
}

/// The entries of one UID: the series (cut where `THISANDFUTURE` overrides
/// take over) and each override. Pairs each outcome with its VEVENT's index.
fn convert_group(
    source: &SourceConfig,
    group: &[Vevent],
    display_tz: Tz,
) -> Vec<(usize, Result<Indexed, String>)> {
    // The series itself: of several, the one with the highest SEQUENCE.
    let master = group.iter().filter(|v| v.recurrence_id.is_none()).fold(
        None,
        |best: Option<&Vevent>, v| match best {
            Some(b) if b.sequence >= v.sequence => Some(b),
            _ => Some(v),
        },
    );
    // One override per occurrence: of several, the highest SEQUENCE.
    let mut overrides: Vec<&Vevent> = Vec::new();
    for vevent in group.iter().filter(|v| v.recurrence_id.is_some()) {
        let rid = |v: &Vevent| v.recurrence_id.map(|(rid, _)| rid);
        match overrides.iter_mut().find(|o| rid(o) == rid(vevent)) {
            Some(kept) if kept.sequence < vevent.sequence => *kept = vevent,
            Some(_) => {}
            None => overrides.push(vevent),
        }
    }
    let mut out = Vec::new();
    for vevent in &overrides {
        if !vevent.cancelled() {
            let zone = master.map(|m| zone_of(m, display_tz).0);
            out.push((vevent.index, single(source, vevent, zone, display_tz)));
        }
    }
    let Some(master) = master else {
        return out;
    };
    let zones = zone_of(master, display_tz);
    let zone = zones.0;
    let anchor = master.start.local(zone);
    let rid_local = |v: &Vevent| v.recurrence_id.map(|(rid, _)| rid.local(zone));
    if !master.recurs() {
        // An override of its one occurrence replaces it.
        let replaced = overrides.iter().any(|o| rid_local(o) == Some(anchor));
        if !master.cancelled() && !replaced {
            out.push((master.index, single(source, master, None, display_tz)));
        }
        return out;
    }
    let mut set = recurrence(master, zone);
    set.exdates
        .extend(overrides.iter().filter_map(|v| rid_local(v)));
    let mut futures: Vec<&Vevent> = overrides
        .iter()
        .copied()
        .filter(|v| v.recurrence_id.is_some_and(|(_, future)| future))
        .collect();
    futures.sort_by_key(|v| rid_local(v));
    let cuts: Vec<NaiveDateTime> = futures.iter().filter_map(|v| rid_local(v)).collect();
    if !master.cancelled() {
        let own = RecurrenceSet {
            before: cuts.first().copied(),
            ..set.clone()
        };
        out.push((
            master.index,
            series(source, master, None, zones, anchor, own, display_tz),
        ));
    }
    for (i, (part, &cut)) in futures.iter().zip(&cuts).enumerate() {
        if part.cancelled() {
            continue;
        }
        let part_set = RecurrenceSet {
            after: Some(cut),
            before: cuts.get(i + 1).copied(),
            shift: part.start.local(zone) - cut,
            ..set.clone()
        };
        let key = format!("{}::thisandfuture", cut.format("%Y%m%dT%H%M%S"));
        out.push((
            part.index,
            series(
                source,
                part,
                Some(&key),
                zones,
                anchor,
                part_set,
                display_tz,
            ),
        ));
    }
    out
}

/// The zone a VEVENT's times are computed in, and the zone it reports
/// (`None`: shown in the display zone).
fn zone_of(vevent: &Vevent, display_tz: Tz) -> (Tz, Option<Tz>) {
    match vevent.start {
        IcsTime::Zoned(_, tz) => (tz, Some(tz)),
        // A UTC series recurs in UTC (RFC 5545), not in the display zone.
        IcsTime::Utc(_) if vevent.recurs() => (Tz::UTC, Some(Tz::UTC)),
        _ => (display_tz, None),
    }
}

/// The recurrence of a series VEVENT, as local times in `zone`.
fn recurrence(master: &Vevent, zone: Tz) -> RecurrenceSet {
    let mut set = RecurrenceSet::default();
    for property in master.properties("RRULE") {
        set.rrules.push(property.val.as_str().to_string());
    }
    for property in master.properties("EXRULE") {
        set.exrules.push(property.val.as_str().to_string());
    }
    for (start, end) in &master.rdates {
        let local = start.local(zone);
        let length = end.map(|end| match end {
            PeriodEnd::At(end) => end.local(zone) - local,
            PeriodEnd::Length(length) => length,
        });
        set.rdates.push((local, length));
    }
    for exdate in &master.exdates {
        match exdate {
            // A date excludes its day from a timed series.
            IcsTime::Date(day) if !matches!(master.start, IcsTime::Date(_)) => {
                set.exdate_days.push(*day)
            }
            other => set.exdates.push(other.local(zone)),
        }
    }
    set
}

/// The fields of a VEVENT as a single event in `zone` (reported as
/// `timezone`), and its local start.
fn spec_of(
    vevent: &Vevent,
    zone: Tz,
    timezone: Option<Tz>,
) -> Result<(EventSpec, NaiveDateTime), String> {
    let uid = &vevent.uid;
    let all_day = matches!(vevent.start, IcsTime::Date(_));
    let begin = vevent.start.local(zone);
    let end = match (vevent.end, vevent.duration) {
        (Some(end), _) => Some(end.local(zone)),
        (None, Some(length)) => Some(begin + length),
        (None, None) => None,
    };
    let (end_date, end_time) = match end {
        Some(end) if all_day => {
            // DTEND of an all-day event is exclusive.
            let last = end.date().pred_opt().unwrap_or(end.date());
            ((last > begin.date()).then_some(last), None)
        }
        Some(end) if end > begin => (
            (end.date() > begin.date()).then_some(end.date()),
            Some(end.time()),
        ),
        _ => (None, None),
    };
    let title = vevent
        .text("SUMMARY")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or("(no title)");
    let spec = EventSpec {
        title: title.replace(['\n', '\r', '\0'], " "),
        kind: EventType::Single,
        all_day,
        date: Some(begin.date()),
        end_date,
        start_time: (!all_day).then_some(begin.time()),
        end_time,
        timezone,
        category: vevent
            .text("CATEGORIES")
            .and_then(|c| c.split(',').next())
            .map(|c| c.trim().to_string()),
        description: vevent.text("DESCRIPTION").map(str::to_string),
        url: vevent.text("URL").map(str::to_string),
        alarms: Some(alarms(vevent.component)).filter(|a| !a.is_empty()),
        ..EventSpec::default()
    };
    spec.validate().map_err(|e| format!("`{uid}`: {e}"))?;
    Ok((spec, begin))
}

/// The searchable text of a VEVENT besides its title.
fn contents(vevent: &Vevent) -> String {
    [vevent.text("DESCRIPTION"), vevent.text("LOCATION")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n")
}

/// A VEVENT that happens once: a plain event, or an override (its id names
/// the occurrence it replaces, as a local time in the series' zone).
fn single(
    source: &SourceConfig,
    vevent: &Vevent,
    series_zone: Option<Tz>,
    display_tz: Tz,
) -> Result<Indexed, String> {
    let (zone, timezone) = zone_of(vevent, display_tz);
    let (spec, _) = spec_of(vevent, zone, timezone)?;
    let timing =
        Timing::compile(&spec, display_tz).map_err(|e| format!("`{}`: {e}", vevent.uid))?;
    let recurrence = vevent.recurrence_id.map(|(rid, _)| {
        rid.local(series_zone.unwrap_or(zone))
            .format("%Y%m%dT%H%M%S")
            .to_string()
    });
    let id = EventId::ical(&source.id, &vevent.uid, recurrence.as_deref()).to_string();
    Ok(Indexed::new(id, spec, timing, &contents(vevent), 0))
}

/// A series (or the part of one a `THISANDFUTURE` override leads, `key`
/// naming it) with the fields of `vevent` and the rules starting at `anchor`.
fn series(
    source: &SourceConfig,
    vevent: &Vevent,
    key: Option<&str>,
    zones: (Tz, Option<Tz>),
    anchor: NaiveDateTime,
    set: RecurrenceSet,
    display_tz: Tz,
) -> Result<Indexed, String> {
    let uid = &vevent.uid;
    let (zone, timezone) = zones;
    let (mut spec, begin) = spec_of(vevent, zone, timezone)?;
    spec.kind = EventType::Rrule;
    spec.start_date = Some(begin.date());
    // One rule reads as before (`FREQ=…`); several as one `RRULE:` line each.
    spec.rrule = match set.rrules.as_slice() {
        [] => None,
        [rule] => Some(rule.clone()),
        rules => Some(
            rules
                .iter()
                .map(|r| format!("RRULE:{r}"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    };
    let mut skip: Vec<NaiveDate> = set.exdates.iter().map(|t| t.date()).collect();
    skip.extend(&set.exdate_days);
    skip.sort();
    skip.dedup();
    spec.skip_dates = skip;
    let timing =
        Timing::set(&spec, display_tz, anchor, set).map_err(|e| format!("`{uid}`: {e}"))?;
    let id = EventId::ical(&source.id, uid, key).to_string();
    Ok(Indexed::new(id, spec, timing, &contents(vevent), 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::sources::ResolvedKind;
    use almanac_model::event::AlarmAction;

    fn parse_feed(events: &str) -> ParsedNote {
        let source = SourceConfig {
            id: "feed".into(),
            name: "Feed".into(),
            color: "#000000".into(),
            kind: ResolvedKind::Ical {
                url: "https://example.com/feed.ics".into(),
                allow_private_network: false,
            },
            order: None,
            components: None,
        };
        let text = format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n{events}END:VCALENDAR\r\n");
        parse(&source, &text, Tz::UTC, &Limits::FEED).unwrap().note
    }

    #[test]
    fn the_alarms_kept_are_the_leads_before_the_start() {
        let alarm = |action: &str, trigger: &str| {
            format!("BEGIN:VALARM\r\n{action}TRIGGER{trigger}\r\nEND:VALARM\r\n")
        };
        let alarms = [
            alarm("ACTION:EMAIL\r\n", ":-PT5M"),
            alarm("ACTION:DISPLAY\r\n", ";VALUE=DATE-TIME:20260101T080000Z"),
            alarm("ACTION:DISPLAY\r\n", ";RELATED=END:-PT5M"),
            alarm("ACTION:DISPLAY\r\n", ":PT5M"),
            alarm("ACTION:DISPLAY\r\n", ":-P8D"),
            alarm("ACTION:AUDIO\r\n", ":-PT1H30M"),
            alarm("", ":-PT15M"),
            alarm("ACTION:DISPLAY\r\n", ";RELATED=START:PT0S"),
        ]
        .concat();
        let parsed = parse_feed(&format!(
            "BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20260105T090000Z\r\nSUMMARY:A\r\n{alarms}END:VEVENT\r\n\
             BEGIN:VEVENT\r\nUID:b\r\nDTSTART:20260105T090000Z\r\nSUMMARY:B\r\nEND:VEVENT\r\n"
        ));
        assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
        let kept: Vec<(i64, AlarmAction)> = parsed.entries[0]
            .spec
            .alarms
            .iter()
            .flatten()
            .map(|a| (a.minutes_before, a.action))
            .collect();
        assert_eq!(
            kept,
            [
                (90, AlarmAction::Audio),
                (15, AlarmAction::Display),
                (0, AlarmAction::Display)
            ]
        );
        assert_eq!(parsed.entries[1].spec.alarms, None);
    }

    #[test]
    fn hostile_values_are_reported_or_bounded_never_a_panic() {
        let parsed = parse_feed(
            "BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20240101T100000Z\r\nDURATION:P99999999W\r\nSUMMARY:Long\r\nEND:VEVENT\r\n\
             BEGIN:VEVENT\r\nUID:b\r\nDTSTART:20240101T100000Z\r\nRRULE:FREQ=DAILY\r\n\
             RDATE;VALUE=PERIOD:20240102T100000Z/PT99999999999S\r\nSUMMARY:Period\r\nEND:VEVENT\r\n\
             BEGIN:VEVENT\r\nUID:c\r\nDTSTART:2024-01-01\r\nSUMMARY:Bad date\r\nEND:VEVENT\r\n\
             BEGIN:VEVENT\r\nUID:d\r\nDTSTART:20240101T100000Z\r\nEXDATE:yesterday\r\nRRULE:FREQ=DAILY\r\nSUMMARY:Bad exdate\r\nEND:VEVENT\r\n\
             BEGIN:VEVENT\r\nUID:e\r\nDTSTART:20240101T100000Z\r\nRRULE:FREQ=SOMETIMES\r\nSUMMARY:Bad rule\r\nEND:VEVENT\r\n",
        );
        // The overlong DURATION is dropped (an event without an end); the
        // overlong period reads as none (the `iso8601` crate's reading).
        assert_eq!(parsed.entries.len(), 2, "{:?}", parsed.skipped);
        let reasons: Vec<&str> = parsed.skipped.iter().map(|s| s.reason.as_str()).collect();
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        assert!(reasons[0].contains("`2024-01-01`"), "{reasons:?}");
        assert!(reasons[1].contains("EXDATE"), "{reasons:?}");
        assert!(reasons[2].contains("SOMETIMES"), "{reasons:?}");
    }
}
