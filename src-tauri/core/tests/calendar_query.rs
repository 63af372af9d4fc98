//! Event shapes and range semantics of the calendar engine over real temp
//! vaults: every Full Calendar event shape, touching bounds, all-day and
//! multi-day events, DST transitions, filters and the unbounded-range cap.

use crate::common;

use almanac_core::calendar::{Completion, EventQuery, EventType, RangeSide, parse_range_bound};
use common::*;

fn vault_with(notes: &[(&str, &str)]) -> (TestVault, almanac_core::calendar::Calendar) {
    let vault = TestVault::new();
    for (name, text) in notes {
        vault.write(&format!("events/{name}"), text);
    }
    let calendar = vault.open();
    (vault, calendar)
}

#[test]
fn every_event_shape_is_read() {
    let (_v, cal) = vault_with(&[
        (
            "timed.md",
            "---\ntitle: Timed\nallDay: false\ndate: 2024-05-01\nstartTime: '09:00'\nendTime: '10:30'\n---\nbody\n",
        ),
        (
            "allday.md",
            "---\ntitle: Holiday\nallDay: true\ndate: 2024-05-01\n---\n",
        ),
        (
            "multi.md",
            "---\ntitle: Trip\nallDay: true\ndate: 2024-05-01\nendDate: 2024-05-03\n---\n",
        ),
        (
            "weekly.md",
            "---\ntitle: Standup\ntype: recurring\ndaysOfWeek: [M, W, F]\nstartRecur: 2024-04-29\nendRecur: 2024-05-10\nallDay: false\nstartTime: '09:15'\nendTime: '09:30'\n---\n",
        ),
        (
            "monthly.md",
            "---\ntitle: Rent\ntype: rrule\nrrule: FREQ=MONTHLY;BYMONTHDAY=1\nstartDate: 2024-01-01\nallDay: true\n---\n",
        ),
        (
            "yearly.md",
            "---\ntitle: Birthday\ntype: rrule\nrrule: RRULE:FREQ=YEARLY\nstartDate: 2020-05-02\nallDay: true\n---\n",
        ),
        (
            "task.md",
            "---\ntitle: Open task\ndate: 2024-05-02\ncompleted: null\n---\n",
        ),
        (
            "done.md",
            "---\ntitle: Done task\ndate: 2024-05-02\ncompleted: 2024-05-02T10:00:00\n---\n",
        ),
        (
            "notask.md",
            "---\ntitle: False task\ndate: 2024-05-02\ncompleted: false\n---\n",
        ),
    ]);
    let week = cal.query(&range("2024-04-29T00:00:00Z", "2024-05-05T23:59:59.999Z"));
    let count = |t: &str| week.iter().filter(|e| e.title == t).count();
    assert_eq!(count("Timed"), 1);
    assert_eq!(count("Holiday"), 1);
    assert_eq!(count("Trip"), 1);
    assert_eq!(count("Standup"), 3, "Mon, Wed, Fri of that week");
    assert_eq!(count("Rent"), 1);
    assert_eq!(count("Birthday"), 1);
    let timed = week.iter().find(|e| e.title == "Timed").unwrap();
    assert_eq!(timed.start_millis, Some(ms("2024-05-01T09:00:00Z")));
    assert_eq!(timed.end_millis, Some(ms("2024-05-01T10:30:00Z")));
    assert_eq!(timed.start_time.as_deref(), Some("09:00"));
    assert_eq!(timed.file_path.as_deref(), Some("events/timed.md"));
    assert_eq!(timed.id, "fullnote:events/timed.md");
    assert_eq!(timed.calendar_id, "local");
    let holiday = week.iter().find(|e| e.title == "Holiday").unwrap();
    assert!(holiday.all_day && holiday.start_millis.is_none() && holiday.end_millis.is_none());
    let standups: Vec<_> = week.iter().filter(|e| e.title == "Standup").collect();
    assert_eq!(
        standups.iter().map(|e| e.date.as_str()).collect::<Vec<_>>(),
        ["2024-04-29", "2024-05-01", "2024-05-03"]
    );
    assert!(standups.iter().all(|e| e.id == "fullnote:events/weekly.md"));
    assert_eq!(standups[1].instance_date.as_deref(), Some("2024-05-01"));
    assert_eq!(standups[1].start_millis, Some(ms("2024-05-01T09:15:00Z")));
    assert_eq!(standups[0].kind, EventType::Recurring);
    let birthday = week.iter().find(|e| e.title == "Birthday").unwrap();
    assert_eq!(birthday.date, "2024-05-02");
    assert_eq!(birthday.kind, EventType::Rrule);
    // Tasks.
    let open = week.iter().find(|e| e.title == "Open task").unwrap();
    assert_eq!(open.completed, Some(Completion::Open));
    let done = week.iter().find(|e| e.title == "Done task").unwrap();
    assert!(done.is_completed());
    assert!(
        week.iter()
            .find(|e| e.title == "False task")
            .unwrap()
            .is_task()
    );
    // Outside its recurrence range the weekly series is silent.
    assert!(
        cal.query(&range("2024-05-13T00:00:00Z", "2024-05-20T00:00:00Z"))
            .iter()
            .all(|e| e.title != "Standup")
    );
}

