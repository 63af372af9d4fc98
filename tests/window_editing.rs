//! Editing in the calendar window, end to end: the real window driven through
//! WebDriver (real mouse drags and key presses), writing real notes in a real
//! vault through the shell's editing commands.

mod support;

use std::path::PathBuf;

use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};
use support::instance::Instance;
use support::webdriver::{Session, Theme};

const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
const DELETE: &str = "\u{E017}";

fn today() -> NaiveDate {
    chrono::Utc::now().date_naive()
}

fn note_path(instance: &Instance, name: &str) -> PathBuf {
    instance.vault().join("events").join(name)
}

/// The note's text once it exists.
async fn note(instance: &Instance, name: &str) -> String {
    let path = note_path(instance, name);
    support::eventually(&format!("the note {name}"), || async {
        std::fs::read_to_string(&path).ok()
    })
    .await
}

/// The note's text once it differs from `before`.
async fn note_changed(instance: &Instance, name: &str, before: &str) -> String {
    let path = note_path(instance, name);
    support::eventually(&format!("a change to {name}"), || async {
        std::fs::read_to_string(&path).ok().filter(|t| t != before)
    })
    .await
}

async fn note_gone(instance: &Instance, name: &str) {
    let path = note_path(instance, name);
    support::eventually(&format!("{name} deleted"), || async {
        (!path.exists()).then_some(())
    })
    .await;
}

fn notes(instance: &Instance) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(instance.vault().join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `text` with each line starting with a key of `changes` replaced by the
/// key's new line: what a note must read after an edit of those keys only.
fn with_lines(text: &str, changes: &[(&str, &str)]) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            match changes
                .iter()
                .find(|(key, _)| line.starts_with(&format!("{key}:")))
            {
                Some((_, new)) => format!("{new}\n"),
                None => line.to_string(),
            }
        })
        .collect()
}

async fn start(instance: &Instance, theme: Theme) -> Session {
    let session = Session::start(instance, "calendar", theme).await;
    // The first fetch is in: events (if any) are on screen.
    session
        .wait_for("document.querySelector('.fc-view-harness') && !document.querySelector('.fc-view-harness .fc-loading')")
        .await;
    session
}

/// Sets a text control's value as a user would: cleared, then typed.
async fn fill(session: &Session, id: &str, text: &str) {
    session
        .execute(
            "const el = document.getElementById(arguments[0]); el.value = ''; el.focus();",
            json!([id]),
        )
        .await;
    if !text.is_empty() {
        session.type_into(&format!("#{id}"), text).await;
    }
}

/// Picks `value` in a select list (and tells the page, as a user's pick does).
async fn choose(session: &Session, id: &str, value: &str) {
    session
        .execute(
            "const el = document.getElementById(arguments[0]); el.value = arguments[1];
             el.dispatchEvent(new Event('change', { bubbles: true }));",
            json!([id, value]),
        )
        .await;
}

/// Clicks the checkbox `css` if it is not already `checked`.
async fn set_checked(session: &Session, css: &str, checked: bool) {
    let now = session
        .execute(
            "return document.querySelector(arguments[0]).checked",
            json!([css]),
        )
        .await;
    if now != json!(checked) {
        session.click(css).await;
    }
}

async fn value(session: &Session, id: &str) -> Value {
    session
        .execute(
            "const el = document.getElementById(arguments[0]);
             return el.type === 'checkbox' ? el.checked : el.value;",
            json!([id]),
        )
        .await
}

async fn dialog_open(session: &Session) {
    session
        .wait_for("document.getElementById('event-dialog').open")
        .await;
}

async fn dialog_closed(session: &Session) {
    session
        .wait_for("!document.getElementById('event-dialog').open")
        .await;
}

/// Opens "New event" from the toolbar with the keyboard.
async fn new_event_by_keyboard(session: &Session) {
    session
        .execute(
            "document.querySelector('.fc-newEvent-button').focus()",
            json!([]),
        )
        .await;
    session.press(ENTER).await;
    dialog_open(session).await;
}

