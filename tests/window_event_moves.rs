//! The calendar window, end to end, for what issue 12 left open: the event
//! dialog's Calendar field moves an event to another calendar (the engine's
//! rules and errors), ticking one occurrence of a recurring task (and
//! unticking it), and the keyboard focus kept on an event across redraws.
//! The real window driven through WebDriver, on a real vault.

use crate::support;

use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const ENTER: &str = "\u{E007}";

fn today() -> NaiveDate {
    chrono::Utc::now().date_naive()
}

fn calendars() -> Value {
    json!([
        { "id": "local", "name": "Events", "color": "#2e7d32", "type": "local", "directory": "events" },
        { "id": "work", "name": "Work", "color": "#1565c0", "type": "local", "directory": "work" },
        { "id": "daily", "name": "Journal", "color": "#ef6c00", "type": "dailynote",
          "directory": "journal", "heading": "Events" },
    ])
}

async fn start(instance: &AppHarness) -> Session {
    let session = Session::start(instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.querySelector('.fc-view-harness') && !document.querySelector('.fc-view-harness .fc-loading')")
        .await;
    session
}

/// The file's text once `ready` accepts it (or it is gone, for `None`).
async fn file_when(
    path: std::path::PathBuf,
    what: &str,
    ready: impl Fn(Option<&str>) -> bool,
) -> Option<String> {
    support::eventually(what, || async {
        let text = std::fs::read_to_string(&path).ok();
        ready(text.as_deref()).then_some(text)
    })
    .await
}

async fn choose_calendar(session: &Session, id: &str) {
    session
        .execute(
            "const el = document.getElementById('ev-calendar');
             el.value = arguments[0];
             el.dispatchEvent(new Event('change', { bubbles: true }));",
            json!([id]),
        )
        .await;
}

/// The `data-event-id` of the event holding the keyboard focus, if any.
async fn focused_event(session: &Session) -> Option<String> {
    let id = session
        .execute(
            "const el = document.activeElement;
             const event = el && el.closest ? el.closest('.fc-event') : null;
             return event ? event.dataset.eventId : null;",
            json!([]),
        )
        .await;
    id.as_str().map(str::to_string)
}

#[tokio::test]
async fn the_calendar_field_moves_an_event_and_refusals_show_by_it() {
    let instance = AppHarness::with_settings(json!({
        "initialView": "dayGridMonth",
        "calendarSources": calendars(),
    }));
    let day = today();
    let review = format!(
        "---\ntitle: Review\nallDay: true\ndate: {day}\nproject: \"Apollo\" # mine\n---\nAgenda:\n- budget\n"
    );
    let name = format!("{day} Review.md");
    std::fs::write(instance.vault().join("events").join(&name), &review).unwrap();
    instance.write_note(
        &format!("{day} Call.md"),
        &format!(
            "title: Call\nallDay: false\ndate: {day}\nstartTime: \"09:00\"\nendTime: \"09:30\""
        ),
    );
    let session = start(&instance).await;

    // Full Note → Full Note: the note moves byte-for-byte, by the keyboard.
    session
        .key_on_event(".fc-event[data-title='Review']", ENTER)
        .await;
    choose_calendar(&session, "work").await;
    session
        .execute("document.getElementById('ev-save').focus()", json!([]))
        .await;
    session.press(ENTER).await;
    let moved = file_when(
        instance.vault().join("work").join(&name),
        "the note in work/",
        |t| t.is_some(),
    )
    .await;
    assert_eq!(moved.as_deref(), Some(review.as_str()));
    // The new copy is written first, then the old one removed.
    file_when(
        instance.vault().join("events").join(&name),
        "the note gone from events/",
        |t| t.is_none(),
    )
    .await;
    session
        .wait_for("!document.getElementById('event-dialog').open")
        .await;
    // The redrawn event (a new id) keeps the keyboard focus.
    let moved_id = format!("fullnote:work/{name}");
    support::eventually("focus on the moved event", || async {
        (focused_event(&session).await == Some(moved_id.clone())).then_some(())
    })
    .await;

    // Into daily notes, the note's own text has no place: refused by the field.
    session
        .key_on_event(".fc-event[data-title='Review']", ENTER)
        .await;
    choose_calendar(&session, "daily").await;
    session.click("#ev-save").await;
    session
        .wait_for("!document.getElementById('err-calendarId').hidden")
        .await;
    let shown = session.text("#err-calendarId").await;
    assert!(shown.contains("daily-note item cannot keep"), "{shown}");
    assert_eq!(session.focused_id().await, "ev-calendar");
    assert_eq!(
        std::fs::read_to_string(instance.vault().join("work").join(&name)).unwrap(),
        review
    );
    assert!(!instance.vault().join(format!("journal/{day}.md")).exists());
    session.click("#ev-cancel").await;

    // A bare note becomes an item of the day's note.
    session
        .key_on_event(".fc-event[data-title='Call']", ENTER)
        .await;
    choose_calendar(&session, "daily").await;
    session.click("#ev-save").await;
    let journal = file_when(
        instance.vault().join("journal").join(format!("{day}.md")),
        "the day's note",
        |t| t.is_some(),
    )
    .await;
    assert_eq!(
        journal.as_deref(),
        Some("## Events\n- Call [startTime:: 09:00] [endTime:: 09:30]\n")
    );
    file_when(
        instance
            .vault()
            .join("events")
            .join(format!("{day} Call.md")),
        "the bare note gone",
        |t| t.is_none(),
    )
    .await;
    session
        .wait_for(
            "(() => { const el = document.querySelector(\".fc-event[data-title='Call']\");
                   return el && el.dataset.eventId.startsWith('dailynote:'); })()",
        )
        .await;
    session.end().await;
}

