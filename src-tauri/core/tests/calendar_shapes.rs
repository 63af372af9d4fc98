//! Every event shape Obsidian Full Calendar writes, black-box: a vault
//! written by hand in the plugin's exact format (one note per shape), opened
//! by the engine, must give the occurrences the plugin shows. The expected
//! dates are worked out by hand from a calendar (the 2nd Tuesdays of 2026 are
//! Jan 13, Feb 10, Mar 10, ...), never by the code under test.

use crate::common;

use almanac_core::calendar::{Calendar, Event};
use almanac_core::settings::KindSettings;
use common::*;
use serde_json::json;

/// The shapes, as the plugin writes them (`processFrontMatter` YAML).
const NOTES: &[(&str, &str)] = &[
    (
        // Monthly on the 31st: months without one are left out (RFC 5545,
        // as rrule.js does); one occurrence skipped.
        "Rent.md",
        "---\ntitle: Rent\nallDay: true\ntype: recurring\ndayOfMonth: 31\nstartRecur: 2026-01-01\nskipDates:\n  - 2026-03-31\n---\n",
    ),
    (
        // Yearly on a leap day.
        "Leap day.md",
        "---\ntitle: Leap day\nallDay: true\ntype: recurring\nmonth: 2\ndayOfMonth: 29\nstartRecur: 2024-01-01\n---\n",
    ),
    (
        // Yearly, timed, in its own zone (summer time in June).
        "Dinner.md",
        "---\ntitle: Dinner\nallDay: false\nstartTime: '18:00'\nendTime: '20:00'\ntype: recurring\nmonth: 6\ndayOfMonth: 15\nstartRecur: 2020-06-15\ntimezone: Europe/Paris\n---\n",
    ),
    (
        // Every 2 weeks on Monday, until endRecur, one skipped.
        "Review.md",
        "---\ntitle: Review\nallDay: false\nstartTime: '10:00'\nendTime: '11:00'\ntype: recurring\ndaysOfWeek:\n  - M\nrepeatInterval: 2\nstartRecur: 2026-01-05\nendRecur: 2026-03-16\nskipDates:\n  - 2026-02-02\n---\n",
    ),
    (
        // Every 2 weeks on Tuesday and Thursday, starting on a Thursday:
        // weeks count from the start's week (Monday-based), whose Tuesday
        // is before the start.
        "Gym.md",
        "---\ntitle: Gym\nallDay: true\ntype: recurring\ndaysOfWeek: [T, R]\nrepeatInterval: 2\nstartRecur: 2026-01-08\n---\n",
    ),
    (
        // Every 3 months on the 15th, counted from January; the start is
        // after January's 15th.
        "Quarterly.md",
        "---\ntitle: Quarterly\nallDay: true\ntype: recurring\ndayOfMonth: 15\nrepeatInterval: 3\nstartRecur: 2026-01-20\n---\n",
    ),
    (
        // The 2nd Tuesday (weekday 2), New York time, one skipped.
        "Book club.md",
        "---\ntitle: Book club\nallDay: false\nstartTime: '19:00'\nendTime: '21:00'\ntype: recurring\nrepeatOn:\n  week: 2\n  weekday: 2\nstartRecur: 2026-01-01\ntimezone: America/New_York\nskipDates:\n  - 2026-07-14\n---\nWe read slowly.\n",
    ),
    (
        // The last Friday (week -1, weekday 5) until an endRecur that is
        // itself an occurrence (inclusive).
        "Payday.md",
        "---\ntitle: Payday\nallDay: true\ntype: recurring\nrepeatOn:\n  week: -1\n  weekday: 5\nstartRecur: 2026-01-01\nendRecur: 2026-06-26\n---\n",
    ),
    ("2026-03-03 Dentist.md", DENTIST),
    ("2026-03-04 Secret.md", SECRET),
];

/// A single event with every extra key, a user key and a body.
const DENTIST: &str = "---\ntitle: Dentist\nallDay: false\ndate: 2026-03-03\nstartTime: '09:00'\nendTime: '09:45'\ntype: single\ncategory: Health\nsubCategory: Checkups\nlocation: Main St 1, Springfield\nuid: 7f3c2a10-dentist@example.com\ndisplay: background\nnotify:\n  value: 15\nalarms:\n  - minutesBefore: 30\n    action: AUDIO\n  - minutesBefore: 1440\nendReminder: true\ntags: [health, teeth]   # the user's own\n---\nBring the insurance card.\n";

