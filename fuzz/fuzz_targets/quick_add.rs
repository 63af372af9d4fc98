//! Fuzzes the quick-add grammar (`quick_add::parse`, what REST, the
//! sidebar, the CLI and MCP read a line with): the first byte picks the
//! moment and display zone (some next to a change of the clocks), the rest
//! is the line. No line may panic; a line read gives fields that hold
//! together (a kind's own fields only, a timed event's end after its
//! start, a series' last day not before its first) and that a create
//! accepts as they are, but for a title a create refuses (over 500 bytes,
//! a control character): a refusal naming `title`, as REST's `400`.
#![no_main]

use almanac_core::calendar::{EventFields, EventType};
use almanac_core::fuzzing;
use almanac_core::quick_add::{self, CalendarName, Context};
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use chrono_tz::Tz;
use libfuzzer_sys::fuzz_target;

/// The moments and zones a line is read at.
const CONTEXTS: [(&str, Tz); 6] = [
    // docs/quick-add.md's: a Friday, the clocks go back on Sunday.
    ("2026-10-23T10:00:00Z", Tz::Europe__Berlin),
    // The day before the clocks go forward.
    ("2027-03-27T12:00:00Z", Tz::Europe__Berlin),
    // Half an hour before New York's clocks go back.
    ("2026-11-01T05:30:00Z", Tz::America__New_York),
    // Half-hour shifts (Lord Howe goes back 02:00 → 01:30).
    ("2026-04-04T14:00:00Z", Tz::Australia__Lord_Howe),
    // UTC+14: the date there is a day ahead.
    ("2026-06-15T11:00:00Z", Tz::Pacific__Kiritimati),
    ("2026-12-31T23:59:00Z", Tz::UTC),
];

/// A field quick-add set, or `None`; quick-add never removes one (`null`).
fn set<T>(field: &Option<Option<T>>) -> Option<&T> {
    field
        .as_ref()
        .map(|value| value.as_ref().expect("a value, not a removal"))
}

fn day(text: &Option<Option<String>>) -> Option<NaiveDate> {
    set(text).map(|t| t.parse().expect("a YYYY-MM-DD day"))
}

fn time(text: &Option<Option<String>>) -> Option<NaiveTime> {
    set(text).map(|t| NaiveTime::parse_from_str(t, "%H:%M").expect("an HH:MM time"))
}

fn check(line: &str, f: &EventFields) {
    let title = f.title.as_deref().expect("a title");
    assert!(
        !title.is_empty() && title.trim() == title,
        "{line:?}: title {title:?}"
    );
    let (start, end) = (time(&f.start_time), time(&f.end_time));
    assert_eq!(f.all_day, Some(start.is_none()), "{line:?}: {f:?}");
    assert_eq!(start.is_some(), end.is_some(), "{line:?}: {f:?}");
    let kind = f.kind.expect("a type");
    match kind {
        EventType::Single => {
            let first = day(&f.date).expect("a single event's day");
            assert!(
                f.start_recur.is_none() && f.rrule.is_none() && f.start_date.is_none(),
                "{line:?}: {f:?}"
            );
            assert!(
                f.days_of_week.is_none() && f.day_of_month.is_none() && f.month.is_none(),
                "{line:?}: {f:?}"
            );
            let last = day(&f.end_date);
            assert!(last.is_none_or(|last| last > first), "{line:?}: {f:?}");
            if let (Some(start), Some(end)) = (start, end) {
                let ends = last.unwrap_or(first).and_time(end);
                assert!(
                    ends > first.and_time(start),
                    "{line:?}: ends before it starts: {f:?}"
                );
            }
        }
        EventType::Recurring => {
            let first = day(&f.start_recur).expect("a series' first day");
            assert!(
                f.date.is_none() && f.end_date.is_none() && f.rrule.is_none(),
                "{line:?}: {f:?}"
            );
            assert_ne!(
                f.days_of_week.is_some(),
                f.day_of_month.is_some(),
                "{line:?}: weekly or monthly: {f:?}"
            );
            assert!(
                day(&f.end_recur).is_none_or(|last| last >= first),
                "{line:?}: {f:?}"
            );
        }
        EventType::Rrule => {
            let first = day(&f.start_date).expect("an rrule's first day");
            let rule = set(&f.rrule).expect("an rrule");
            assert!(
                f.date.is_none() && f.start_recur.is_none(),
                "{line:?}: {f:?}"
            );
            if let Some(until) = rule.split(';').find_map(|p| p.strip_prefix("UNTIL=")) {
                let until = NaiveDate::parse_from_str(until, "%Y%m%d").expect("UNTIL a day");
                assert!(
                    until >= first,
                    "{line:?}: UNTIL before its first day: {f:?}"
                );
            }
        }
    }
    if kind != EventType::Single
        && let (Some(start), Some(end)) = (start, end)
    {
        assert!(
            end > start,
            "{line:?}: a series ends before it starts: {f:?}"
        );
    }
    if let Some(refusal) = fuzzing::quick_add_refusal(f) {
        assert!(
            refusal.contains("`title`")
                && (title.len() > 500 || title.contains(|c: char| c.is_ascii_control())),
            "{line:?}: a create refuses {f:?}: {refusal}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(line) = std::str::from_utf8(rest) else {
        return;
    };
    let (now, zone) = CONTEXTS[usize::from(pick) % CONTEXTS.len()];
    let calendars = [
        ("personal", "Personal"),
        ("work", "Work"),
        ("family", "Family Plans"),
    ]
    .map(|(id, name)| CalendarName {
        id: id.into(),
        name: name.into(),
    });
    let context = Context {
        now: now.parse::<DateTime<Utc>>().unwrap(),
        zone,
        calendars: &calendars,
    };
    let Ok(read) = quick_add::parse(line, &context) else {
        return;
    };
    if let Some(id) = &read.calendar_id {
        assert!(calendars.iter().any(|c| &c.id == id), "{line:?}: {id}");
    }
    check(line, &read.fields);
});