#[tokio::test]
async fn ticking_one_occurrence_of_a_recurring_task_and_unticking_it() {
    let instance = AppHarness::with_settings(json!({ "initialView": "dayGridMonth" }));
    let day = today();
    let first = day - Duration::days(7);
    let weekday =
        ["U", "M", "T", "W", "R", "F", "S"][day.weekday().num_days_from_sunday() as usize];
    let series_name = format!("{first} Water plants.md");
    let series = format!(
        "---\ntitle: Water plants\nallDay: true\ntype: recurring\ndaysOfWeek: [{weekday}]\nstartRecur: {first}\ncompleted: false\n---\n"
    );
    std::fs::write(instance.vault().join("events").join(&series_name), &series).unwrap();
    let session = start(&instance).await;

    let occurrence = format!(
        ".fc-event[data-title='Water plants'][data-instance-date='{day}'] input.almanac-task"
    );
    session
        .wait_for(&format!("document.querySelector(\"{occurrence}\")"))
        .await;
    session.click(&occurrence).await;

    // A done single event takes the occurrence's place; the series skips it.
    let single_path = instance
        .vault()
        .join("events")
        .join(format!("{day} Water plants.md"));
    let single = file_when(single_path.clone(), "the done occurrence", |t| t.is_some())
        .await
        .unwrap();
    assert!(single.contains(&format!("date: {day}")), "{single}");
    let completed = single
        .lines()
        .find(|l| l.starts_with("completed: "))
        .unwrap();
    assert!(completed != "completed: false", "{single}");
    let skipping = file_when(
        instance.vault().join("events").join(&series_name),
        "the series skipping the day",
        |t| t.is_some_and(|t| t.contains(&day.to_string()) && t.contains("skipDates")),
    )
    .await
    .unwrap();
    assert_eq!(
        skipping.replace(&format!("skipDates:\n- {day}\n"), ""),
        series,
        "{skipping}"
    );
    let single_id = format!("fullnote:events/{day} Water plants.md");
    let ticked = format!(".fc-event[data-event-id='{single_id}'] input.almanac-task");
    session
        .wait_for(&format!("document.querySelector(\"{ticked}\")?.checked"))
        .await;
    // The other weeks are still the series' own, open.
    assert_eq!(
        session
            .execute(
                "return document.querySelectorAll(\".fc-event[data-title='Water plants'] input.almanac-task:checked\").length",
                json!([])
            )
            .await,
        json!(1)
    );

    // Unticking (by the keyboard: Space on the focused box) gives the day
    // back to the series, as it was. The box is focused again should a
    // redraw replace it before the key.
    let focus_box = "const box = document.querySelector(arguments[0]);
         if (!box) return 'gone';
         if (!box.checked) return 'pending';
         box.focus();
         return document.activeElement === box;";
    support::eventually("the done box unticked", || async {
        match session.execute(focus_box, json!([ticked])).await {
            Value::String(s) if s == "gone" => Some(()),
            Value::Bool(true) => {
                session.press(" ").await;
                None
            }
            _ => None,
        }
    })
    .await;
    file_when(single_path, "the single event removed", |t| t.is_none()).await;
    let restored = file_when(
        instance.vault().join("events").join(&series_name),
        "the series restored",
        |t| t.is_some_and(|t| !t.contains("skipDates")),
    )
    .await
    .unwrap();
    assert_eq!(restored, series);
    session
        .wait_for(&format!(
            "(() => {{ const box = document.querySelector(\"{occurrence}\"); return box && !box.checked; }})()"
        ))
        .await;
    session.end().await;
}

#[tokio::test]
async fn keyboard_focus_stays_on_an_event_when_the_vault_changes() {
    let instance = AppHarness::with_settings(json!({ "initialView": "dayGridMonth" }));
    let day = today();
    let note = format!("title: Standup\nallDay: true\ndate: {day}");
    instance.write_note(&format!("{day} Standup.md"), &note);
    instance.write_note(
        &format!("{day} Other.md"),
        &format!("title: Other\nallDay: true\ndate: {day}"),
    );
    let session = start(&instance).await;
    let css = ".fc-event[data-title='Standup']";
    session
        .wait_for(&format!("document.querySelector(\"{css}\")"))
        .await;
    session
        .execute("document.querySelector(arguments[0]).focus()", json!([css]))
        .await;
    let id = format!("fullnote:events/{day} Standup.md");
    assert_eq!(focused_event(&session).await, Some(id.clone()));

    // Another program changes the note: the calendar redraws the event.
    let redrawn = "window.__before = document.querySelector(arguments[0]);";
    session.execute(redrawn, json!([css])).await;
    instance.write_note(
        &format!("{day} Standup.md"),
        &format!("{note}\ncategory: Team"),
    );
    session
        .wait_for(&format!(
            "(() => {{ const el = document.querySelector(\"{css}\"); return el && el !== window.__before; }})()"
        ))
        .await;
    support::eventually("focus back on the redrawn event", || async {
        let same = session
            .execute(
                "const el = document.activeElement;
                 return el !== window.__before && el.closest && el.closest('.fc-event')
                   ? el.closest('.fc-event').dataset.eventId : null;",
                json!([]),
            )
            .await;
        (same == json!(id)).then_some(())
    })
    .await;
    session.end().await;
}