/// Obsidian's Daily notes settings: a folder and a format with folders,
/// names and literal text.
const DAILY_SETTINGS: &str =
    r#"{"folder": "Journal/", "format": "YYYY/MM-MMM/dddd, MMMM D, YYYY", "template": ""}"#;

const DAILY_PATH: &str = "Journal/2026/03-Mar/Tuesday, March 3, 2026.md";

/// The plugin's daily-note forms: inline fields separated by two spaces,
/// checkboxes, a Day Planner title, an all-day item, an overnight item.
const DAILY_NOTE: &str = "# Tuesday\n\n## Events\n- [ ] Call Ann [startTime:: 09:00]  [endTime:: 09:30]\n- [x] 14:00 - 15:30 Dentist run\n-  Holiday [allDay:: true]\n- Late show [startTime:: 23:00]  [endTime:: 01:00]\n- Standup [startTime:: 10:00]  [location:: Room 4]  [notify:: 10]  [uid:: su-1]  [mood:: fine]\n\n## Notes\n- not an event\n";

fn shapes_vault() -> (TestVault, Calendar) {
    let vault = TestVault::new().with_source(
        "daily",
        KindSettings::DailyNote {
            directory: String::new(),
            heading: "Events".into(),
        },
    );
    for (name, text) in NOTES {
        vault.write(&format!("events/{name}"), text);
    }
    vault.write(".obsidian/daily-notes.json", DAILY_SETTINGS);
    vault.write(DAILY_PATH, DAILY_NOTE);
    // Not daily notes: wrong weekday for the date, and the default format.
    vault.write("Journal/2026/03-Mar/Monday, March 3, 2026.md", DAILY_NOTE);
    vault.write("Journal/2026-03-03.md", DAILY_NOTE);
    let calendar = vault.open();
    (vault, calendar)
}

/// The occurrence dates of `title` between two days (inclusive, UTC).
fn dates(cal: &Calendar, title: &str, from: &str, to: &str) -> Vec<String> {
    occurrences(cal, title, from, to)
        .into_iter()
        .map(|e| e.date)
        .collect()
}

fn occurrences(cal: &Calendar, title: &str, from: &str, to: &str) -> Vec<Event> {
    cal.query(&range(
        &format!("{from}T00:00:00Z"),
        &format!("{to}T23:59:59.999Z"),
    ))
    .into_iter()
    .filter(|e| e.title == title)
    .collect()
}

#[test]
fn every_shape_is_read_none_skipped() {
    let (_vault, cal) = shapes_vault();
    let stats = cal.stats();
    assert_eq!(stats.skipped, 0, "{:?}", stats.recent_skips);
    let sources = cal.sources();
    let daily = sources.iter().find(|s| s.id == "daily").unwrap();
    assert_eq!(daily.directory.as_deref(), Some("Journal"));
    assert_eq!(daily.last_error, None);
}

#[test]
fn monthly_by_day_of_month() {
    let (_vault, cal) = shapes_vault();
    assert_eq!(
        dates(&cal, "Rent", "2026-01-01", "2026-12-31"),
        [
            "2026-01-31",
            "2026-05-31",
            "2026-07-31",
            "2026-08-31",
            "2026-10-31",
            "2026-12-31"
        ]
    );
    let rent = &occurrences(&cal, "Rent", "2026-01-01", "2026-01-31")[0];
    assert_eq!(rent.day_of_month, Some(31));
    assert_eq!(rent.instance_date.as_deref(), Some("2026-01-31"));
    assert!(rent.all_day && rent.start_millis.is_none());
}

