//! Editing in the calendar window, end to end: the real window driven through
//! WebDriver (real mouse drags and key presses), writing real notes in a real
//! vault through the shell's editing commands.

use crate::support;

use std::path::PathBuf;

use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
const DELETE: &str = "\u{E017}";

fn today() -> NaiveDate {
    chrono::Utc::now().date_naive()
}

pub(crate) fn note_path(instance: &AppHarness, name: &str) -> PathBuf {
    instance.vault().join("events").join(name)
}

/// The note's text once it exists.
pub(crate) async fn note(instance: &AppHarness, name: &str) -> String {
    let path = note_path(instance, name);
    support::eventually(&format!("the note {name}"), || async {
        std::fs::read_to_string(&path).ok()
    })
    .await
}

/// The note's text once it differs from `before`.
pub(crate) async fn note_changed(instance: &AppHarness, name: &str, before: &str) -> String {
    let path = note_path(instance, name);
    support::eventually(&format!("a change to {name}"), || async {
        std::fs::read_to_string(&path).ok().filter(|t| t != before)
    })
    .await
}

pub(crate) async fn note_gone(instance: &AppHarness, name: &str) {
    let path = note_path(instance, name);
    support::eventually(&format!("{name} deleted"), || async {
        (!path.exists()).then_some(())
    })
    .await;
}

