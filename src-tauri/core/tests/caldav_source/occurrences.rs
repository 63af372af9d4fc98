//! One occurrence of a series, edited or deleted on its own: a modified
//! occurrence (`RECURRENCE-ID`) in the series' own resource on Radicale,
//! the rest of the resource kept; checked by Almanac reading it back and by
//! the independent `icalendar` + `recurring-ical-events` oracle.

use almanac_core::calendar::{Calendar, CalendarError, Event, EventQuery};
use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::caldav_source::common::{fields, ics_oracle, ics_oracle_python, ms};
use crate::caldav_source::radicale::Radicale;
use crate::caldav_source::setup::Setup;

const PARIS: &str = "BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\n\
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\n\
BEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\n\
TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n";

/// A weekly series in Paris (Mondays 5, 12, 19 and 26 January 2026, 9:00),
/// its 12 January occurrence moved to 14:00; a property and an alarm
/// Almanac does not model.
fn series() -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{PARIS}\
BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Paris:20260105T090000\r\n\
DTEND;TZID=Europe/Paris:20260105T100000\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:Weekly\r\n\
X-ALMANAC-TEST:kept\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT10M\r\nDESCRIPTION:Weekly\r\nEND:VALARM\r\n\
END:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID;TZID=Europe/Paris:20260112T090000\r\n\
DTSTART;TZID=Europe/Paris:20260112T140000\r\nDTEND;TZID=Europe/Paris:20260112T150000\r\n\
SUMMARY:Weekly (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

/// Five days of leave from 9 February 2026, all day.
const LEAVE: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
UID:leave\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20260209\r\nDTEND;VALUE=DATE:20260210\r\n\
RRULE:FREQ=DAILY;COUNT=5\r\nSUMMARY:Leave\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

/// The CalDAV calendar's occurrences in January and February 2026, as
/// `(title, start, end)` records like the oracle's.
fn records(setup: &Setup, calendar: &Calendar) -> Vec<Value> {
    let query = EventQuery {
        calendars: Some(vec![setup.id.clone()]),
        start_millis: Some(ms("2026-01-01T00:00:00Z")),
        end_millis: Some(ms("2026-02-28T23:59:59Z")),
        ..Default::default()
    };
    let iso = |millis: i64| {
        chrono::DateTime::from_timestamp_millis(millis)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    };
    let mut out: Vec<Value> = calendar
        .query(&query)
        .iter()
        .map(|e: &Event| match e.start_millis {
            Some(start) if !e.all_day => json!({
                "title": e.title, "start": iso(start), "end": iso(e.end_millis.unwrap_or(start)),
            }),
            _ => {
                let first = day(&e.date);
                let last = e.end_date.as_deref().map_or(first, day);
                json!({"title": e.title, "start": first.to_string(),
                       "end": (last + chrono::Duration::days(1)).to_string()})
            }
        })
        .collect();
    out.sort_by_key(|r| (r["start"].as_str().unwrap().to_string(), r.to_string()));
    out
}

/// What the oracle reads in the server's copy of resource `name` for the
/// same two months.
fn oracle(server: &Radicale, name: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, server.get(name).unwrap()).unwrap();
    let range = (ms("2026-01-01T00:00:00Z"), ms("2026-02-28T23:59:59Z"));
    ics_oracle(&ics_oracle_python(), &file, "Europe/Berlin", &[range]).remove(0)
}

fn timed(title: &str, start: &str, end: &str) -> Value {
    json!({"title": title, "start": start, "end": end})
}

fn id_of(setup: &Setup, calendar: &Calendar, title: &str) -> String {
    setup
        .events(calendar)
        .into_iter()
        .find(|e| e.title == title)
        .unwrap_or_else(|| panic!("no event {title}"))
        .id
}

/// `server` holding the series, and an engine that has read it: the
/// series' id.
fn with_series(server: &Radicale, name: &str) -> (Setup, Calendar, String) {
    server.put("series.ics", &series());
    let setup = Setup::correct(name, server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the series", |c| {
        setup.titles(c) == ["Weekly", "Weekly (moved)"]
    });
    let master = id_of(&setup, &calendar, "Weekly");
    (setup, calendar, master)
}