#[test]
fn yearly_by_month_and_day() {
    let (_vault, cal) = shapes_vault();
    assert_eq!(
        dates(&cal, "Leap day", "2024-01-01", "2032-12-31"),
        ["2024-02-29", "2028-02-29", "2032-02-29"]
    );
    assert_eq!(
        dates(&cal, "Dinner", "2025-01-01", "2027-12-31"),
        ["2025-06-15", "2026-06-15", "2027-06-15"]
    );
    // 18:00 in Paris in June is 16:00 UTC.
    let dinner = &occurrences(&cal, "Dinner", "2026-06-01", "2026-06-30")[0];
    assert_eq!(dinner.start_millis, Some(ms("2026-06-15T16:00:00Z")));
    assert_eq!(dinner.end_millis, Some(ms("2026-06-15T18:00:00Z")));
    assert_eq!((dinner.month, dinner.day_of_month), (Some(6), Some(15)));
}

#[test]
fn every_two_weeks() {
    let (_vault, cal) = shapes_vault();
    assert_eq!(
        dates(&cal, "Review", "2026-01-01", "2026-04-30"),
        [
            "2026-01-05",
            "2026-01-19",
            "2026-02-16",
            "2026-03-02",
            "2026-03-16"
        ]
    );
    let review = &occurrences(&cal, "Review", "2026-03-02", "2026-03-02")[0];
    assert_eq!(review.start_millis, Some(ms("2026-03-02T10:00:00Z")));
    assert_eq!(review.repeat_interval, Some(2));
    assert_eq!(
        dates(&cal, "Gym", "2026-01-01", "2026-02-08"),
        [
            "2026-01-08",
            "2026-01-20",
            "2026-01-22",
            "2026-02-03",
            "2026-02-05"
        ]
    );
    // A window far from the start gives the same weeks.
    assert_eq!(
        dates(&cal, "Gym", "2027-06-01", "2027-06-30"),
        ["2027-06-08", "2027-06-10", "2027-06-22", "2027-06-24"]
    );
}

#[test]
fn every_three_months() {
    let (_vault, cal) = shapes_vault();
    assert_eq!(
        dates(&cal, "Quarterly", "2026-01-01", "2027-01-31"),
        ["2026-04-15", "2026-07-15", "2026-10-15", "2027-01-15"]
    );
    assert_eq!(
        dates(&cal, "Quarterly", "2030-01-01", "2030-12-31"),
        ["2030-01-15", "2030-04-15", "2030-07-15", "2030-10-15"]
    );
}

#[test]
fn second_tuesday_in_its_time_zone() {
    let (_vault, cal) = shapes_vault();
    // The whole of 2026 in New York, July's skipped.
    assert_eq!(
        dates(&cal, "Book club", "2026-01-01", "2027-01-01"),
        [
            "2026-01-13",
            "2026-02-10",
            "2026-03-10",
            "2026-04-14",
            "2026-05-12",
            "2026-06-09",
            "2026-08-11",
            "2026-09-08",
            "2026-10-13",
            "2026-11-10",
            "2026-12-08"
        ]
    );
    let club = occurrences(&cal, "Book club", "2026-01-01", "2026-06-30");
    // 19:00 EST is 00:00 UTC the next day; 19:00 EDT is 23:00 UTC.
    assert_eq!(club[0].start_millis, Some(ms("2026-01-14T00:00:00Z")));
    assert_eq!(club[0].end_millis, Some(ms("2026-01-14T02:00:00Z")));
    assert_eq!(club[5].start_millis, Some(ms("2026-06-09T23:00:00Z")));
    let on = club[0].repeat_on.unwrap();
    assert_eq!((on.week, on.weekday), (2, 2));
}

#[test]
fn last_friday_until_end_recur() {
    let (_vault, cal) = shapes_vault();
    assert_eq!(
        dates(&cal, "Payday", "2026-01-01", "2026-12-31"),
        [
            "2026-01-30",
            "2026-02-27",
            "2026-03-27",
            "2026-04-24",
            "2026-05-29",
            "2026-06-26"
        ]
    );
}

