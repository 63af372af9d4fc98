//! A client's `VCALENDAR` → the fields of one event.
//!
//! [`read`] maps the one `VEVENT` of a CalDAV resource onto the writable
//! [`EventFields`] a note can hold: summary, start and end (all-day, or
//! timed in an IANA zone; UTC and floating times land in the display zone),
//! `RRULE` (an `rrule` series) with `EXDATE`s as `skipDates`, description,
//! location, URL, category, display alarms, `CLASS` and every `RELATED-TO`
//! (with its `RELTYPE`). Every field it understands
//! is set (`null` when absent), so [`changes`] can compare two readings and
//! keep only what a client really changed: a note's own spelling (a weekly
//! `recurring` series, a zone equal to the display zone) survives an edit
//! that did not touch it.
//!
//! Modified occurrences (`RECURRENCE-ID`) are refused here; a series with
//! them is read by [`super::series`], which a note series maps onto detached
//! notes.

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, NaiveTime};
use chrono_tz::Tz;
use icalendar::{CalendarDateTime, Component, DatePerhapsTime};

use super::zone::named_zone;
use almanac_model::event::{Alarm, AlarmAction, EventType, Relation};
use almanac_model::fields::EventFields;

/// The title of an event sent without a `SUMMARY`.
const UNTITLED: &str = "Untitled";

/// The event a client sent.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientEvent {
    pub uid: String,
    pub fields: EventFields,
}

/// Unfolded text with the `TZID` left out of date-times that are in UTC
/// (`DTSTART;TZID=Etc/UTC:20240101T100000Z`): RFC 5545 forbids the pair, but
/// Python's `icalendar` writes it for UTC zones, and the reader would drop
/// the value. The `Z` is what the time means, so the time is read as UTC.
pub(super) fn utc_without_tzid(unfolded: &str) -> std::borrow::Cow<'_, str> {
    let fix = |line: &str| -> Option<String> {
        let mut quoted = false;
        let colon = line.char_indices().find_map(|(at, c)| {
            quoted ^= c == '"';
            (c == ':' && !quoted).then_some(at)
        })?;
        let (head, value) = (&line[..colon], &line[colon + 1..]);
        let utc = !value.is_empty() && value.split(',').all(|v| v.trim().ends_with(['Z', 'z']));
        let at = head.to_ascii_uppercase().find(";TZID=")?;
        if !utc {
            return None;
        }
        let rest = &head[at + 1..];
        let end = rest.find(';').map_or(head.len(), |i| at + 1 + i);
        Some(format!("{}{}:{value}", &head[..at], &head[end..]))
    };
    if !unfolded.lines().any(|line| fix(line).is_some()) {
        return std::borrow::Cow::Borrowed(unfolded);
    }
    let mut out = String::with_capacity(unfolded.len());
    for line in unfolded.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix("\r\n") {
            Some(body) => (body, "\r\n"),
            None => line
                .strip_suffix('\n')
                .map_or((line, ""), |body| (body, "\n")),
        };
        match fix(body) {
            Some(fixed) => out.push_str(&fixed),
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    std::borrow::Cow::Owned(out)
}