#[test]
fn filters_combine() {
    let vault = TestVault::new().with_source(
        "work",
        almanac_core::settings::KindSettings::FullNote {
            directory: "work".into(),
        },
    );
    vault.write(
        "events/a.md",
        "---\ntitle: Dentist\ndate: 2024-05-01\n---\nBring the FORMS\n",
    );
    vault.write(
        "events/b.md",
        "---\ntitle: Groceries\ndate: 2024-05-01\ncompleted: false\n---\n",
    );
    vault.write(
        "events/c.md",
        "---\ntitle: Taxes\ndate: 2024-05-01\ncompleted: 2024-05-01\n---\n",
    );
    vault.write(
        "work/d.md",
        "---\ntitle: Review forms\ndate: 2024-05-01\n---\n",
    );
    let cal = vault.open();
    let q = |f: fn(&mut EventQuery)| {
        let mut query = range("2024-05-01T00:00:00Z", "2024-05-01T23:59:59Z");
        f(&mut query);
        let mut t = titles(&cal.query(&query));
        t.sort();
        t
    };
    assert_eq!(
        q(|q| q.text = Some("forms".into())),
        ["Dentist", "Review forms"]
    );
    assert_eq!(
        q(|q| q.calendars = Some(vec!["work".into()])),
        ["Review forms"]
    );
    assert_eq!(q(|q| q.is_task = Some(true)), ["Groceries", "Taxes"]);
    assert_eq!(q(|q| q.is_task = Some(false)), ["Dentist", "Review forms"]);
    assert_eq!(q(|q| q.is_completed = Some(true)), ["Taxes"]);
    assert_eq!(
        q(|q| q.is_completed = Some(false)),
        ["Dentist", "Groceries", "Review forms"]
    );
    assert_eq!(
        q(|q| {
            q.text = Some("FORMS".into());
            q.calendars = Some(vec!["local".into()]);
        }),
        ["Dentist"]
    );
    let work = cal.query(&EventQuery {
        calendars: Some(vec!["work".into()]),
        ..EventQuery::default()
    });
    assert_eq!(work[0].calendar_name, "work calendar");
}

#[test]
fn touching_bounds_match_and_all_day_days_do_not_leak() {
    let (_v, cal) = vault_with(&[
        (
            "meeting.md",
            "---\ntitle: Meeting\ndate: 2024-05-01\nstartTime: '09:00'\nendTime: '10:00'\n---\n",
        ),
        (
            "yesterday.md",
            "---\ntitle: Yesterday\nallDay: true\ndate: 2024-04-30\n---\n",
        ),
        (
            "tomorrow.md",
            "---\ntitle: Tomorrow\nallDay: true\ndate: 2024-05-02\n---\n",
        ),
        (
            "today.md",
            "---\ntitle: Today\nallDay: true\ndate: 2024-05-01\n---\n",
        ),
        (
            "instant.md",
            "---\ntitle: Instant\ndate: 2024-05-01\nstartTime: '12:00'\n---\n",
        ),
    ]);
    let t = |s: &str, e: &str| {
        let mut t = titles(&cal.query(&range(s, e)));
        t.sort();
        t
    };
    // A range starting exactly when the meeting ends still matches it.
    assert!(t("2024-05-01T10:00:00Z", "2024-05-01T11:00:00Z").contains(&"Meeting".into()));
    // A range ending exactly when it starts matches too.
    assert!(t("2024-05-01T08:00:00Z", "2024-05-01T09:00:00Z").contains(&"Meeting".into()));
    // One millisecond short does not.
    assert!(!t("2024-05-01T08:00:00Z", "2024-05-01T08:59:59.999Z").contains(&"Meeting".into()));
    assert!(!t("2024-05-01T10:00:00.001Z", "2024-05-01T11:00:00Z").contains(&"Meeting".into()));
    // An instant matches a range that contains it, bounds included.
    assert!(t("2024-05-01T12:00:00Z", "2024-05-01T12:00:00Z").contains(&"Instant".into()));
    // "Today" from midnight to midnight-1ms: no neighbours' all-day events.
    assert_eq!(
        t("2024-05-01T00:00:00Z", "2024-05-01T23:59:59.999Z"),
        ["Instant", "Meeting", "Today"]
    );
    // Touching the next midnight does include tomorrow (inclusive end).
    assert!(t("2024-05-01T00:00:00Z", "2024-05-02T00:00:00Z").contains(&"Tomorrow".into()));
}