#[test]
fn one_occurrence_is_edited_and_deleted_in_the_series_resource() {
    let server = Radicale::start();
    let (setup, calendar, master) = with_series(&server, "occurrences");
    let moved = id_of(&setup, &calendar, "Weekly (moved)");

    // A new modified occurrence, from the series' occurrence on the 19th.
    let one_off = calendar
        .update_occurrence(
            &master,
            day("2026-01-19"),
            fields(json!({"title": "Weekly (one off)", "startTime": "11:00", "endTime": "12:30"})),
        )
        .unwrap();
    assert!(one_off.id.ends_with("::20260119T090000"), "{}", one_off.id);
    assert_eq!(
        (one_off.title.as_str(), one_off.timezone.as_deref()),
        ("Weekly (one off)", Some("Europe/Paris"))
    );
    // The modified occurrence edited by its own id, then by the series'
    // id and its date: the same override each time.
    calendar
        .update(&moved, fields(json!({"title": "Weekly (moved again)"})))
        .unwrap();
    let again = calendar
        .update_occurrence(
            &master,
            day("2026-01-12"),
            fields(json!({"endTime": "15:30"})),
        )
        .unwrap();
    assert_eq!(again.id, moved);

    let text = server.get("series.ics").unwrap().replace("\r\n ", "");
    assert_eq!(text.matches("RECURRENCE-ID").count(), 2, "{text}");
    assert!(
        text.contains("RECURRENCE-ID;TZID=Europe/Paris:20260119T090000"),
        "{text}"
    );
    assert_eq!(text.matches("BEGIN:VTIMEZONE").count(), 1, "{text}");
    // The series itself is as it was, its unknown property and alarm too
    // (Radicale orders the properties its own way).
    let master_block = &text[text.find("BEGIN:VEVENT").unwrap()..];
    let master_block = &master_block[..master_block.find("END:VEVENT").unwrap()];
    for line in [
        "DTSTART;TZID=Europe/Paris:20260105T090000\r\n",
        "DTEND;TZID=Europe/Paris:20260105T100000\r\n",
        "RRULE:FREQ=WEEKLY;COUNT=4\r\n",
        "SUMMARY:Weekly\r\n",
        "X-ALMANAC-TEST:kept\r\n",
        "TRIGGER:-PT10M\r\n",
    ] {
        assert!(master_block.contains(line), "{line} in {master_block}");
    }
    assert!(!master_block.contains("RECURRENCE-ID"), "{master_block}");
    let expected = vec![
        timed("Weekly", "2026-01-05T08:00:00Z", "2026-01-05T09:00:00Z"),
        timed(
            "Weekly (moved again)",
            "2026-01-12T13:00:00Z",
            "2026-01-12T14:30:00Z",
        ),
        timed(
            "Weekly (one off)",
            "2026-01-19T10:00:00Z",
            "2026-01-19T11:30:00Z",
        ),
        timed("Weekly", "2026-01-26T08:00:00Z", "2026-01-26T09:00:00Z"),
    ];
    assert_eq!(oracle(&server, "series.ics"), expected);
    setup.sync_until(&calendar, "Almanac's read of the server's copy", |c| {
        records(&setup, c) == expected
    });

    // Deleting a modified occurrence removes its override and skips its
    // day; deleting a plain one skips its day.
    calendar.delete(&master, Some(day("2026-01-19"))).unwrap();
    calendar.delete(&master, Some(day("2026-01-26"))).unwrap();
    let text = server.get("series.ics").unwrap();
    assert_eq!(text.matches("RECURRENCE-ID").count(), 1, "{text}");
    assert!(!text.contains("one off"), "{text}");
    assert!(
        text.contains("EXDATE;TZID=Europe/Paris:20260119T090000\r\n")
            && text.contains("EXDATE;TZID=Europe/Paris:20260126T090000\r\n"),
        "{text}"
    );
    assert!(text.contains("X-ALMANAC-TEST:kept"), "{text}");
    let expected = expected[..2].to_vec();
    assert_eq!(oracle(&server, "series.ics"), expected);
    setup.sync_until(&calendar, "the deletions read back", |c| {
        records(&setup, c) == expected
    });

    // A modified occurrence cannot repeat, nor be named twice.
    let refused = calendar.update_occurrence(
        &master,
        day("2026-01-05"),
        fields(json!({"type": "rrule", "rrule": "FREQ=DAILY", "startDate": "2026-01-05"})),
    );
    assert!(
        matches!(&refused, Err(CalendarError::InvalidInput { field, .. }) if field == "type"),
        "{refused:?}"
    );
    let refused = calendar.update_occurrence(&moved, day("2026-01-12"), fields(json!({})));
    assert!(
        matches!(&refused, Err(CalendarError::InvalidInput { field, .. }) if field == "instanceDate"),
        "{refused:?}"
    );
    let refused = calendar.update_occurrence(&master, day("2026-01-06"), fields(json!({})));
    assert!(
        matches!(&refused, Err(CalendarError::InvalidInput { reason, .. }) if reason.contains("no occurrence on 2026-01-06")),
        "{refused:?}"
    );
}