pub(super) fn fields_of(event: &icalendar::Event, display_tz: Tz) -> Result<EventFields, String> {
    let start = event.get_start().ok_or("the VEVENT has no DTSTART")?;
    let all_day = matches!(start, DatePerhapsTime::Date(_));
    let zone = match &start {
        DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone { tzid, .. }) => named_zone(tzid)
            .ok_or_else(|| {
                format!("TZID `{tzid}` is neither an IANA nor a Windows time zone name")
            })?,
        _ => display_tz,
    };
    let begin = local(&start, zone);
    let end = match event.get_end() {
        Some(end) => Some(local(&end, zone)),
        None => event
            .property_value("DURATION")
            .map(|d| match duration(d) {
                Ok(length) => begin
                    .checked_add_signed(length)
                    .ok_or_else(|| too_long("DURATION", d)),
                Err(BadDuration::TooLong) => Err(too_long("DURATION", d)),
                Err(BadDuration::Unreadable) => Err(format!("DURATION `{d}` is not understood")),
            })
            .transpose()?,
    };
    let date = begin.date();
    let (end_date, end_time) = match (end, all_day) {
        (Some(end), true) => {
            let last = end.date() - Duration::days(1);
            (Some(last).filter(|l| *l > date), None)
        }
        (Some(end), false) => {
            let overnight = end.date() == date + Duration::days(1) && end.time() < begin.time();
            let end_date = Some(end.date()).filter(|d| *d > date && !overnight);
            (end_date, Some(end.time()))
        }
        (None, _) => (None, None),
    };
    let rule = event.property_value("RRULE").map(normalized_rule);
    let skip_dates: Vec<String> = event
        .multi_properties()
        .get("EXDATE")
        .into_iter()
        .flatten()
        .flat_map(|p| {
            let tz = p.params().get("TZID").and_then(|t| named_zone(t.value()));
            p.value()
                .split(',')
                .filter_map(|v| exdate(v.trim(), tz.unwrap_or(zone), zone))
                .collect::<Vec<_>>()
        })
        .map(|d| d.format("%Y-%m-%d").to_string())
        .collect();
    let text = |name: &str| {
        Some(
            event
                .property_value(name)
                .map(str::to_string)
                .filter(|v| !v.is_empty()),
        )
    };
    let day = |d: NaiveDate| d.format("%Y-%m-%d").to_string();
    let clock = |t: NaiveTime| t.format("%H:%M").to_string();
    let alarms: Vec<Alarm> = event
        .components()
        .iter()
        .filter(|c| {
            c.property_value("ACTION")
                .is_none_or(|a| a.eq_ignore_ascii_case("DISPLAY"))
        })
        .filter_map(|c| c.property_value("TRIGGER"))
        .filter_map(|trigger| minutes_before(trigger).transpose())
        .map(|minutes_before| {
            Ok(Alarm {
                minutes_before: minutes_before?,
                action: AlarmAction::Display,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(EventFields {
        // SUMMARY is optional (RFC 5545 §3.6.1); a note needs a title.
        title: Some(
            event
                .get_summary()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .unwrap_or(UNTITLED)
                .to_string(),
        ),
        date: Some(Some(day(date))),
        end_date: Some(end_date.map(day)),
        start_time: Some((!all_day).then(|| clock(begin.time()))),
        end_time: Some(end_time.filter(|_| !all_day).map(clock)),
        all_day: Some(all_day),
        kind: Some(if rule.is_some() {
            EventType::Rrule
        } else {
            EventType::Single
        }),
        start_date: Some(rule.as_ref().map(|_| day(date))),
        rrule: Some(rule),
        skip_dates: Some(Some(skip_dates).filter(|s| !s.is_empty())),
        timezone: Some((!all_day && zone != display_tz).then(|| zone.name().to_string())),
        description: text("DESCRIPTION"),
        location: text("LOCATION"),
        url: text("URL"),
        // A note has one category: the first named. (`CATEGORIES` may
        // repeat, so the parser keeps it among the multi-properties.)
        category: Some(
            event
                .property_value("CATEGORIES")
                .or_else(|| {
                    let listed = event.multi_properties().get("CATEGORIES")?;
                    listed.first().map(|p| p.value())
                })
                .and_then(|c| c.split(',').next())
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty()),
        ),
        alarms: Some(Some(alarms).filter(|a| !a.is_empty())),
        class: Some(
            event
                .property_value("CLASS")
                .map(|c| c.trim().to_ascii_uppercase())
                .filter(|c| !c.is_empty()),
        ),
        related_to: Some(Some(relations(event)).filter(|r| !r.is_empty())),
        ..EventFields::default()
    })
}

/// The name [`keep_every_related_to`] gives `RELATED-TO`.
const REPEATABLE_RELATED_TO: &str = "RELATED";

/// Renames every `RELATED-TO` of `components` (and theirs) so that the
/// conversion into `icalendar`'s components keeps them all: it keeps only
/// the last of a repeated property unless the name is in its list of
/// repeatable ones, which spells this one `RELATED` (icalendar 0.17).
pub(super) fn keep_every_related_to(components: &mut [icalendar::parser::Component<'_>]) {
    for component in components {
        for property in &mut component.properties {
            if property.name.as_str().eq_ignore_ascii_case("RELATED-TO") {
                property.name = REPEATABLE_RELATED_TO.into();
            }
        }
        keep_every_related_to(&mut component.components);
    }
}

/// Every `RELATED-TO`, in the order sent, with its `RELTYPE` if any.
fn relations(event: &icalendar::Event) -> Vec<Relation> {
    let single = event.properties().get("RELATED-TO");
    let repeated = [REPEATABLE_RELATED_TO, "RELATED-TO"]
        .into_iter()
        .filter_map(|name| event.multi_properties().get(name))
        .flatten();
    single
        .into_iter()
        .chain(repeated)
        .filter(|p| !p.value().trim().is_empty())
        .map(|p| Relation {
            uid: p.value().trim().to_string(),
            rel_type: p
                .params()
                .get("RELTYPE")
                .map(|t| t.value().trim().to_ascii_uppercase()),
        })
        .collect()
}

/// The fields of `new` that differ from `old` (both from [`read`]): the merge
/// patch an update applies. A series that becomes an `rrule` series drops
/// the note's weekly / monthly fields, which would otherwise contradict it.
pub fn changes(new: &EventFields, old: &EventFields) -> EventFields {
    let mut patch = EventFields::default();
    macro_rules! changed {
        ($($field:ident),*) => {$(
            if new.$field != old.$field {
                patch.$field = new.$field.clone();
            }
        )*};
    }
    changed!(
        title,
        date,
        end_date,
        start_time,
        end_time,
        all_day,
        kind,
        rrule,
        start_date,
        skip_dates,
        timezone,
        description,
        location,
        url,
        category,
        alarms,
        completed,
        class,
        related_to
    );
    if patch.kind.is_some() || patch.rrule.is_some() {
        patch.kind = new.kind;
        patch.rrule = new.rrule.clone();
        patch.start_date = new.start_date.clone();
        patch.days_of_week = Some(None);
        patch.start_recur = Some(None);
        patch.end_recur = Some(None);
        patch.day_of_month = Some(None);
        patch.month = Some(None);
        patch.repeat_on = Some(None);
        patch.repeat_interval = Some(None);
    }
    patch
}

/// A date-time as a wall-clock time in `zone`.
pub(super) fn local(value: &DatePerhapsTime, zone: Tz) -> NaiveDateTime {
    match value {
        DatePerhapsTime::Date(d) => d.and_time(NaiveTime::MIN),
        DatePerhapsTime::DateTime(CalendarDateTime::Utc(t)) => t.with_timezone(&zone).naive_local(),
        DatePerhapsTime::DateTime(CalendarDateTime::Floating(t)) => *t,
        DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone { date_time, tzid }) => {
            match named_zone(tzid) {
                Some(tz) if tz != zone => in_zone(*date_time, tz, zone),
                _ => *date_time,
            }
        }
    }
}

fn in_zone(local: NaiveDateTime, from: Tz, to: Tz) -> NaiveDateTime {
    let instant = almanac_model::query::local_to_millis(local, from);
    DateTime::from_timestamp_millis(instant)
        .map(|t| t.with_timezone(&to).naive_local())
        .unwrap_or(local)
}

/// The day one `EXDATE` value removes, in the event's zone.
fn exdate(value: &str, value_tz: Tz, zone: Tz) -> Option<NaiveDate> {
    if let Some(utc) = value.strip_suffix(['Z', 'z']) {
        let at = NaiveDateTime::parse_from_str(utc, "%Y%m%dT%H%M%S").ok()?;
        return Some(at.and_utc().with_timezone(&zone).date_naive());
    }
    if let Ok(at) = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S") {
        return Some(in_zone(at, value_tz, zone).date());
    }
    NaiveDate::parse_from_str(value, "%Y%m%d").ok()
}

/// An `RRULE` in one spelling: parts upper-cased and sorted, `INTERVAL=1`
/// dropped, so a client re-ordering the parts is no change.
fn normalized_rule(rule: &str) -> String {
    let mut parts: Vec<String> = rule
        .split(';')
        .map(|p| p.trim().to_ascii_uppercase())
        .filter(|p| !p.is_empty() && p != "INTERVAL=1")
        .collect();
    parts.sort_by_key(|p| (!p.starts_with("FREQ="), p.clone()));
    parts.join(";")
}

/// Lengths beyond this (a century, as the feed reader's) are no event's or
/// alarm's, and would overflow the date arithmetic.
const MAX_DURATION_DAYS: i64 = 100 * 366;

/// Why a duration value is not read.
#[derive(Debug, PartialEq, Eq)]
enum BadDuration {
    /// Not RFC 5545 duration syntax.
    Unreadable,
    /// Longer than [`MAX_DURATION_DAYS`] (or than any number can hold).
    TooLong,
}

/// An RFC 5545 duration (`P1DT2H`, `-PT15M`), at most
/// [`MAX_DURATION_DAYS`] long: every step is checked, as the numbers come
/// from outside and `chrono` panics past its range.
fn duration(text: &str) -> Result<Duration, BadDuration> {
    let text = text.trim();
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let body = text.strip_prefix('P').ok_or(BadDuration::Unreadable)?;
    let limit = MAX_DURATION_DAYS * 86_400;
    let mut seconds: i64 = 0;
    let mut number = String::new();
    let mut in_time = false;
    for ch in body.chars() {
        match ch {
            'T' => in_time = true,
            '0'..='9' => number.push(ch),
            unit => {
                let digits = std::mem::take(&mut number);
                if digits.is_empty() {
                    return Err(BadDuration::Unreadable);
                }
                let unit_seconds = match (unit, in_time) {
                    ('W', false) => 7 * 86_400,
                    ('D', false) => 86_400,
                    ('H', true) => 3_600,
                    ('M', true) => 60,
                    ('S', true) => 1,
                    _ => return Err(BadDuration::Unreadable),
                };
                // Digits past i64 are a number too long, not bad syntax.
                let n: i64 = digits.parse().map_err(|_| BadDuration::TooLong)?;
                seconds = n
                    .checked_mul(unit_seconds)
                    .and_then(|s| s.checked_add(seconds))
                    .filter(|s| *s <= limit)
                    .ok_or(BadDuration::TooLong)?;
            }
        }
    }
    if !number.is_empty() {
        return Err(BadDuration::Unreadable);
    }
    let total = Duration::seconds(seconds);
    Ok(if negative { -total } else { total })
}

/// A `TRIGGER` before the start, in minutes (`-PT15M` → 15); `None` for
/// one this reader skips (after the start, or an absolute time).
fn minutes_before(trigger: &str) -> Result<Option<i64>, String> {
    match duration(trigger) {
        Ok(d) => Ok((-d >= Duration::zero()).then(|| (-d).num_minutes())),
        Err(BadDuration::Unreadable) => Ok(None),
        Err(BadDuration::TooLong) => Err(too_long("TRIGGER", trigger)),
    }
}

fn too_long(property: &str, value: &str) -> String {
    let shown: String = value.trim().chars().take(40).collect();
    format!("{property} `{shown}` is longer than {MAX_DURATION_DAYS} days")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client's lone event, as the server reads a `PUT`.
    fn read(text: &str, display_tz: Tz) -> Result<ClientEvent, String> {
        crate::ics::series::read_series(text, display_tz).map(|series| series.master)
    }

    const BERLIN: Tz = chrono_tz::Europe::Berlin;

    fn wrap(vevent: &str) -> String {
        format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:t\r\n{vevent}END:VCALENDAR\r\n")
    }

    #[test]
    fn a_timed_event_in_another_zone_keeps_its_zone() {
        let text = wrap(
            "BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:Call\r\n\
             DTSTART;TZID=America/New_York:20240305T090000\r\n\
             DTEND;TZID=America/New_York:20240305T100000\r\n\
             BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT\r\n",
        );
        let read = read(&text, BERLIN).unwrap();
        assert_eq!(read.uid, "a");
        let f = read.fields;
        assert_eq!(f.date, Some(Some("2024-03-05".into())));
        assert_eq!(f.start_time, Some(Some("09:00".into())));
        assert_eq!(f.end_time, Some(Some("10:00".into())));
        assert_eq!(f.timezone, Some(Some("America/New_York".into())));
        assert_eq!(f.alarms.unwrap().unwrap()[0].minutes_before, 15);
    }

    #[test]
    fn durations_past_a_century_are_refused_by_name() {
        assert_eq!(duration("-P1W2DT3H4M5S"), Ok(-Duration::seconds(788_645)));
        assert_eq!(duration("P36600D"), Ok(Duration::days(36_600)));
        for long in [
            "-PT999999999999999999M",
            "P99999999999999999999999W",
            "PT9223372036854775807S",
            "P36601D",
            "P36600DT1S",
            "P1W5228W",
        ] {
            assert_eq!(duration(long), Err(BadDuration::TooLong), "{long}");
        }
        assert_eq!(duration("PT15"), Err(BadDuration::Unreadable));
        assert_eq!(duration("PTM"), Err(BadDuration::Unreadable));
        let alarm = |trigger: &str| {
            wrap(&format!(
                "BEGIN:VEVENT\r\nUID:t\r\nDTSTART:20240305T080000Z\r\n\
                 BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:{trigger}\r\nEND:VALARM\r\nEND:VEVENT\r\n"
            ))
        };
        let refused = read(&alarm("-PT999999999999999999M"), BERLIN).unwrap_err();
        assert!(
            refused.starts_with("TRIGGER `-PT999999999999999999M`"),
            "{refused}"
        );
        // An absolute TRIGGER is still skipped, not refused.
        let absolute = read(&alarm("20240305T070000Z"), BERLIN).unwrap();
        assert!(matches!(absolute.fields.alarms, Some(None)));
        let long = wrap(
            "BEGIN:VEVENT\r\nUID:d\r\nDTSTART:20240305T080000Z\r\nDURATION:P99999999999D\r\nEND:VEVENT\r\n",
        );
        assert!(
            read(&long, BERLIN)
                .unwrap_err()
                .starts_with("DURATION `P99999999999D`")
        );
    }

    #[test]
    fn utc_lands_in_the_display_zone_and_all_day_ends_inclusive() {
        let utc = wrap(
            "BEGIN:VEVENT\r\nUID:b\r\nSUMMARY:x\r\nDTSTART:20240305T080000Z\r\nDURATION:PT90M\r\nEND:VEVENT\r\n",
        );
        let f = read(&utc, BERLIN).unwrap().fields;
        assert_eq!(f.start_time, Some(Some("09:00".into())));
        assert_eq!(f.end_time, Some(Some("10:30".into())));
        assert_eq!(f.timezone, Some(None));
        let all_day = wrap(
            "BEGIN:VEVENT\r\nUID:c\r\nSUMMARY:x\r\nDTSTART;VALUE=DATE:20240305\r\n\
             DTEND;VALUE=DATE:20240308\r\nRRULE:INTERVAL=1;FREQ=WEEKLY\r\n\
             EXDATE;VALUE=DATE:20240312,20240319\r\nEND:VEVENT\r\n",
        );
        let f = read(&all_day, BERLIN).unwrap().fields;
        assert_eq!(f.end_date, Some(Some("2024-03-07".into())));
        assert_eq!(f.rrule, Some(Some("FREQ=WEEKLY".into())));
        assert_eq!(
            f.skip_dates,
            Some(Some(vec!["2024-03-12".into(), "2024-03-19".into()]))
        );
    }

    #[test]
    fn unknown_zones_are_refused_windows_names_mapped() {
        // (Modified occurrences are read with their series: `ics::series`.)
        let mars = wrap(
            "BEGIN:VEVENT\r\nUID:e\r\nDTSTART;TZID=Mars Standard Time:20240305T080000\r\nEND:VEVENT\r\n",
        );
        let err = read(&mars, BERLIN).unwrap_err();
        assert!(err.contains("neither an IANA nor a Windows"), "{err}");
        assert!(read("nonsense", BERLIN).is_err());
        // Outlook's and Exchange's names, as on read: the IANA zone.
        let windows = wrap(
            "BEGIN:VEVENT\r\nUID:e\r\nDTSTART;TZID=Eastern Standard Time:20240305T080000\r\n\
             DTEND;TZID=Eastern Standard Time:20240305T090000\r\n\
             EXDATE;TZID=Eastern Standard Time:20240312T080000\r\nRRULE:FREQ=WEEKLY\r\nEND:VEVENT\r\n",
        );
        let fields = read(&windows, BERLIN).unwrap().fields;
        assert_eq!(fields.timezone, Some(Some("America/New_York".into())));
        assert_eq!(fields.start_time, Some(Some("08:00".into())));
        assert_eq!(
            fields.skip_dates,
            Some(Some(vec!["2024-03-12".to_string()]))
        );
    }

    /// What Almanac serves reads back: a `VTIMEZONE` first, and the times
    /// in it (a client copying a served event, as a duplicate, sends this).
    #[test]
    fn a_served_event_reads_back() {
        let served = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Almanac//Almanac calendar//EN\r\n\
            CALSCALE:GREGORIAN\r\nBEGIN:VTIMEZONE\r\nTZID:Etc/UTC\r\nBEGIN:STANDARD\r\n\
            DTSTART:20230101T000000\r\nTZOFFSETFROM:+0000\r\nTZOFFSETTO:+0000\r\nTZNAME:UTC\r\n\
            END:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:copy\r\nDTSTAMP:20240101T100000Z\r\n\
            DTSTART;TZID=Etc/UTC:20240101T100000\r\nDTEND;TZID=Etc/UTC:20240101T110000\r\n\
            SUMMARY:Simple\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let fields = read(served, BERLIN).unwrap().fields;
        assert_eq!(fields.start_time, Some(Some("10:00".into())));
        assert_eq!(fields.timezone, Some(Some("Etc/UTC".into())));
        // As Python's icalendar writes it back: a TZID on a UTC time.
        let python = served
            .replace("20240101T100000\r\nDTEND", "20240101T100000Z\r\nDTEND")
            .replace("T110000\r\n", "T110000Z\r\n");
        assert!(python.contains("DTSTART;TZID=Etc/UTC:20240101T100000Z\r\n"));
        let fields = read(&python, BERLIN).unwrap().fields;
        assert_eq!(
            fields.start_time,
            Some(Some("11:00".into())),
            "10:00 UTC in Berlin"
        );
        assert_eq!(fields.end_time, Some(Some("12:00".into())));
        assert_eq!(
            utc_without_tzid("X;A=1;TZID=\"a:b\";B=2:20240101T100000Z\r\n"),
            "X;A=1;B=2:20240101T100000Z\r\n"
        );
    }

    #[test]
    fn the_first_category_is_kept() {
        let text = wrap(
            "BEGIN:VEVENT\r\nUID:c\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240305T080000Z\r\n\
             SUMMARY:x\r\nCATEGORIES:hands,feet,head\r\nEND:VEVENT\r\n",
        );
        assert_eq!(
            read(&text, BERLIN).unwrap().fields.category,
            Some(Some("hands".into()))
        );
    }

    #[test]
    fn class_and_every_related_to_are_kept_with_their_reltype() {
        let text = wrap(
            "BEGIN:VEVENT\r\nUID:r\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240305T080000Z\r\n\
             SUMMARY:x\r\nCLASS:private\r\nRELATED-TO:parent-1\r\n\
             RELATED-TO;RELTYPE=child:kid-2\r\nRELATED-TO;RELTYPE=SIBLING:sib-3\r\nEND:VEVENT\r\n",
        );
        let fields = read(&text, BERLIN).unwrap().fields;
        assert_eq!(fields.class, Some(Some("PRIVATE".into())));
        let relation = |uid: &str, kind: Option<&str>| Relation {
            uid: uid.into(),
            rel_type: kind.map(str::to_string),
        };
        assert_eq!(
            fields.related_to,
            Some(Some(vec![
                relation("parent-1", None),
                relation("kid-2", Some("CHILD")),
                relation("sib-3", Some("SIBLING")),
            ]))
        );

        // Absent, they are read as cleared, so a client's PUT without them
        // removes them from the note.
        let plain = read(&wrap("BEGIN:VEVENT\r\nUID:p\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240305T080000Z\r\nEND:VEVENT\r\n"), BERLIN)
            .unwrap()
            .fields;
        assert_eq!(plain.class, Some(None));
        assert_eq!(plain.related_to, Some(None));
        let patch = changes(&plain, &fields);
        assert_eq!((patch.class, patch.related_to), (Some(None), Some(None)));
    }

    #[test]
    fn an_event_without_summary_is_untitled() {
        let text = wrap(
            "BEGIN:VEVENT\r\nUID:n\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240305T080000Z\r\nEND:VEVENT\r\n",
        );
        assert_eq!(
            read(&text, BERLIN).unwrap().fields.title,
            Some("Untitled".into())
        );
    }

    #[test]
    fn changes_keep_only_what_differs() {
        let old = EventFields {
            title: Some("a".into()),
            description: Some(None),
            ..EventFields::default()
        };
        let new = EventFields {
            title: Some("b".into()),
            description: Some(None),
            ..EventFields::default()
        };
        let patch = changes(&new, &old);
        assert_eq!(patch.title, Some("b".into()));
        assert_eq!(patch.description, None);
    }
}