fn notes(instance: &AppHarness) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(instance.vault().join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `text` with each line starting with a key of `changes` replaced by the
/// key's new line: what a note must read after an edit of those keys only.
pub(crate) fn with_lines(text: &str, changes: &[(&str, &str)]) -> String {
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

pub(crate) async fn start(instance: &AppHarness, theme: Theme) -> Session {
    let session = Session::start(instance, "calendar", theme).await;
    // The first fetch is in: events (if any) are on screen.
    session
        .wait_for("document.querySelector('.fc-view-harness') && !document.querySelector('.fc-view-harness .fc-loading')")
        .await;
    session
}

/// Sets a text control's value as a user would: cleared, then typed.
pub(crate) async fn fill(session: &Session, id: &str, text: &str) {
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

pub(crate) async fn value(session: &Session, id: &str) -> Value {
    session
        .execute(
            "const el = document.getElementById(arguments[0]);
             return el.type === 'checkbox' ? el.checked : el.value;",
            json!([id]),
        )
        .await
}

pub(crate) async fn dialog_open(session: &Session) {
    session
        .wait_for("document.getElementById('event-dialog').open")
        .await;
}

pub(crate) async fn dialog_closed(session: &Session) {
    session
        .wait_for("!document.getElementById('event-dialog').open")
        .await;
}

/// Waits until what the page laid out has been painted (two animation frames).
async fn painted(session: &Session) {
    session
        .execute_async(
            "const done = arguments[arguments.length - 1];
             requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
        )
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
pub(crate) async fn scroll_to(session: &Session, time: &str) {
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
pub(crate) async fn slot_point(
    session: &Session,
    date: NaiveDate,
    time: &str,
    dy: f64,
) -> (f64, f64) {
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
pub(crate) async fn rect(session: &Session, css: &str) -> [f64; 4] {
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
pub(crate) async fn neighbour_in_view(session: &Session, date: NaiveDate) -> NaiveDate {
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
    let instance = AppHarness::with_settings(json!({ "initialView": "timeGridWeek" }));
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
    session
        .wait_for(&format!(
            "document.querySelector(\".fc-daygrid-day[data-date='{other}']\")"
        ))
        .await;
    painted(&session).await;
    session
        .click(&format!(
            ".fc-daygrid-day[data-date='{other}'] .fc-daygrid-day-frame"
        ))
        .await;
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
    // (title, Repeat choice, controls set, lines the note must hold)
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Case; 3] = [
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

/// The `.fc-event` of the event titled `title` in the day column `date`.
pub(crate) fn event_in(date: NaiveDate, title: &str) -> String {
    format!(".fc-timegrid-col[data-date='{date}'] .fc-event[data-title='{title}']")
}

#[tokio::test]
async fn edit_one_occurrence_against_the_whole_series() {
    let instance = AppHarness::with_settings(json!({ "initialView": "timeGridWeek" }));
    let day = today();
    let series = format!(
        "---\ntitle: Standup\nallDay: false\ntype: recurring\ndaysOfWeek: [U, M, T, W, R, F, S]\n\
         startRecur: {}\nstartTime: \"09:00\"\nendTime: \"09:15\"\n# the team's own words\n---\nAgenda in the doc.\n",
        day - Duration::days(21)
    );
    std::fs::write(note_path(&instance, "standup.md"), &series).unwrap();
    let session = start(&instance, Theme::Light).await;
    scroll_to(&session, "09:00:00").await;

    // This occurrence: it becomes a single event, and the series skips the day.
    session
        .wait_for(&format!(
            "document.querySelector(\"{}\")",
            event_in(day, "Standup")
        ))
        .await;
    session.click(&event_in(day, "Standup")).await;
    dialog_open(&session).await;
    session
        .wait_for("!document.getElementById('ev-scope').hidden")
        .await;
    assert_eq!(session.text("#ev-occurrence").await, day.to_string());
    assert_eq!(value(&session, "ev-date").await, json!(day.to_string()));
    fill(&session, "ev-title", "Standup with Ada").await;
    fill(&session, "ev-start", "10:00").await;
    fill(&session, "ev-end", "10:30").await;
    session.press(ENTER).await;
    dialog_closed(&session).await;
    let single = note(&instance, &format!("{day} Standup with Ada.md")).await;
    for line in [
        "type: single",
        &format!("date: {day}"),
        "startTime: \"10:00\"",
        "endTime: \"10:30\"",
    ] {
        assert!(single.contains(line), "{line:?} in\n{single}");
    }
    let skipped = note_changed(&instance, "standup.md", &series).await;
    assert_eq!(
        skipped,
        series.replace("---\nAgenda", &format!("skipDates:\n- {day}\n---\nAgenda")),
        "only skipDates added"
    );
    session
        .wait_for(&format!(
            "!document.querySelector(\"{}\") && document.querySelector(\"{}\")",
            event_in(day, "Standup"),
            event_in(day, "Standup with Ada")
        ))
        .await;

    // An occurrence does not drag: it says to open it instead.
    let other = neighbour_in_view(&session, day).await;
    let occurrence = rect(&session, &event_in(other, "Standup")).await;
    let grab = (occurrence[0] + occurrence[2] / 2.0, occurrence[1] + 4.0);
    session.drag(grab, (grab.0, grab.1 + 90.0)).await;
    session
        .wait_for("!document.getElementById('edit-hint').hidden")
        .await;
    assert!(
        session
            .text("#edit-hint")
            .await
            .contains("repeats: open it"),
        "{}",
        session.text("#edit-hint").await
    );
    assert_eq!(
        std::fs::read_to_string(note_path(&instance, "standup.md")).unwrap(),
        skipped
    );

    // The whole series: another day's occurrence, the start time of all.
    session.click(&event_in(other, "Standup")).await;
    dialog_open(&session).await;
    session.click("input[name=ev-scope][value=series]").await;
    assert_eq!(
        value(&session, "ev-date").await,
        json!((day - Duration::days(21)).to_string()),
        "the series' start"
    );
    assert_eq!(value(&session, "ev-repeat").await, json!("weekly"));
    fill(&session, "ev-start", "08:30").await;
    session.click("#ev-save").await;
    dialog_closed(&session).await;
    let moved = note_changed(&instance, "standup.md", &skipped).await;
    assert_eq!(
        moved,
        with_lines(&skipped, &[("startTime", "startTime: \"08:30\"")]),
        "only startTime changed"
    );
    session.end().await;
}

#[tokio::test]
async fn drag_and_resize_rewrite_only_the_changed_keys() {
    let instance = AppHarness::with_settings(json!({ "initialView": "timeGridWeek" }));
    let day = today();
    let original = format!(
        "---\ntitle: Review\nallDay: false\ndate: {day}\nstartTime: \"09:00\"\nendTime: \"10:00\"\n\
         category: Work\nlocation: Room 4 # by the window\n---\n\nAgenda: budget.\n"
    );
    std::fs::write(note_path(&instance, &format!("{day} Review.md")), &original).unwrap();
    let session = start(&instance, Theme::Light).await;
    scroll_to(&session, "10:00:00").await;
    session
        .wait_for(&format!(
            "document.querySelector(\"{}\")",
            event_in(day, "Review")
        ))
        .await;

    // Drag it to the next day, an hour later (real mouse input).
    let to_day = neighbour_in_view(&session, day).await;
    let event = rect(&session, &event_in(day, "Review")).await;
    let grab = (event[0] + event[2] / 2.0, event[1] + 6.0);
    let nine = slot_point(&session, day, "09:00:00", 0.0).await;
    let ten = slot_point(&session, to_day, "10:00:00", 0.0).await;
    session.drag(grab, (ten.0, grab.1 + (ten.1 - nine.1))).await;
    let moved_name = format!("{to_day} Review.md");
    let moved = note(&instance, &moved_name).await;
    assert_eq!(
        moved,
        with_lines(
            &original,
            &[
                ("date", &format!("date: {to_day}")),
                ("startTime", "startTime: \"10:00\""),
                ("endTime", "endTime: \"11:00\""),
            ]
        ),
        "byte for byte, but the moved keys"
    );
    note_gone(&instance, &format!("{day} Review.md")).await;

    // Resize: pull its end down by an hour.
    session
        .wait_for(&format!(
            "document.querySelector(\"{}\")",
            event_in(to_day, "Review")
        ))
        .await;
    let event = rect(&session, &event_in(to_day, "Review")).await;
    let eleven = slot_point(&session, to_day, "11:00:00", 0.0).await;
    let twelve = slot_point(&session, to_day, "12:00:00", 0.0).await;
    // Hovering shows the resizer at the bottom edge.
    let bottom = (event[0] + event[2] / 2.0, event[1] + event[3] - 2.0);
    session
        .drag(bottom, (bottom.0, bottom.1 + (twelve.1 - eleven.1)))
        .await;
    let resized = note_changed(&instance, &moved_name, &moved).await;
    assert_eq!(
        resized,
        with_lines(&moved, &[("endTime", "endTime: \"12:00\"")]),
        "byte for byte, but the end"
    );

    // A move the engine refuses (the day already has a note of that name)
    // says why and puts the event back.
    let retro =
        format!("---\ntitle: Retro\nallDay: false\ndate: {day}\nstartTime: \"15:00\"\n---\n");
    std::fs::write(note_path(&instance, &format!("{day} Retro.md")), &retro).unwrap();
    std::fs::write(
        note_path(&instance, &format!("{to_day} Retro.md")),
        format!("---\ntitle: Retro\nallDay: true\ndate: {to_day}\n---\n"),
    )
    .unwrap();
    scroll_to(&session, "15:00:00").await;
    let retro_css = event_in(day, "Retro");
    session
        .wait_for(&format!("document.querySelector(\"{retro_css}\")"))
        .await;
    let event = rect(&session, &retro_css).await;
    let grab = (event[0] + event[2] / 2.0, event[1] + 4.0);
    let target = slot_point(&session, to_day, "15:00:00", 4.0).await;
    session.drag(grab, (target.0, grab.1)).await;
    // The line still says "Resized “Review”." until the refusal replaces it.
    session
        .wait_for("document.getElementById('edit-hint').textContent.startsWith('Could not move')")
        .await;
    let hint = session.text("#edit-hint").await;
    assert!(
        hint.starts_with("Could not move “Retro”:") && hint.contains("already exists"),
        "{hint}"
    );
    session
        .wait_for(&format!("document.querySelector(\"{retro_css}\")"))
        .await;
    assert_eq!(
        std::fs::read_to_string(note_path(&instance, &format!("{day} Retro.md"))).unwrap(),
        retro
    );
    session.end().await;
}

#[tokio::test]
async fn tick_a_task_and_delete_from_the_keyboard() {
    let instance = AppHarness::with_settings(json!({ "initialView": "dayGridMonth" }));
    let day = today();
    instance.write_note(
        &format!("{day} Buy milk.md"),
        &format!("title: Buy milk\nallDay: true\ndate: {day}\ncompleted: false"),
    );
    instance.write_note(
        &format!("{day} Old plan.md"),
        &format!("title: Old plan\nallDay: true\ndate: {day}"),
    );
    let session = start(&instance, Theme::Light).await;

    // The task's box on the calendar ticks the note's `completed`.
    let task = ".fc-event[data-title='Buy milk'] input.almanac-task";
    session
        .wait_for(&format!("document.querySelector(\"{task}\")"))
        .await;
    assert_eq!(
        session
            .execute(
                "return document.querySelector(arguments[0]).getAttribute('aria-label')",
                json!([task])
            )
            .await,
        json!("Done: Buy milk")
    );
    session.click(task).await;
    let name = format!("{day} Buy milk.md");
    let done = note_changed(
        &instance,
        &name,
        &format!("---\ntitle: Buy milk\nallDay: true\ndate: {day}\ncompleted: false\n---\n"),
    )
    .await;
    let completed = done.lines().find(|l| l.starts_with("completed: ")).unwrap();
    assert!(completed.contains(&day.to_string()), "{done}");
    session
        .wait_for(&format!("document.querySelector(\"{task}\").checked"))
        .await;

    // Enter opens a focused event; Esc closes the dialog.
    let old_plan = ".fc-event[data-title='Old plan']";
    session.key_on_event(old_plan, ENTER).await;
    assert_eq!(value(&session, "ev-title").await, json!("Old plan"));
    assert_eq!(session.focused_id().await, "ev-title");
    session.press(ESCAPE).await;
    dialog_closed(&session).await;

    // Delete on a focused event asks first; Esc keeps it, Enter deletes it.
    session.key_on_event(old_plan, DELETE).await;
    session
        .wait_for("!document.getElementById('ev-confirm').hidden")
        .await;
    assert_eq!(session.focused_id().await, "ev-confirm-delete");
    assert_eq!(
        session.text("#ev-confirm-text").await,
        "Delete “Old plan”? Its note is removed."
    );
    session.press(ESCAPE).await;
    session
        .wait_for("document.getElementById('ev-confirm').hidden")
        .await;
    assert!(note_path(&instance, &format!("{day} Old plan.md")).exists());
    // Delete inside the dialog (not in a text field) asks again.
    session
        .execute("document.getElementById('ev-allday').focus()", json!([]))
        .await;
    session.press(DELETE).await;
    session
        .wait_for("!document.getElementById('ev-confirm').hidden")
        .await;
    session.press(ENTER).await;
    dialog_closed(&session).await;
    note_gone(&instance, &format!("{day} Old plan.md")).await;
    session
        .wait_for(&format!("!document.querySelector(\"{old_plan}\")"))
        .await;
    // The keyboard user's place goes to the neighbouring event, not the page.
    session
        .wait_for("document.activeElement?.closest('.fc-event')?.dataset.title === 'Buy milk'")
        .await;
    session.end().await;
}

/// Saves the dialog and waits for the refusal shown under `field`.
async fn refused_at(session: &Session, field: &str) -> String {
    session.click("#ev-save").await;
    let slot = format!("err-{field}");
    session
        .wait_for(&format!("!document.getElementById('{slot}').hidden"))
        .await;
    let shown = session.text(&format!("#{slot}")).await;
    assert!(
        !shown.contains("\"error\"") && !shown.contains("\"message\""),
        "a message, not JSON: {shown}"
    );
    // Only that field's slot speaks.
    let others = session
        .execute(
            "return [...document.querySelectorAll('#event-dialog .field-error')]
               .filter((e) => !e.hidden).map((e) => e.id)",
            json!([]),
        )
        .await;
    assert_eq!(others, json!([slot]), "{shown}");
    assert!(
        session
            .execute(
                "return document.getElementById('event-dialog').open",
                json!([])
            )
            .await
            == json!(true)
    );
    shown
}

#[tokio::test]
async fn engine_errors_show_next_to_their_field() {
    let instance = AppHarness::with_settings(json!({ "initialView": "dayGridMonth" }));
    let day = today();
    instance.write_note(
        &format!("{day} Taken.md"),
        &format!("title: Taken\nallDay: true\ndate: {day}"),
    );
    let session = start(&instance, Theme::Light).await;
    session
        .execute(
            "window.alert = window.confirm = () => { throw new Error('a modal alert'); }",
            json!([]),
        )
        .await;
    let before = notes(&instance);

    // (field the message shows under, what the form is given, words it says)
    type Setup<'a> = &'a [(&'a str, &'a str)];
    let cases: [(&str, Setup, &str); 11] = [
        ("title", &[], "must not be empty"),
        (
            "endDate",
            &[
                ("ev-title", "Backwards"),
                ("ev-date", "2026-01-10"),
                ("ev-end-date", "2026-01-05"),
            ],
            "is before `date`",
        ),
        (
            "endTime",
            &[
                ("ev-title", "Late end"),
                ("allday", "off"),
                ("ev-start", "10:00"),
                ("ev-end", "9am"),
            ],
            "is not an HH:mm time",
        ),
        ("title", &[("ev-title", "Taken")], "already exists"),
        (
            "date",
            &[("ev-title", "No day"), ("ev-date", "tomorrow")],
            "is not a YYYY-MM-DD date",
        ),
        (
            "startTime",
            &[
                ("ev-title", "Late"),
                ("allday", "off"),
                ("ev-start", "25:99"),
            ],
            "is not an HH:mm time",
        ),
        (
            "timezone",
            &[
                ("ev-title", "Far"),
                ("allday", "off"),
                ("ev-start", "10:00"),
                ("ev-timezone", "Mars/Olympus"),
            ],
            "is not an IANA time zone",
        ),
        (
            "dayOfMonth",
            &[
                ("ev-title", "Rent"),
                ("repeat", "monthly-day"),
                ("ev-day-of-month", "40"),
            ],
            "40 is outside 1 to 31",
        ),
        (
            "rrule",
            &[
                ("ev-title", "Odd"),
                ("repeat", "rrule"),
                ("ev-rrule", "FREQ=SOMETIMES"),
            ],
            "rrule",
        ),
        (
            "notify",
            &[("ev-title", "Nag"), ("ev-notify", "5000")],
            "0 to 1440",
        ),
        (
            "endRecur",
            &[
                ("ev-title", "Short"),
                ("repeat", "weekly"),
                ("ev-end-recur", "2000-01-01"),
            ],
            "is before `startRecur`",
        ),
    ];
    for (field, setup, says) in cases {
        new_event_by_keyboard(&session).await;
        for (control, input) in setup {
            match *control {
                "allday" => set_checked(&session, "#ev-allday", false).await,
                "repeat" => choose(&session, "ev-repeat", input).await,
                id => fill(&session, id, input).await,
            }
        }
        let shown = refused_at(&session, field).await;
        assert!(shown.contains(says), "{field}: {shown}");
        assert_eq!(
            session
                .execute(
                    "return document.activeElement.getAttribute('aria-invalid')",
                    json!([])
                )
                .await,
            json!("true"),
            "{field}: the field is marked and focused"
        );
        session.press(ESCAPE).await;
        dialog_closed(&session).await;
    }
    assert_eq!(notes(&instance), before, "no refused write left a note");
    session.end().await;
}

#[tokio::test]
async fn feed_events_refuse_moves_visibly_and_notes_open_in_obsidian() {
    let day = today();
    let ics = format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:feed-1\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART:{d}T090000Z\r\nDTEND:{d}T100000Z\r\nSUMMARY:Feed meeting\r\n\
         END:VEVENT\r\nEND:VCALENDAR\r\n",
        d = day.format("%Y%m%d")
    );
    let feed = almanac_testkit::HttpStub::start(move |stream| {
        use std::io::Write;
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ics}",
            ics.len()
        );
    });
    let instance = AppHarness::with_settings(json!({
        "initialView": "timeGridWeek",
        "calendarSources": [
            { "id": "local", "name": "Events", "color": "#2e7d32", "type": "local", "directory": "events" },
            { "id": "feed", "name": "Team feed", "color": "#8e24aa", "type": "ical",
              "url": format!("http://{}/team.ics", feed.addr), "allowPrivateNetwork": true },
        ],
    }));
    instance.write_note(
        &format!("{day} Review.md"),
        &format!(
            "title: Review\nallDay: false\ndate: {day}\nstartTime: \"13:00\"\nendTime: \"14:00\""
        ),
    );
    let opened = instance.register_url_handler();
    let session = start(&instance, Theme::Light).await;
    scroll_to(&session, "10:00:00").await;
    let meeting = event_in(day, "Feed meeting");
    session
        .wait_for(&format!("document.querySelector(\"{meeting}\")"))
        .await;
    let hint = session
        .execute(
            "const el = document.querySelector(arguments[0]);
             return [el.classList.contains('almanac-readonly'), el.title, getComputedStyle(el).cursor];",
            json!([meeting]),
        )
        .await;
    assert_eq!(hint[0], json!(true));
    assert!(hint[1].as_str().unwrap().contains("read-only"), "{hint}");
    assert_eq!(hint[2], json!("not-allowed"));

    // A drag says why it does nothing, and nothing moves.
    // Where it sits in its day, whatever the grid's scroll.
    let placed = || async {
        let event = rect(&session, &meeting).await;
        let nine = slot_point(&session, day, "09:00:00", 0.0).await;
        (event[1] - nine.1, event[3])
    };
    let before = rect(&session, &meeting).await;
    let placed_before = placed().await;
    session
        .drag(
            (before[0] + before[2] / 2.0, before[1] + 6.0),
            (before[0] + before[2] / 2.0, before[1] + 120.0),
        )
        .await;
    session
        .wait_for("!document.getElementById('edit-hint').hidden")
        .await;
    assert!(
        session
            .text("#edit-hint")
            .await
            .contains("read-only calendar")
    );
    assert_eq!(placed().await, placed_before);

    // Opened, it is shown read-only: no Save, no Delete, fields locked.
    session.click(&meeting).await;
    dialog_open(&session).await;
    let state = session
        .execute(
            "const $ = (id) => document.getElementById(id);
             return [$('ev-readonly').hidden, $('ev-save').hidden, $('ev-delete').hidden, $('ev-title').disabled];",
            json!([]),
        )
        .await;
    assert_eq!(state, json!([false, true, true, true]));
    session.press(ESCAPE).await;
    dialog_closed(&session).await;

    // "Open note" hands the note to Obsidian's URL handler.
    session.click(&event_in(day, "Review")).await;
    dialog_open(&session).await;
    session.click("#ev-open-note").await;
    session
        .wait_for("document.getElementById('ev-status').textContent === 'Opened in Obsidian.'")
        .await;
    let url = support::eventually("the URL handed to the handler", || async {
        std::fs::read_to_string(&opened)
            .ok()
            .filter(|t| t.ends_with('\n'))
    })
    .await;
    assert_eq!(
        url.trim(),
        format!("obsidian://open?vault=vault&file=events%2F{day}%20Review")
    );
    session.end().await;
}

fn screenshot_path(theme: Theme) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../artifacts/screenshots")
        .join(format!("event-dialog-{}.png", theme.name()))
}

#[tokio::test]
async fn event_dialog_light_and_dark() {
    for theme in [Theme::Light, Theme::Dark] {
        let instance = AppHarness::with_settings(json!({
            "initialView": "timeGridWeek",
            "calendarSources": [
                { "id": "work", "name": "Work", "color": "#d81b60", "type": "local", "directory": "events" },
            ],
        }));
        let day = today();
        let letter =
            ["U", "M", "T", "W", "R", "F", "S"][day.weekday().num_days_from_sunday() as usize];
        let mut days = vec!["M", "W", letter];
        days.dedup();
        days.sort_by_key(|d| "UMTWRFS".find(d));
        days.dedup();
        instance.write_note(
            "planning.md",
            &format!(
                "title: Quarterly planning with the whole team\nallDay: false\ntype: recurring\n\
                 daysOfWeek: [{}]\nrepeatInterval: 2\nstartRecur: {}\nendRecur: {}\n\
                 startTime: \"14:00\"\nendTime: \"15:30\"\ntimezone: Europe/Berlin\nnotify: {{value: 15}}\ncompleted: false",
                days.join(", "),
                day,
                day + Duration::days(90),
            ),
        );
        let session = start(&instance, theme).await;
        let shown = ".fc-event[data-title='Quarterly planning with the whole team']";
        session
            .wait_for(&format!("document.querySelector(\"{shown}\")"))
            .await;
        painted(&session).await;
        session.click(shown).await;
        dialog_open(&session).await;
        session.click("input[name=ev-scope][value=series]").await;
        assert_eq!(value(&session, "ev-repeat").await, json!("weekly"));
        assert_eq!(value(&session, "ev-timezone").await, json!("Europe/Berlin"));
        assert_eq!(value(&session, "ev-notify").await, json!("15"));
        assert_eq!(session.text("#ev-interval-unit").await, "weeks");
        // The stripe is the calendar's colour.
        assert_eq!(
            session
                .execute("return getComputedStyle(document.getElementById('event-dialog')).borderTopColor", json!([]))
                .await,
            json!("rgb(216, 27, 96)")
        );
        // Painted, not just laid out.
        painted(&session).await;
        session.screenshot(&screenshot_path(theme)).await;
        session.end().await;
    }
}
