//! The index against direct expansion: random vaults (single, all-day,
//! multi-day, weekly and rrule series, in zones with DST, with skipped
//! dates), random edits and removals between reads, random ranges (some
//! open, some across DST changes). Every answer must equal expanding each
//! event of the cache over the query's window directly.

use chrono_tz::Tz;
use proptest::prelude::*;

use crate::calendar::index::cache::{Cache, Ceiling};
use crate::calendar::index::per_day::cap;
use crate::calendar::index::read::series_window;
use crate::calendar::sources::fullnote;
use crate::calendar::sources::{ParsedNote, ResolvedKind, SourceConfig};
use almanac_model::budget::Allowance;
use almanac_model::event::Event;
use almanac_model::query::EventQuery;
use almanac_model::series::memo::YearMemo;
use almanac_model::series::recurrence::Timing;

const ZONES: [&str; 4] = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
];
const DAY: i64 = 86_400_000;
/// 2024-01-01T00:00:00Z: generated dates fall in 2024–2025.
const BASE: i64 = 1_704_067_200_000;

fn date(offset: u32) -> String {
    let day = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap()
        + chrono::Duration::days(i64::from(offset));
    day.format("%Y-%m-%d").to_string()
}

/// Times chosen to hit DST gaps (02:30) and overlaps (01:30) too.
fn time(index: u8) -> &'static str {
    ["00:00", "01:30", "02:30", "09:15", "23:30"][usize::from(index) % 5]
}

/// One generated note's frontmatter.
fn note() -> impl Strategy<Value = String> {
    let single = (0u32..730, 0u8..5, 0u8..5, any::<bool>()).prop_map(|(day, from, to, all_day)| {
        if all_day {
            format!("title: Alpha\nallDay: true\ndate: {}\n", date(day))
        } else {
            format!(
                "title: Alpha\nallDay: false\ndate: {}\nstartTime: '{}'\nendTime: '{}'\n",
                date(day),
                time(from),
                time(to)
            )
        }
    });
    let multi = (0u32..730, 1u32..20).prop_map(|(day, length)| {
        format!(
            "title: Multi\nallDay: true\ndate: {}\nendDate: {}\n",
            date(day),
            date(day + length)
        )
    });
    let weekly = (0u32..730, 0u8..127, 0u8..5, prop::option::of(1u32..400)).prop_map(
        |(day, days, at, length)| {
            let letters: Vec<&str> = ["U", "M", "T", "W", "R", "F", "S"]
                .iter()
                .enumerate()
                .filter(|(i, _)| days & (1 << i) != 0)
                .map(|(_, l)| *l)
                .collect();
            let letters = if letters.is_empty() { vec!["M"] } else { letters };
            let end = length.map_or(String::new(), |l| format!("endRecur: {}\n", date(day + l)));
            format!(
                "title: Weekly\ntype: recurring\ndaysOfWeek: [{}]\nstartRecur: {}\n{end}allDay: false\nstartTime: '{}'\nendTime: '10:00'\n",
                letters.join(", "),
                date(day),
                time(at)
            )
        },
    );
    let rules = [
        "FREQ=DAILY",
        "FREQ=DAILY;INTERVAL=3",
        "FREQ=WEEKLY;BYDAY=MO,TH",
        "FREQ=MONTHLY;BYMONTHDAY=31",
        "FREQ=MONTHLY;BYDAY=-1SU",
        "FREQ=YEARLY",
        "FREQ=DAILY;COUNT=40",
        "FREQ=HOURLY;INTERVAL=7",
    ];
    let rrule = (
        0u32..730,
        0usize..rules.len(),
        0usize..ZONES.len(),
        0u8..5,
        prop::collection::vec(0u32..60, 0..4),
        any::<bool>(),
    )
        .prop_map(move |(day, rule, zone, at, skips, all_day)| {
            let skips: Vec<String> = skips.iter().map(|s| date(day + s)).collect();
            let timing = if all_day {
                "allDay: true\n".to_string()
            } else {
                format!(
                    "allDay: false\nstartTime: '{}'\nendTime: '{}'\ntimezone: {}\n",
                    time(at),
                    time(at + 1),
                    ZONES[zone]
                )
            };
            format!(
                "title: Rule\ntype: rrule\nrrule: {}\nstartDate: {}\n{timing}skipDates: [{}]\n",
                rules[rule],
                date(day),
                skips.join(", ")
            )
        });
    prop_oneof![single, multi, weekly, rrule]
        .prop_map(|frontmatter| format!("---\n{frontmatter}---\nbody\n"))
}

#[derive(Debug, Clone)]
enum Step {
    Read {
        start: Option<i64>,
        length: i64,
        text: Option<&'static str>,
    },
    Edit {
        note: usize,
        text: String,
    },
    Remove {
        note: usize,
    },
}

fn step() -> impl Strategy<Value = Step> {
    let texts = prop::option::of(prop::sample::select(vec![
        "alpha", "multi", "weekly", "rule",
    ]));
    let read = (
        prop::option::of(0i64..(760 * DAY)),
        1i64..(120 * DAY),
        texts,
    )
        .prop_map(|(start, length, text)| Step::Read {
            start: start.map(|s| BASE - 15 * DAY + s),
            length,
            text,
        });
    prop_oneof![
        3 => read,
        1 => (0usize..40, note()).prop_map(|(note, text)| Step::Edit { note, text }),
        1 => (0usize..40).prop_map(|note| Step::Remove { note }),
    ]
}