#[test]
fn multi_day_events_match_every_day_they_cover() {
    let (_v, cal) = vault_with(&[
        (
            "trip.md",
            "---\ntitle: Trip\nallDay: true\ndate: 2024-05-01\nendDate: 2024-05-03\n---\n",
        ),
        (
            "night.md",
            "---\ntitle: Night shift\ndate: 2024-05-01\nstartTime: '22:00'\nendTime: '06:00'\n---\n",
        ),
        (
            "conf.md",
            "---\ntitle: Conference\ndate: 2024-05-01\nendDate: 2024-05-02\nstartTime: '09:00'\nendTime: '17:00'\n---\n",
        ),
    ]);
    let day = |d: &str| {
        let mut t = titles(&cal.query(&range(
            &format!("{d}T00:00:00Z"),
            &format!("{d}T23:59:59.999Z"),
        )));
        t.sort();
        t
    };
    assert_eq!(day("2024-05-01"), ["Conference", "Night shift", "Trip"]);
    assert_eq!(day("2024-05-02"), ["Conference", "Night shift", "Trip"]);
    assert_eq!(day("2024-05-03"), ["Trip"]);
    assert_eq!(day("2024-05-04"), Vec::<String>::new());
    let night = cal.query(&range("2024-05-02T00:00:00Z", "2024-05-02T01:00:00Z"));
    let night = night.iter().find(|e| e.title == "Night shift").unwrap();
    assert_eq!(night.end_millis, Some(ms("2024-05-02T06:00:00Z")));
}

#[test]
fn all_day_events_follow_the_display_zone() {
    let vault = TestVault::new().with_timezone("America/New_York");
    vault.write(
        "events/a.md",
        "---\ntitle: Holiday\nallDay: true\ndate: 2024-05-01\n---\n",
    );
    let cal = vault.open();
    // 2024-05-01 in New York is 04:00Z on May 1 to 03:59:59.999Z on May 2.
    assert_eq!(
        titles(&cal.query(&range("2024-05-02T03:00:00Z", "2024-05-02T03:59:59Z"))),
        ["Holiday"]
    );
    assert!(
        cal.query(&range("2024-05-01T00:00:00Z", "2024-05-01T03:59:59.999Z"))
            .is_empty()
    );
}

