//! Tasks as `VTODO`s, both ways, with the Python `caldav` library: a Full
//! Note task, a daily-note checkbox and an Obsidian Tasks line are listed,
//! searched by time range and completed from the client, each note otherwise
//! byte for byte as it was; a task saved in the client becomes a note; a
//! journal is refused.

use almanac_core::settings::{CalendarSource, KindSettings, TaskDateField};
use chrono::{Duration, Utc};

use crate::caldav::support::{CaldavHarness, client_script, run, venv};

const TAXES: &str = "events/2026-02-02 File taxes.md";
const TAXES_NOTE: &str = "---\ntitle: File taxes\nallDay: true\ndate: 2026-02-02\n\
completed: null\nowner: me\n---\nReceipts in the blue folder.\n";
const DAY: &str = "journal/2026-02-03.md";
const DAY_NOTE: &str = "# Tuesday\nSlept well.\n\n## Events\n- [ ] Water plants\n\
- Lunch [startTime:: 12:00] [endTime:: 13:00]\n\n## Notes\n- [ ] not an event\n";
const HOME: &str = "Projects/Home.md";
const HOME_NOTE: &str =
    "# Home\n- [ ] Pay rent 📅 2026-02-04\n- [ ] Order seeds 📅 2026-03-01\nSome prose.\n";

async fn start() -> CaldavHarness {
    CaldavHarness::start_with(|builder| {
        builder
            .note(TAXES, TAXES_NOTE)
            .note(DAY, DAY_NOTE)
            .note(HOME, HOME_NOTE)
            .settings(|settings| {
                settings.calendar_sources.push(CalendarSource {
                    id: "journal".into(),
                    name: "Journal".into(),
                    color: "#3366ff".into(),
                    kind: KindSettings::DailyNote {
                        directory: "journal".into(),
                        heading: "Events".into(),
                    },
                    order: None,
                    components: None,
                });
                settings.calendar_sources.push(CalendarSource {
                    id: "tasks".into(),
                    name: "Tasks".into(),
                    color: "#00aa88".into(),
                    kind: KindSettings::Tasks {
                        directory: "Projects".into(),
                        date_field: TaskDateField::Due,
                    },
                    order: None,
                    components: None,
                });
            })
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_caldav_library_lists_searches_completes_and_creates_tasks() {
    let venv = venv();
    let app = start().await;
    let token = app.read_write_token().await;
    let out = run(
        &venv,
        "python",
        vec![client_script("caldav_tasks.py"), app.base.clone(), token],
    )
    .await;
    assert!(out.contains("caldav tasks ok"), "{out}");

    // Completed: the Full Note's `completed` line only, …
    let taxes = app.note(TAXES);
    let changed: Vec<(&str, &str)> = TAXES_NOTE
        .lines()
        .zip(taxes.lines())
        .filter(|(before, after)| before != after)
        .collect();
    assert_eq!(taxes.lines().count(), TAXES_NOTE.lines().count(), "{taxes}");
    assert_eq!(changed.len(), 1, "{taxes}");
    assert_eq!(changed[0].0, "completed: null");
    assert!(
        changed[0].1.starts_with("completed: ") && changed[0].1.contains('T'),
        "{taxes}"
    );
    // … the daily note's checkbox only, …
    assert_eq!(
        app.note(DAY),
        DAY_NOTE.replace("- [ ] Water plants", "- [x] Water plants")
    );
    // … and the Tasks line's box and done date only (the day it was
    // completed, in UTC as the client sent it).
    let home = app.note(HOME);
    let today = Utc::now().date_naive();
    let done_on = |day: chrono::NaiveDate| {
        HOME_NOTE.replace(
            "- [ ] Pay rent 📅 2026-02-04",
            &format!("- [x] Pay rent 📅 2026-02-04 ✅ {}", day.format("%Y-%m-%d")),
        )
    };
    assert!(
        home == done_on(today) || home == done_on(today - Duration::days(1)),
        "{home}"
    );

    // Created in the client: task notes, open, keeping the client's UID.
    let milk = app.note("events/2026-02-06 Buy milk.md");
    assert!(milk.contains("uid: caldav-todo-1"), "{milk}");
    assert!(milk.contains("\ncompleted: false\n"), "open: {milk}");
    assert!(milk.contains("\ndate: 2026-02-06\n"), "{milk}");
    // In a daily-note calendar: an open item in that day's note.
    let call = app.note("journal/2026-02-05.md");
    assert!(call.contains("- [ ] Call mum"), "{call}");
    // Undated: placed on the day it arrived, in the display zone.
    let berlin_today = Utc::now()
        .with_timezone(&chrono_tz::Europe::Berlin)
        .date_naive();
    let placed = |day: chrono::NaiveDate| {
        app.vault()
            .join(format!("events/{} Someday.md", day.format("%Y-%m-%d")))
            .exists()
    };
    assert!(placed(berlin_today) || placed(berlin_today - Duration::days(1)));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_journal_is_refused_as_an_unsupported_component_and_nothing_is_written() {
    let app = start().await;
    let token = app.read_write_token().await;
    let before: Vec<_> = std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let journal = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VJOURNAL\r\n\
                   UID:j1\r\nDTSTART;VALUE=DATE:20260203\r\nSUMMARY:Dear diary\r\nEND:VJOURNAL\r\n\
                   END:VCALENDAR\r\n";
    let reply = app
        .as_client(Some(&token))
        .put("/calendars/local/j1.ics", None, journal)
        .await;
    assert_eq!(reply.status(), reqwest::StatusCode::FORBIDDEN);
    let body = reply.text().await.unwrap();
    assert!(body.contains("supported-calendar-component"), "{body}");
    assert!(body.contains("VJOURNAL"), "{body}");
    let after: Vec<_> = std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after);
}

/// Busy time is the events' (RFC 4791 §7.10): a timed task blocks nothing.
#[tokio::test(flavor = "multi_thread")]
async fn free_busy_counts_events_not_tasks() {
    let app = start().await;
    let token = app.read_write_token().await;
    let object = |kind: &str, uid: &str, start: &str, end_name: &str, end: &str| {
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:{kind}\r\nUID:{uid}\r\n\
             DTSTAMP:20260101T000000Z\r\nDTSTART:20260210T{start}00Z\r\n{end_name}:20260210T{end}00Z\r\n\
             SUMMARY:{uid}\r\nEND:{kind}\r\nEND:VCALENDAR\r\n"
        )
    };
    for (uid, body) in [
        ("task-1", object("VTODO", "task-1", "1200", "DUE", "1300")),
        (
            "event-1",
            object("VEVENT", "event-1", "1400", "DTEND", "1500"),
        ),
    ] {
        let put = app
            .as_client(Some(&token))
            .put(&format!("/calendars/local/{uid}.ics"), None, body)
            .await;
        assert_eq!(put.status(), reqwest::StatusCode::CREATED, "{uid}");
    }
    let query = r#"<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="20260210T000000Z" end="20260211T000000Z"/></C:free-busy-query>"#;
    let text = app
        .as_client(Some(&token))
        .query("REPORT", "/calendars/local/", query)
        .await
        .text()
        .await
        .unwrap();
    let periods: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("FREEBUSY:"))
        .collect();
    assert_eq!(periods, ["20260210T140000Z/20260210T150000Z"], "{text}");
}