fn put(cache: &mut Cache, index: usize, text: &str, zone: Tz) {
    let path = format!("events/n{index}.md");
    let entries = fullnote::parse(&path, text, zone)
        .into_iter()
        .map(Into::into)
        .collect();
    cache.put_note(
        0,
        &path,
        ParsedNote {
            entries,
            skipped: vec![],
        },
    );
}

/// Each event of the cache expanded over the query's window on its own.
fn expanded_directly(cache: &Cache, query: &EventQuery, now: i64) -> Vec<Event> {
    let window = series_window(query, now);
    let memo = YearMemo::default();
    let mut hits = Vec::new();
    for source in &cache.sources {
        for (path, entries) in &source.notes {
            for entry in entries {
                if query
                    .text
                    .as_deref()
                    .is_some_and(|t| !entry.haystack.contains(t))
                {
                    continue;
                }
                if let Timing::Once(o) = &entry.timing {
                    if o.span.overlaps(query.start_millis, query.end_millis) {
                        hits.push((o.span.start, entry.event(&source.config, path)));
                    }
                    continue;
                }
                let mut out = Vec::new();
                let mut allowance = Allowance::per_series();
                entry
                    .timing
                    .occurrences(window, &memo, &mut allowance, &mut out)
                    .expect("generated series stay within their allowance");
                for o in out {
                    if o.span.overlaps(query.start_millis, query.end_millis) {
                        hits.push((
                            o.span.start,
                            entry.occurrence_event(&source.config, path, &o),
                        ));
                    }
                }
            }
        }
    }
    hits.sort_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.id.cmp(&y.id)));
    hits.into_iter().map(|(_, event)| event).collect()
}

/// What identifies one answered occurrence.
type Key = (String, Option<i64>, Option<i64>, String, Option<String>);

fn key(events: &[Event]) -> Vec<Key> {
    let mut keys: Vec<_> = events
        .iter()
        .map(|e| {
            (
                e.id.clone(),
                e.start_millis,
                e.end_millis,
                e.date.clone(),
                e.instance_date.clone(),
            )
        })
        .collect();
    // Events starting together may come in either order of equal ids.
    keys.sort();
    keys
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_index_answers_as_direct_expansion(
        zone in 0usize..ZONES.len(),
        notes in prop::collection::vec(note(), 1..40),
        steps in prop::collection::vec(step(), 1..24),
    ) {
        let zone: Tz = ZONES[zone].parse().unwrap();
        let source = SourceConfig {
            id: "notes".into(),
            name: "Notes".into(),
            color: "#000000".into(),
            kind: ResolvedKind::FullNote { dir: "events".into() },
            order: None,
            components: None,
        };
        let mut cache = Cache::new(vec![source], zone);
        for (index, text) in notes.iter().enumerate() {
            put(&mut cache, index, text, zone);
        }
        let now = BASE + 200 * DAY;
        for step in steps {
            match step {
                Step::Read { start, length, text } => {
                    let query = EventQuery {
                        start_millis: start,
                        end_millis: start.map(|s| s + length),
                        text: text.map(str::to_string),
                        ..EventQuery::default()
                    };
                    let (answer, left_out) = cache.query(&query, now, Ceiling::PerSeries).unwrap();
                    prop_assert!(left_out.is_empty());
                    let expected = expanded_directly(&cache, &query, now);
                    prop_assert_eq!(key(&answer), key(&expected), "range {:?}", query);
                    // The same range again comes from the pages kept.
                    let (again, _) = cache.query(&query, now, Ceiling::PerSeries).unwrap();
                    prop_assert_eq!(key(&again), key(&expected));
                    // The answer written from the bytes kept per entry is
                    // what serializing the events writes, built or kept.
                    for _ in 0..2 {
                        let json = cache.query_json_with(&query, now, Ceiling::PerSeries, &|_, _, _| {}).unwrap();
                        prop_assert_eq!(json.count, answer.len());
                        prop_assert_eq!(
                            String::from_utf8(json.events).unwrap(),
                            serde_json::to_string(&answer).unwrap()
                        );
                    }
                    // The window's per-day view caps matches before building
                    // events; it keeps what capping the events would.
                    if let (Some(start), Some(end)) = (query.start_millis, query.end_millis) {
                        let day = |millis: i64| {
                            chrono::DateTime::from_timestamp_millis(millis)
                                .unwrap()
                                .with_timezone(&zone)
                                .date_naive()
                        };
                        let days = day(start)..=day(end);
                        let (hits, _) = cache.hits(&query, now, Ceiling::PerSeries).unwrap();
                        let (kept, more) = cap(hits, 2, days.clone(), zone);
                        let kept: Vec<Event> = kept.iter().map(|hit| hit.event()).collect();
                        let (kept_events, more_events) = cap(answer.clone(), 2, days, zone);
                        prop_assert_eq!(key(&kept), key(&kept_events));
                        prop_assert_eq!(more, more_events);
                    }
                    let (slots, pages) = cache.index.size();
                    prop_assert!(slots <= super::MAX_SLOTS && pages <= super::MAX_PAGES);
                }
                Step::Edit { note, text } => put(&mut cache, note, &text, zone),
                Step::Remove { note } => {
                    cache.remove_note(0, &format!("events/n{note}.md"));
                }
            }
        }
    }
}