#[test]
fn series_keep_wall_clock_time_across_dst() {
    let vault = TestVault::new();
    vault.write(
        "events/ny.md",
        "---\ntitle: NY standup\ntype: recurring\ndaysOfWeek: [F, M]\nstartRecur: 2024-03-01\nstartTime: '09:00'\nendTime: '09:30'\ntimezone: America/New_York\n---\n",
    );
    vault.write(
        "events/berlin.md",
        "---\ntitle: Berlin daily\ntype: rrule\nrrule: FREQ=DAILY\nstartDate: 2024-10-20\nstartTime: '10:00'\nendTime: '11:00'\ntimezone: Europe/Berlin\n---\n",
    );
    vault.write(
        "events/gap.md",
        "---\ntitle: In the gap\ndate: 2024-03-31\nstartTime: '02:30'\nendTime: '03:30'\ntimezone: Europe/Berlin\n---\n",
    );
    vault.write(
        "events/overlap.md",
        "---\ntitle: Twice\ndate: 2024-11-03\nstartTime: '01:30'\ntimezone: America/New_York\n---\n",
    );
    let cal = vault.open();
    let starts = |title: &str, s: &str, e: &str| -> Vec<i64> {
        cal.query(&range(s, e))
            .into_iter()
            .filter(|ev| ev.title == title)
            .map(|ev| ev.start_millis.unwrap())
            .collect()
    };
    // US DST began 2024-03-10: 09:00 EST = 14:00Z before, 09:00 EDT = 13:00Z after.
    assert_eq!(
        starts("NY standup", "2024-03-08T00:00:00Z", "2024-03-11T23:59:59Z"),
        [ms("2024-03-08T14:00:00Z"), ms("2024-03-11T13:00:00Z")]
    );
    // EU DST ended 2024-10-27: 10:00 CEST = 08:00Z, 10:00 CET = 09:00Z.
    assert_eq!(
        starts(
            "Berlin daily",
            "2024-10-26T00:00:00Z",
            "2024-10-27T23:59:59Z"
        ),
        [ms("2024-10-26T08:00:00Z"), ms("2024-10-27T09:00:00Z")]
    );
    // 02:30 does not exist on 2024-03-31 in Berlin: the first instant after
    // the gap (03:00 CEST = 01:00Z).
    assert_eq!(
        starts("In the gap", "2024-03-30T00:00:00Z", "2024-04-01T00:00:00Z"),
        [ms("2024-03-31T01:00:00Z")]
    );
    // 01:30 happens twice on 2024-11-03 in New York: the earlier one (EDT).
    assert_eq!(
        starts("Twice", "2024-11-03T00:00:00Z", "2024-11-04T00:00:00Z"),
        [ms("2024-11-03T05:30:00Z")]
    );
    // A long query over an old series stays exact (rebased expansion).
    let berlin = starts(
        "Berlin daily",
        "2030-01-01T00:00:00Z",
        "2030-01-03T23:59:59Z",
    );
    assert_eq!(
        berlin,
        [
            ms("2030-01-01T09:00:00Z"),
            ms("2030-01-02T09:00:00Z"),
            ms("2030-01-03T09:00:00Z")
        ]
    );
}

#[test]
fn rrule_series_honour_skip_dates_interval_and_until() {
    let (_v, cal) = vault_with(&[
        (
            "skip.md",
            "---\ntitle: Gym\ntype: rrule\nrrule: FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20240601\nstartDate: 2024-01-02\nstartTime: '18:00'\nskipDates: [2024-05-21]\n---\n",
        ),
        (
            "monthly.md",
            "---\ntitle: Board\ntype: rrule\nrrule: FREQ=MONTHLY;BYDAY=1MO\nstartDate: 2015-01-01\nallDay: true\n---\n",
        ),
    ]);
    let dates = |title: &str, s: &str, e: &str| -> Vec<String> {
        cal.query(&range(s, e))
            .into_iter()
            .filter(|ev| ev.title == title)
            .map(|ev| ev.date)
            .collect()
    };
    // Every other week from 2024-01-02: the weeks of … May 7, May 21, (June 4
    // is past UNTIL); May 21 is skipped.
    assert_eq!(
        dates("Gym", "2024-05-01T00:00:00Z", "2024-06-30T00:00:00Z"),
        ["2024-05-07", "2024-05-09", "2024-05-23"]
    );
    // First Monday of each month, far from the 2015 start.
    assert_eq!(
        dates("Board", "2031-01-01T00:00:00Z", "2031-03-31T00:00:00Z"),
        ["2031-01-06", "2031-02-03", "2031-03-03"]
    );
    let skipped = cal.query(&range("2024-05-21T00:00:00Z", "2024-05-21T23:59:59Z"));
    assert!(
        skipped.iter().all(|e| e.title != "Gym"),
        "skipDates suppress an occurrence"
    );
}

#[test]
fn unbounded_ranges_are_capped() {
    let (_v, cal) = vault_with(&[
        (
            "daily.md",
            "---\ntitle: Daily\ntype: rrule\nrrule: FREQ=DAILY\nstartDate: 2000-01-01\nallDay: true\n---\n",
        ),
        ("single.md", "---\ntitle: Old\ndate: 1990-01-01\n---\n"),
    ]);
    let everything = cal.query(&EventQuery::default());
    let daily = everything.iter().filter(|e| e.title == "Daily").count();
    // One horizon on each side of now, never the 9999 years a series could run.
    assert!((700..=740).contains(&daily), "{daily}");
    assert!(
        everything.iter().any(|e| e.title == "Old"),
        "single events are never capped"
    );
    let from = cal.query(&EventQuery {
        start_millis: Some(ms("2050-01-01T00:00:00Z")),
        ..EventQuery::default()
    });
    assert!((360..=370).contains(&from.len()), "{}", from.len());
    let huge = cal.query(&range_ms(i64::MIN, i64::MAX));
    assert!(huge.len() <= almanac_model::query::MAX_OCCURRENCES_PER_SERIES + 1);
}