/// Scrolls the time grid so the slot `time` (`HH:mm:ss`) is in the middle.
async fn scroll_to(session: &Session, time: &str) {
    session
        .execute(
            "document.querySelector(`.fc-timegrid-slot-lane[data-time='${arguments[0]}']`)
               .scrollIntoView({ block: 'center' });",
            json!([time]),
        )
        .await;
}

/// The viewport point `dy` pixels into the time slot `time` (`HH:mm:ss`)
/// of the day column `date`.
async fn slot_point(session: &Session, date: NaiveDate, time: &str, dy: f64) -> (f64, f64) {
    let point = session
        .execute(
            "const lane = document.querySelector(`.fc-timegrid-slot-lane[data-time='${arguments[1]}']`);
             const col = document.querySelector(`.fc-timegrid-col[data-date='${arguments[0]}']`).getBoundingClientRect();
             const row = lane.getBoundingClientRect();
             return [col.x + col.width / 2, row.y + arguments[2]];",
            json!([date.to_string(), time, dy]),
        )
        .await;
    (point[0].as_f64().unwrap(), point[1].as_f64().unwrap())
}

/// The rectangle (x, y, width, height) of the element matching `css`.
async fn rect(session: &Session, css: &str) -> [f64; 4] {
    let r = session
        .execute(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect();
             return [r.x, r.y, r.width, r.height];",
            json!([css]),
        )
        .await;
    [0, 1, 2, 3].map(|i| r[i].as_f64().unwrap())
}

/// A day of the shown week other than `date`, next to it.
async fn neighbour_in_view(session: &Session, date: NaiveDate) -> NaiveDate {
    let shown = session
        .execute(
            "return [...document.querySelectorAll('.fc-timegrid-col[data-date]')].map((c) => c.dataset.date)",
            json!([]),
        )
        .await;
    let shown: Vec<String> = serde_json::from_value(shown).unwrap();
    [date + Duration::days(1), date - Duration::days(1)]
        .into_iter()
        .find(|d| shown.contains(&d.to_string()))
        .expect("a neighbouring day in the week")
}

