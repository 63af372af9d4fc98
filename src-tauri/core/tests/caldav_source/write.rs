//! Writing: create, edit and delete from Almanac arrive on the server; a
//! change made on the server meanwhile is a conflict and stays; writes made
//! while the server is down are replayed; series with overrides, zones and
//! all-day events keep their shape.

use almanac_core::calendar::{CalendarError, EventFields};
use serde_json::json;

use crate::caldav_source::radicale::Radicale;
use crate::caldav_source::setup::{Setup, vevent};

fn fields(value: serde_json::Value) -> EventFields {
    serde_json::from_value(value).unwrap()
}

#[test]
fn create_edit_and_delete_arrive_on_the_server() {
    let server = Radicale::start();
    let setup = Setup::correct("write", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the first sync", |c| {
        setup.info(c).last_fetched.is_some()
    });
    let created = calendar
        .create(
            &setup.id,
            fields(json!({"title": "Dentist", "date": "2026-02-03", "startTime": "10:00", "endTime": "11:00"})),
        )
        .unwrap();
    assert_eq!(created.title, "Dentist");
    let whole = server.get("").unwrap();
    assert!(whole.contains("SUMMARY:Dentist"), "{whole}");

    let edited = calendar
        .update(
            &created.id,
            fields(json!({"title": "Dentist (moved)", "startTime": "12:00", "endTime": "13:00"})),
        )
        .unwrap();
    assert_eq!(edited.id, created.id);
    let whole = server.get("").unwrap();
    assert!(whole.contains("SUMMARY:Dentist (moved)"), "{whole}");
    assert!(!whole.contains("SUMMARY:Dentist\r\n"), "{whole}");

    calendar.delete(&created.id, None).unwrap();
    assert!(!server.get("").unwrap().contains("Dentist"));
    assert!(setup.events(&calendar).is_empty());
}

#[test]
fn a_change_made_on_the_server_meanwhile_is_a_conflict_and_stays() {
    let server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let setup = Setup::correct("conflict", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the event", |c| setup.titles(c) == ["Standup"]);
    let id = setup.events(&calendar)[0].id.clone();
    server.put(
        "a.ics",
        &vevent("a", "Standup by phone", "20260105T090000Z"),
    );

    let outcome = calendar.update(&id, fields(json!({"title": "Standup by Almanac"})));
    assert!(
        matches!(&outcome, Err(CalendarError::Conflict(m)) if m.contains("changed on the CalDAV server")),
        "{outcome:?}"
    );
    assert!(
        server
            .get("a.ics")
            .unwrap()
            .contains("SUMMARY:Standup by phone")
    );
    // The conflict asked for a sync: Almanac shows the server's version.
    setup.sync_until(&calendar, "the server's version", |c| {
        setup.titles(c) == ["Standup by phone"]
    });

    // A delete over a newer version is refused the same way.
    server.put(
        "a.ics",
        &vevent("a", "Standup in room 7", "20260105T090000Z"),
    );
    let outcome = calendar.delete(&id, None);
    assert!(
        matches!(outcome, Err(CalendarError::Conflict(_))),
        "{outcome:?}"
    );
    let stored = server.get("a.ics").unwrap();
    assert!(stored.contains("room 7"), "{stored}");
}

#[test]
fn writes_made_while_the_server_is_down_are_replayed_when_it_is_back() {
    let mut server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let setup = Setup::correct("replay", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the event", |c| setup.titles(c) == ["Standup"]);
    let id = setup.events(&calendar)[0].id.clone();
    server.stop();

    calendar
        .update(&id, fields(json!({"title": "Standup (offline edit)"})))
        .unwrap();
    let created = calendar
        .create(
            &setup.id,
            fields(json!({"title": "Offline new", "date": "2026-02-04", "allDay": true})),
        )
        .unwrap();
    assert_eq!(created.title, "Offline new");
    assert_eq!(
        setup.titles(&calendar),
        ["Offline new", "Standup (offline edit)"]
    );
    let waiting = setup.info(&calendar).last_error.unwrap_or_default();
    assert!(waiting.contains("2 change(s) wait"), "{waiting}");
    // The queue is on disk: a restart keeps it.
    drop(calendar);
    let calendar = setup.open();

    server.resume();
    setup.sync_until(&calendar, "the replayed writes", |c| {
        setup.info(c).last_error.is_none()
            && setup.titles(c) == ["Offline new", "Standup (offline edit)"]
    });
    let whole = server.get("").unwrap();
    assert!(whole.contains("SUMMARY:Standup (offline edit)"), "{whole}");
    assert!(whole.contains("SUMMARY:Offline new"), "{whole}");
}

pub const SERIES: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\n\
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\n\
BEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\n\
TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n\
BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Paris:20260105T090000\r\n\
DTEND;TZID=Europe/Paris:20260105T100000\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:series\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID;TZID=Europe/Paris:20260112T090000\r\n\
DTSTART;TZID=Europe/Paris:20260112T140000\r\nDTEND;TZID=Europe/Paris:20260112T150000\r\n\
SUMMARY:Weekly (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

const HOLIDAY: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
UID:holiday\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20260210\r\nDTEND;VALUE=DATE:20260212\r\n\
SUMMARY:Holiday\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

#[test]
fn series_with_overrides_zones_and_all_day_events_round_trip() {
    let server = Radicale::start();
    server.put("series.ics", SERIES);
    server.put("holiday.ics", HOLIDAY);
    let setup = Setup::correct("roundtrip", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the series and the holiday", |c| {
        setup.titles(c) == ["Holiday", "Weekly", "Weekly (moved)"]
    });
    let events = setup.events(&calendar);
    let id_of = |title: &str| events.iter().find(|e| e.title == title).unwrap().id.clone();

    calendar
        .update(&id_of("Weekly"), fields(json!({"title": "Weekly sync"})))
        .unwrap();
    calendar
        .update(&id_of("Holiday"), fields(json!({"title": "Long holiday"})))
        .unwrap();

    let series = server.get("series.ics").unwrap().replace("\r\n ", "");
    assert!(series.contains("SUMMARY:Weekly sync"), "{series}");
    assert!(
        series.contains("DTSTART;TZID=Europe/Paris:20260105T090000"),
        "{series}"
    );
    assert!(series.contains("RRULE:FREQ=WEEKLY"), "{series}");
    assert!(
        series.contains("RECURRENCE-ID;TZID=Europe/Paris:20260112T090000"),
        "{series}"
    );
    assert!(series.contains("SUMMARY:Weekly (moved)"), "{series}");
    let holiday = server.get("holiday.ics").unwrap();
    assert!(holiday.contains("DTSTART;VALUE=DATE:20260210"), "{holiday}");
    assert!(holiday.contains("DTEND;VALUE=DATE:20260212"), "{holiday}");
    assert!(holiday.contains("SUMMARY:Long holiday"), "{holiday}");

    // Read back by Almanac after the server has them: the same shapes.
    setup.sync_until(&calendar, "the edited events", |c| {
        setup.titles(c) == ["Long holiday", "Weekly (moved)", "Weekly sync"]
    });
    let events = setup.events(&calendar);
    let holiday = events.iter().find(|e| e.title == "Long holiday").unwrap();
    assert!(holiday.all_day, "{holiday:?}");
}