#[test]
fn the_extra_keys_are_served_as_the_plugin_writes_them() {
    let (_vault, cal) = shapes_vault();
    let dentist = &occurrences(&cal, "Dentist", "2026-03-03", "2026-03-03")[0];
    let served = serde_json::to_value(dentist).unwrap();
    assert_eq!(served["category"], "Health");
    assert_eq!(served["subCategory"], "Checkups");
    assert_eq!(served["location"], "Main St 1, Springfield");
    assert_eq!(served["uid"], "7f3c2a10-dentist@example.com");
    assert_eq!(served["display"], "background");
    assert_eq!(served["notify"], json!({"value": 15}));
    assert_eq!(
        served["alarms"],
        json!([
            {"minutesBefore": 30, "action": "AUDIO"},
            {"minutesBefore": 1440, "action": "DISPLAY"}
        ])
    );
    assert_eq!(served["endReminder"], true);
    assert_eq!(served["startMillis"], ms("2026-03-03T09:00:00Z"));
}

/// Almanac's `class` and `relatedTo` keys (iCalendar `CLASS`, `RELATED-TO`).
const SECRET: &str = "---\ntitle: Secret\nallDay: true\ndate: 2026-03-04\nclass: private\nrelatedTo:\n  - parent-1\n  - {uid: kid-2, relType: child}\n---\n";

#[test]
fn class_and_related_to_are_read_updated_and_kept_out_of_daily_notes() {
    let (vault, cal) = shapes_vault();
    let path = "events/2026-03-04 Secret.md";
    let secret = &occurrences(&cal, "Secret", "2026-03-04", "2026-03-04")[0];
    let served = serde_json::to_value(secret).unwrap();
    assert_eq!(served["class"], "PRIVATE");
    assert_eq!(
        served["relatedTo"],
        json!([{"uid": "parent-1"}, {"uid": "kid-2", "relType": "CHILD"}])
    );

    let id = format!("fullnote:{path}");
    let updated = cal
        .update(
            &id,
            fields(json!({"class": "confidential", "relatedTo": [{"uid": "parent-1"}]})),
        )
        .unwrap();
    assert_eq!(updated.class.as_deref(), Some("CONFIDENTIAL"));
    let text = vault.read(path);
    assert!(text.contains("class: CONFIDENTIAL\n"), "{text}");
    assert!(text.contains("relatedTo:\n- parent-1\n"), "{text}");

    for bad in [
        json!({"class": "very private"}),
        json!({"relatedTo": [{"uid": ""}]}),
        json!({"relatedTo": [{"uid": "a", "relType": "NEXT DOOR"}]}),
    ] {
        let before = vault.read(path);
        let error = cal.update(&id, fields(bad.clone())).unwrap_err();
        let field = bad.as_object().unwrap().keys().next().unwrap().clone();
        assert!(
            error.to_string().contains(&format!("`{field}`")),
            "{bad}: {error}"
        );
        assert_eq!(vault.read(path), before, "{bad} changed the note");
    }

    // A daily-note item has no field for them: the move is refused, the
    // note stays.
    let refused = cal.move_to(&id, "daily", fields(json!({}))).unwrap_err();
    assert!(refused.to_string().contains("`class`"), "{refused}");
    assert_eq!(vault.read(path), text);
    let error = cal
        .create(
            "daily",
            fields(
                json!({"title": "Aside", "date": "2026-03-03", "allDay": true, "class": "PRIVATE"}),
            ),
        )
        .unwrap_err();
    assert!(error.to_string().contains("`class`"), "{error}");
}

/// `text` without its lines starting with `key:`.
fn without(text: &str, key: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(&format!("{key}:")))
        .map(str::to_string)
        .collect()
}