#[tokio::test]
async fn create_timed_all_day_and_recurring_events() {
    let instance = Instance::with_settings(json!({ "initialView": "timeGridWeek" }));
    let session = start(&instance, Theme::Light).await;
    let day = today();

    // A timed event: drag over 09:00-10:00 with the mouse, type a title, Enter.
    scroll_to(&session, "09:00:00").await;
    let from = slot_point(&session, day, "09:00:00", 3.0).await;
    let to = slot_point(&session, day, "09:30:00", 3.0).await;
    session.drag(from, to).await;
    dialog_open(&session).await;
    assert_eq!(value(&session, "ev-date").await, json!(day.to_string()));
    assert_eq!(value(&session, "ev-start").await, json!("09:00"));
    assert_eq!(value(&session, "ev-end").await, json!("10:00"));
    assert_eq!(value(&session, "ev-allday").await, json!(false));
    session.type_into("#ev-title", "Dentist").await;
    session.press(ENTER).await;
    dialog_closed(&session).await;
    let dentist = note(&instance, &format!("{day} Dentist.md")).await;
    for line in [
        "title: Dentist",
        &format!("date: {day}"),
        "allDay: false",
        "startTime: \"09:00\"",
        "endTime: \"10:00\"",
    ] {
        assert!(dentist.contains(line), "{line:?} in\n{dentist}");
    }
    session
        .wait_for("[...document.querySelectorAll('.fc-event-title')].some((e) => e.textContent === 'Dentist')")
        .await;

    // An all-day event: click a day in the month.
    session.click(".fc-dayGridMonth-button").await;
    session
        .wait_for("document.body.dataset.view === 'dayGridMonth'")
        .await;
    let other = day + Duration::days(if day.day() > 20 { -1 } else { 1 });
    let cell = rect(
        &session,
        &format!(".fc-daygrid-day[data-date='{other}'] .fc-daygrid-day-frame"),
    )
    .await;
    let spot = (cell[0] + cell[2] / 2.0, cell[1] + cell[3] - 6.0);
    session.drag(spot, spot).await;
    dialog_open(&session).await;
    assert_eq!(value(&session, "ev-allday").await, json!(true));
    assert_eq!(value(&session, "ev-date").await, json!(other.to_string()));
    session.type_into("#ev-title", "Holiday").await;
    session.click("#ev-save").await;
    dialog_closed(&session).await;
    let holiday = note(&instance, &format!("{other} Holiday.md")).await;
    assert!(holiday.contains("allDay: true"), "{holiday}");
    assert!(holiday.contains(&format!("date: {other}")), "{holiday}");

    // Recurring, from the keyboard: every other week on Monday and
    // Wednesday, 18:00-19:00, with a reminder, as a task.
    new_event_by_keyboard(&session).await;
    session.type_into("#ev-title", "Gym").await;
    set_checked(&session, "#ev-allday", false).await;
    fill(&session, "ev-start", "18:00").await;
    fill(&session, "ev-end", "19:00").await;
    choose(&session, "ev-repeat", "weekly").await;
    for (letter, on) in [
        ("U", false),
        ("M", true),
        ("T", false),
        ("W", true),
        ("R", false),
        ("F", false),
        ("S", false),
    ] {
        set_checked(&session, &format!("input[name=ev-dow][value={letter}]"), on).await;
    }
    fill(&session, "ev-interval", "2").await;
    fill(&session, "ev-notify", "15").await;
    session.press(ENTER).await;
    dialog_closed(&session).await;
    let gym = note(&instance, &format!("{day} Gym.md")).await;
    for line in [
        "type: recurring",
        "daysOfWeek:\n- M\n- W\n",
        "repeatInterval: 2",
        &format!("startRecur: {day}"),
        "startTime: \"18:00\"",
        "endTime: \"19:00\"",
        "notify:\n  value: 15\n",
    ] {
        assert!(gym.contains(line), "{line:?} in\n{gym}");
    }
    assert!(!gym.contains("\ndate:"), "a series has no date:\n{gym}");

    // Monthly on the 2nd Tuesday; yearly on 15 June; a custom RRULE.
    let cases: [(&str, &str, &[(&str, &str)], &[&str]); 3] = [
        (
            "Book club",
            "monthly-weekday",
            &[("ev-week", "2"), ("ev-weekday", "2")],
            &["type: recurring", "repeatOn:\n  week: 2\n  weekday: 2\n"],
        ),
        (
            "Anniversary",
            "yearly",
            &[("ev-month", "6"), ("ev-day-of-month", "15")],
            &["type: recurring", "month: 6", "dayOfMonth: 15"],
        ),
        (
            "Payroll",
            "rrule",
            &[("ev-rrule", "FREQ=MONTHLY;BYMONTHDAY=-1")],
            &[
                "type: rrule",
                "rrule: FREQ=MONTHLY;BYMONTHDAY=-1",
                &format!("startDate: {day}"),
            ],
        ),
    ];
    for (title, kind, controls, expected) in cases {
        new_event_by_keyboard(&session).await;
        session.type_into("#ev-title", title).await;
        choose(&session, "ev-repeat", kind).await;
        for (id, v) in controls {
            if *id == "ev-rrule" || *id == "ev-day-of-month" {
                fill(&session, id, v).await;
            } else {
                choose(&session, id, v).await;
            }
        }
        session.click("#ev-save").await;
        dialog_closed(&session).await;
        let text = note(&instance, &format!("{day} {title}.md")).await;
        for line in expected {
            assert!(text.contains(line), "{line:?} in\n{text}");
        }
    }
    session.end().await;
}