#[test]
fn range_bounds_parse_in_every_documented_form() {
    let tz: chrono_tz::Tz = "Europe/Berlin".parse().unwrap();
    let p = |v: &str, side| parse_range_bound(v, side, tz);
    assert_eq!(
        p("1714550400000", RangeSide::Start).unwrap(),
        1_714_550_400_000
    );
    assert_eq!(p("-1000", RangeSide::Start).unwrap(), -1000);
    assert_eq!(
        p("2024-05-01T09:00:00Z", RangeSide::Start).unwrap(),
        ms("2024-05-01T09:00:00Z")
    );
    assert_eq!(
        p("2024-05-01T09:00:00+02:00", RangeSide::Start).unwrap(),
        ms("2024-05-01T07:00:00Z")
    );
    assert_eq!(
        p("2024-05-01T09:00", RangeSide::Start).unwrap(),
        ms("2024-05-01T07:00:00Z")
    );
    assert_eq!(
        p("2024-05-01", RangeSide::Start).unwrap(),
        ms("2024-04-30T22:00:00Z")
    );
    assert_eq!(
        p("2024-05-01", RangeSide::End).unwrap(),
        ms("2024-05-01T21:59:59.999Z")
    );
    for bad in [
        "",
        "tomorrow",
        "2024-13-01",
        "99999999999999999999999",
        "9223372036854775807",
        "2024-05-01T25:00",
    ] {
        let err = p(bad, RangeSide::End).unwrap_err();
        assert!(err.to_string().contains("end"), "{bad}: {err}");
    }
    let backwards = range("2024-05-02T00:00:00Z", "2024-05-01T00:00:00Z");
    let (_v, cal) = vault_with(&[]);
    assert!(cal.query_checked(&backwards).is_err());
    assert!(cal.query(&backwards).is_empty());
}

#[test]
fn results_are_sorted_by_start() {
    let (_v, cal) = vault_with(&[
        (
            "b.md",
            "---\ntitle: B\ndate: 2024-05-01\nstartTime: '11:00'\n---\n",
        ),
        (
            "a.md",
            "---\ntitle: A\ndate: 2024-05-01\nstartTime: '08:00'\n---\n",
        ),
        (
            "c.md",
            "---\ntitle: C\nallDay: true\ndate: 2024-05-01\n---\n",
        ),
    ]);
    assert_eq!(
        titles(&cal.query(&range("2024-05-01T00:00:00Z", "2024-05-01T23:00:00Z"))),
        ["C", "A", "B"]
    );
}