#[test]
fn updates_keep_every_other_key_and_the_body_byte_exact() {
    let (vault, cal) = shapes_vault();
    let id = "fullnote:events/2026-03-03 Dentist.md";
    let updated = cal
        .update(id, fields(json!({"location": "Elm St 2"})))
        .unwrap();
    assert_eq!(updated.location.as_deref(), Some("Elm St 2"));
    let text = vault.read("events/2026-03-03 Dentist.md");
    assert_eq!(
        text,
        DENTIST.replace("location: Main St 1, Springfield", "location: Elm St 2")
    );

    // A series: only the changed key moves; repeatOn, skipDates, the zone
    // and the body stay as written.
    let club = "events/Book club.md";
    let before = vault.read(club);
    cal.update(
        &format!("fullnote:{club}"),
        fields(json!({"endTime": "21:30"})),
    )
    .unwrap();
    let after = vault.read(club);
    assert_eq!(without(&after, "endTime"), without(&before, "endTime"));
    assert!(after.contains("endTime: '21:30'") || after.contains("endTime: 21:30"));
    assert_eq!(
        occurrences(&cal, "Book club", "2026-02-01", "2026-02-28")[0].end_millis,
        Some(ms("2026-02-11T02:30:00Z"))
    );

    // Suppressing one occurrence rewrites skipDates (sorted), nothing else.
    let before = vault.read(club);
    cal.delete(
        &format!("fullnote:{club}"),
        Some(chrono::NaiveDate::from_ymd_opt(2026, 2, 10).unwrap()),
    )
    .unwrap();
    let after = vault.read(club);
    assert_eq!(
        after,
        before.replace(
            "skipDates:\n  - 2026-07-14\n",
            "skipDates:\n- 2026-02-10\n- 2026-07-14\n"
        )
    );
    assert_eq!(
        dates(&cal, "Book club", "2026-01-01", "2026-03-31"),
        ["2026-01-13", "2026-03-10"]
    );

    // Changing the shape writes the plugin's keys.
    cal.update(
        "fullnote:events/Rent.md",
        fields(json!({"dayOfMonth": 1, "repeatInterval": 2})),
    )
    .unwrap();
    let rent = vault.read("events/Rent.md");
    assert!(rent.contains("dayOfMonth: 1\n"), "{rent}");
    assert!(rent.contains("repeatInterval: 2\n"), "{rent}");
    assert_eq!(
        dates(&cal, "Rent", "2026-01-01", "2026-06-30"),
        ["2026-01-01", "2026-03-01", "2026-05-01"],
        "every 2 months from January"
    );
}

#[test]
fn new_shapes_are_created_through_the_api_fields() {
    let (vault, cal) = shapes_vault();
    let created = cal
        .create(
            "local",
            fields(json!({
                "title": "Board meeting",
                "type": "recurring",
                "repeatOn": {"week": 1, "weekday": 1},
                "startRecur": "2026-01-01",
                "startTime": "08:30",
                "alarms": [{"minutesBefore": 60}],
                "display": "list-item",
                "uid": "board-1"
            })),
        )
        .unwrap();
    let path = created.file_path.clone().unwrap();
    let text = vault.read(&path);
    assert!(
        text.contains("repeatOn:\n  week: 1\n  weekday: 1\n"),
        "{text}"
    );
    assert!(text.contains("display: list-item\n"), "{text}");
    // The first Mondays of early 2026: Jan 5, Feb 2, Mar 2.
    assert_eq!(
        dates(&cal, "Board meeting", "2026-01-01", "2026-03-31"),
        ["2026-01-05", "2026-02-02", "2026-03-02"]
    );
    let bad = [
        json!({"dayOfMonth": 32}),
        json!({"repeatOn": {"week": 0, "weekday": 2}}),
        json!({"notify": {"value": 1441}}),
        json!({"alarms": [{"minutesBefore": -5}]}),
    ];
    for patch in bad {
        let before = vault.read(&path);
        let error = cal.update(&created.id, fields(patch.clone())).unwrap_err();
        let field = patch.as_object().unwrap().keys().next().unwrap().clone();
        assert!(
            error.to_string().contains(&format!("`{field}`")),
            "{patch}: {error}"
        );
        assert_eq!(vault.read(&path), before, "{patch} changed the note");
    }
    let unknown = serde_json::from_value::<almanac_core::calendar::EventFields>(
        json!({"display": "sideways"}),
    );
    assert!(unknown.is_err());
}