#[test]
fn an_all_day_occurrence_round_trips_as_a_date() {
    let server = Radicale::start();
    server.put("leave.ics", LEAVE);
    let setup = Setup::correct("allday-occurrence", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the leave", |c| setup.titles(c) == ["Leave"]);
    let master = id_of(&setup, &calendar, "Leave");
    let half = calendar
        .update_occurrence(
            &master,
            day("2026-02-11"),
            fields(json!({"title": "Leave (half day)"})),
        )
        .unwrap();
    assert!(half.all_day && half.date == "2026-02-11", "{half:?}");
    let text = server.get("leave.ics").unwrap();
    assert!(
        text.contains("RECURRENCE-ID;VALUE=DATE:20260211\r\n")
            && text.contains("DTSTART;VALUE=DATE:20260211\r\n"),
        "{text}"
    );
    let all_day = |title: &str, start: &str, end: &str| timed(title, start, end);
    let expected = vec![
        all_day("Leave", "2026-02-09", "2026-02-10"),
        all_day("Leave", "2026-02-10", "2026-02-11"),
        all_day("Leave (half day)", "2026-02-11", "2026-02-12"),
        all_day("Leave", "2026-02-12", "2026-02-13"),
        all_day("Leave", "2026-02-13", "2026-02-14"),
    ];
    assert_eq!(oracle(&server, "leave.ics"), expected);
    setup.sync_until(&calendar, "the leave read back", |c| {
        records(&setup, c) == expected
    });
}

#[test]
fn an_occurrence_changed_on_the_server_meanwhile_is_a_conflict() {
    let server = Radicale::start();
    let (_setup, calendar, master) = with_series(&server, "occurrence-conflict");
    let elsewhere = series().replace("SUMMARY:Weekly (moved)", "SUMMARY:Moved by phone");
    server.put("series.ics", &elsewhere);
    let outcome = calendar.update_occurrence(
        &master,
        day("2026-01-19"),
        fields(json!({"title": "Weekly (one off)"})),
    );
    assert!(
        matches!(&outcome, Err(CalendarError::Conflict(_))),
        "{outcome:?}"
    );
    let kept = server.get("series.ics").unwrap();
    assert!(
        kept.contains("SUMMARY:Moved by phone") && !kept.contains("one off"),
        "{kept}"
    );
}

#[test]
fn an_occurrence_edited_offline_is_replayed_into_the_resource() {
    let mut server = Radicale::start();
    let (setup, calendar, master) = with_series(&server, "occurrence-replay");
    server.stop();

    let offline = calendar
        .update_occurrence(
            &master,
            day("2026-01-05"),
            fields(json!({"title": "Weekly (offline)"})),
        )
        .unwrap();
    assert!(offline.id.ends_with("::20260105T090000"), "{}", offline.id);
    assert_eq!(
        setup.titles(&calendar),
        ["Weekly", "Weekly (moved)", "Weekly (offline)"],
        "shown at once"
    );
    let waiting = setup.info(&calendar).last_error.unwrap_or_default();
    assert!(waiting.contains("1 change(s) wait"), "{waiting}");

    server.resume();
    setup.sync_until(&calendar, "the replayed edit", |c| {
        setup.info(c).last_error.is_none()
    });
    let text = server.get("series.ics").unwrap();
    assert!(
        text.contains("RECURRENCE-ID;TZID=Europe/Paris:20260105T090000\r\n")
            && text.contains("SUMMARY:Weekly (offline)\r\n"),
        "{text}"
    );
    assert_eq!(
        oracle(&server, "series.ics")[..2],
        [
            timed(
                "Weekly (offline)",
                "2026-01-05T08:00:00Z",
                "2026-01-05T09:00:00Z"
            ),
            timed(
                "Weekly (moved)",
                "2026-01-12T13:00:00Z",
                "2026-01-12T14:00:00Z"
            ),
        ]
    );
}