#[test]
fn checked_queries_refuse_past_the_ceiling_and_never_cut_short() {
    use almanac_core::calendar::CalendarError;
    use almanac_model::query::{MAX_EVENTS_PER_ANSWER, MAX_EXPANSION_STEPS};
    let (_v, cal) = vault_with(&[
        (
            "daily.md",
            "---\ntitle: Daily\ntype: rrule\nrrule: FREQ=DAILY\nstartDate: 2000-01-01\nallDay: true\n---\n",
        ),
        // A COUNT series cannot jump ahead: the first week of 2100 (with
        // the days before it, in 2099) means walking about 80,000
        // instances from 1990 for each.
        (
            "counted-a.md",
            "---\ntitle: Counted A\ntype: rrule\nrrule: FREQ=DAILY;COUNT=1000000\nstartDate: 1990-01-01\nallDay: true\n---\n",
        ),
        (
            "counted-b.md",
            "---\ntitle: Counted B\ntype: rrule\nrrule: FREQ=DAILY;COUNT=1000000\nstartDate: 1990-01-01\nallDay: true\n---\n",
        ),
        (
            "counted-c.md",
            "---\ntitle: Counted C\ntype: rrule\nrrule: FREQ=DAILY;COUNT=1000000\nstartDate: 1990-01-01\nallDay: true\n---\n",
        ),
    ]);
    let refusal =
        |cal: &almanac_core::calendar::Calendar, q: &EventQuery| match cal.query_checked(q) {
            Err(CalendarError::QueryTooLarge(message)) => message,
            other => panic!("expected a refusal, got {:?}", other.map(|e| e.len())),
        };
    let too_many = |q: &EventQuery| refusal(&cal, q);
    // 28 years of a daily series: more events than an answer holds. (In
    // the vault above, indexing 28 years of the COUNT series would run out
    // of steps first: a page expands every series, whatever the filter.)
    let (_d, daily_only) = vault_with(&[(
        "daily.md",
        "---\ntitle: Daily\ntype: rrule\nrrule: FREQ=DAILY\nstartDate: 2000-01-01\nallDay: true\n---\n",
    )]);
    let daily = EventQuery {
        text: Some("daily".into()),
        ..range("2000-01-01T00:00:00Z", "2027-12-31T23:59:59Z")
    };
    let message = refusal(&daily_only, &daily);
    assert!(
        message.contains(&format!("more than {MAX_EVENTS_PER_ANSWER} events")),
        "{message}"
    );
    // One event fewer than the limit away is answered whole.
    let fits = EventQuery {
        text: Some("daily".into()),
        ..range_ms(
            ms("2000-01-01T00:00:00Z"),
            ms("2000-01-01T00:00:00Z") + (MAX_EVENTS_PER_ANSWER as i64) * 86_400_000 - 1,
        )
    };
    assert_eq!(
        daily_only.query_checked(&fits).unwrap().len(),
        MAX_EVENTS_PER_ANSWER
    );
    // A week in 2100 holds few events, but reaching it costs the three
    // series more steps than an answer may take.
    let far = EventQuery {
        text: Some("counted".into()),
        ..range("2100-01-01T00:00:00Z", "2100-01-07T23:59:59Z")
    };
    let message = too_many(&far);
    assert!(
        message.contains(&format!("more than {MAX_EXPANSION_STEPS} steps")),
        "{message}"
    );
    // The page built on the way is kept, so what it holds is answered
    // without walking again.
    let one = EventQuery {
        text: Some("counted a".into()),
        ..far.clone()
    };
    assert_eq!(cal.query_checked(&one).unwrap().len(), 7);
    // The daily series jumps ahead: the same week costs a few steps.
    let jump = EventQuery {
        text: Some("daily".into()),
        ..range("2900-01-01T00:00:00Z", "2900-01-07T23:59:59Z")
    };
    assert_eq!(daily_only.query_checked(&jump).unwrap().len(), 7);
}

#[test]
fn a_series_needing_more_than_its_share_is_left_out_and_the_rest_answers() {
    use almanac_model::query::MAX_STEPS_PER_SERIES;
    let (_v, cal) = vault_with(&[
        (
            "daily.md",
            "---\ntitle: Daily\ntype: rrule\nrrule: FREQ=DAILY\nstartDate: 2000-01-01\nallDay: true\n---\n",
        ),
        // Reaching 2900 walks 330,000 instances from 1990.
        (
            "counted.md",
            "---\ntitle: Counted\ntype: rrule\nrrule: FREQ=DAILY;COUNT=1000000\nstartDate: 1990-01-01\nallDay: true\n---\n",
        ),
    ]);
    let week = range("2900-01-01T00:00:00Z", "2900-01-07T23:59:59Z");
    let answer = cal.query_answer(&week).unwrap();
    assert_eq!(answer.events.len(), 7, "the daily series answers");
    assert!(answer.events.iter().all(|e| e.title == "Daily"));
    assert_eq!(answer.left_out.len(), 1);
    let left_out = &answer.left_out[0];
    assert_eq!(left_out.event_id, "fullnote:events/counted.md");
    assert!(
        left_out
            .message
            .contains(&format!("more than {MAX_STEPS_PER_SERIES} steps")),
        "{}",
        left_out.message
    );
    // The calendar's status names it too.
    let status = cal.sources();
    assert_eq!(status[0].series_left_out, answer.left_out);
    // Where it is cheap to reach, the same series answers.
    let early = range("1990-02-01T00:00:00Z", "1990-02-07T23:59:59Z");
    let answer = cal.query_answer(&early).unwrap();
    assert_eq!(answer.events.len(), 7);
    assert!(answer.left_out.is_empty());
}