#[test]
fn invalid_shapes_are_skipped_with_the_reason() {
    let vault = TestVault::new();
    let recurring = "title: X\nallDay: true\ntype: recurring\nstartRecur: 2026-01-01\n";
    let cases = [
        ("dom32.md", "dayOfMonth: 32\n", "dayOfMonth"),
        (
            "weekly-and-monthly.md",
            "daysOfWeek: [M]\ndayOfMonth: 3\n",
            "daysOfWeek",
        ),
        ("no-rule.md", "", "daysOfWeek"),
        (
            "month-alone.md",
            "month: 5\nrepeatOn: {week: 1, weekday: 1}\n",
            "month",
        ),
        ("week5.md", "repeatOn: {week: 5, weekday: 1}\n", "repeatOn"),
        ("week0.md", "repeatOn: {week: 0, weekday: 1}\n", "repeatOn"),
        (
            "weekday7.md",
            "repeatOn: {week: 1, weekday: 7}\n",
            "repeatOn",
        ),
        (
            "both-monthly.md",
            "dayOfMonth: 3\nrepeatOn: {week: 1, weekday: 1}\n",
            "repeatOn",
        ),
        (
            "interval0.md",
            "dayOfMonth: 3\nrepeatInterval: 0\n",
            "repeatInterval",
        ),
        ("fraction.md", "dayOfMonth: 3.5\n", "dayOfMonth"),
        (
            "display.md",
            "dayOfMonth: 3\ndisplay: sideways\n",
            "display",
        ),
        (
            "notify-big.md",
            "dayOfMonth: 3\nnotify: {value: 2000}\n",
            "notify",
        ),
        ("notify-bare.md", "dayOfMonth: 3\nnotify: 15\n", "notify"),
        (
            "alarms.md",
            "dayOfMonth: 3\nalarms: [{minutesBefore: 20000}]\n",
            "alarms",
        ),
        (
            "alarm-action.md",
            "dayOfMonth: 3\nalarms: [{minutesBefore: 5, action: SMS}]\n",
            "alarms",
        ),
        (
            "end-reminder.md",
            "dayOfMonth: 3\nendReminder: soon\n",
            "endReminder",
        ),
        ("class.md", "dayOfMonth: 3\nclass: not one\n", "class"),
        (
            "related.md",
            "dayOfMonth: 3\nrelatedTo: parent-1\n",
            "relatedTo",
        ),
        (
            "related-item.md",
            "dayOfMonth: 3\nrelatedTo: [{uid: a, kind: x}]\n",
            "relatedTo",
        ),
    ];
    for (name, keys, _) in &cases {
        vault.write(
            &format!("events/{name}"),
            &format!("---\n{recurring}{keys}---\n"),
        );
    }
    let cal = vault.open();
    assert!(all(&cal).is_empty());
    let stats = cal.stats();
    assert_eq!(stats.skipped, cases.len(), "{:?}", stats.recent_skips);
    for (name, _, field) in cases {
        let skip = stats
            .recent_skips
            .iter()
            .find(|s| s.path == format!("events/{name}"))
            .unwrap_or_else(|| panic!("{name} not reported"));
        assert!(
            skip.reason.contains(&format!("`{field}`")),
            "{name}: {}",
            skip.reason
        );
    }
}

#[test]
fn daily_notes_follow_obsidians_folder_and_format() {
    let (vault, cal) = shapes_vault();
    let day = cal.query(&range("2026-03-03T00:00:00Z", "2026-03-03T23:59:59.999Z"));
    let daily: Vec<&Event> = day.iter().filter(|e| e.calendar_id == "daily").collect();
    let mut names = titles(&daily.iter().map(|e| (*e).clone()).collect::<Vec<_>>());
    names.sort();
    assert_eq!(
        names,
        ["Call Ann", "Dentist run", "Holiday", "Late show", "Standup"],
        "only the note named by the format, only its Events section"
    );
    let find = |title: &str| *daily.iter().find(|e| e.title == title).unwrap();
    let ann = find("Call Ann");
    assert_eq!(ann.file_path.as_deref(), Some(DAILY_PATH));
    assert_eq!(ann.start_millis, Some(ms("2026-03-03T09:00:00Z")));
    assert_eq!(ann.end_millis, Some(ms("2026-03-03T09:30:00Z")));
    assert!(ann.is_task() && !ann.is_completed());
    let planner = find("Dentist run");
    assert_eq!(planner.start_millis, Some(ms("2026-03-03T14:00:00Z")));
    assert_eq!(planner.end_millis, Some(ms("2026-03-03T15:30:00Z")));
    assert!(planner.is_completed());
    assert!(find("Holiday").all_day);
    assert_eq!(
        find("Late show").end_millis,
        Some(ms("2026-03-04T01:00:00Z")),
        "an end before the start is the next day"
    );
    let standup = find("Standup");
    assert_eq!(standup.location.as_deref(), Some("Room 4"));
    assert_eq!(standup.uid.as_deref(), Some("su-1"));
    assert_eq!(standup.notify, Some(json!({"value": 10})));

    // Writes keep the item's form and the user's fields, and name new notes
    // by the format.
    let obsidian_before = vault.read(".obsidian/daily-notes.json");
    cal.update(&planner.id, fields(json!({"endTime": "16:00"})))
        .unwrap();
    cal.update(&standup.id, fields(json!({"location": "Room 5"})))
        .unwrap();
    let note = vault.read(DAILY_PATH);
    assert!(
        note.contains("\n- [x] 14:00 - 16:00 Dentist run\n"),
        "{note}"
    );
    assert!(
        note.contains("\n- Standup [startTime:: 10:00] [location:: Room 5] [uid:: su-1] [notify:: 10] [mood:: fine]\n"),
        "{note}"
    );
    let created = cal
        .create(
            "daily",
            fields(json!({"title": "Dentist again", "date": "2026-03-05", "startTime": "08:00"})),
        )
        .unwrap();
    assert_eq!(
        created.file_path.as_deref(),
        Some("Journal/2026/03-Mar/Thursday, March 5, 2026.md")
    );
    assert_eq!(created.start_millis, Some(ms("2026-03-05T08:00:00Z")));
    let note = vault.read(DAILY_PATH);
    for refused in [
        json!({"alarms": [{"minutesBefore": 5}]}),
        json!({"subCategory": "x"}),
    ] {
        let error = cal
            .update(&standup.id, fields(refused.clone()))
            .unwrap_err();
        assert!(
            error.to_string().contains("daily-note"),
            "{refused}: {error}"
        );
    }
    assert_eq!(
        vault.read(DAILY_PATH),
        note,
        "a refused update changed the note"
    );
    assert_eq!(vault.read(".obsidian/daily-notes.json"), obsidian_before);
    assert_eq!(
        note_names(&vault.vault().join(".obsidian")),
        ["daily-notes.json"],
        "nothing is written in .obsidian"
    );
}

#[test]
fn a_source_folder_of_its_own_wins_over_obsidians() {
    let vault = TestVault::new().with_source(
        "daily",
        KindSettings::DailyNote {
            directory: "days".into(),
            heading: "Events".into(),
        },
    );
    vault.write(
        ".obsidian/daily-notes.json",
        r#"{"folder": "Journal", "format": "DD.MM.YYYY"}"#,
    );
    vault.write("days/03.03.2026.md", "## Events\n- Here\n");
    vault.write("Journal/03.03.2026.md", "## Events\n- Not here\n");
    vault.write("days/2026-03-03.md", "## Events\n- Nor here\n");
    let cal = vault.open();
    assert_eq!(titles(&all(&cal)), ["Here"]);
    assert_eq!(all(&cal)[0].date, "2026-03-03");
}

#[test]
fn an_unsupported_daily_note_format_is_reported() {
    let vault = TestVault::new().with_source(
        "daily",
        KindSettings::DailyNote {
            directory: String::new(),
            heading: "Events".into(),
        },
    );
    vault.write(".obsidian/daily-notes.json", r#"{"format": "gggg-[W]ww"}"#);
    vault.write("2026-03-03.md", "## Events\n- Item\n");
    let cal = vault.open();
    let sources = cal.sources();
    let daily = sources.iter().find(|s| s.id == "daily").unwrap();
    let problem = daily.last_error.as_deref().unwrap_or_default();
    assert!(
        problem.contains(".obsidian/daily-notes.json")
            && problem.contains("`gggg` is not supported"),
        "{problem}"
    );
    assert!(all(&cal).is_empty());
    let error = cal
        .create("daily", fields(json!({"title": "X", "date": "2026-03-03"})))
        .unwrap_err();
    assert!(error.to_string().contains("not supported"), "{error}");
    assert_eq!(vault.read("2026-03-03.md"), "## Events\n- Item\n");
}
