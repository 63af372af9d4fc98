//! The calendar window's search box (`ui/src/js/calendar_search.js`): `/`
//! puts the caret in it, it finds text in titles and note bodies in every
//! calendar through the engine's search, lists each event once (a series
//! by its next occurrence) upcoming first and past after, with dates and
//! calendar names, and Enter or a click goes to the event and highlights it.

use crate::support;

use chrono::{Days, Utc};
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const ROWS: &str = "[...document.querySelectorAll('#search-results .search-hit')]";

#[tokio::test]
async fn search_lists_upcoming_then_past_and_goes_to_the_event() {
    let instance = AppHarness::with_settings(json!({
        "initialView": "dayGridMonth",
        "calendarSources": [
            { "type": "local", "id": "work", "name": "Work", "directory": "events", "color": "#3b6fd4" },
            { "type": "local", "id": "home", "name": "Home", "directory": "home", "color": "#c2410c" },
        ],
    }));
    let today = Utc::now().date_naive();
    let soon = today + Days::new(10);
    let earlier = today - Days::new(30);
    let year_ago = today - Days::new(365);
    std::fs::create_dir_all(instance.vault().join("home")).unwrap();
    std::fs::write(
        instance.vault().join("home/Dentist.md"),
        format!("---\ntitle: Dentist\nallDay: true\ndate: {soon}\n---\nAt 4 Zephyr Street.\n"),
    )
    .unwrap();
    std::fs::write(
        instance.vault().join("events/Budget review.md"),
        format!(
            "---\ntitle: Budget review\nallDay: false\ndate: {earlier}\nstartTime: '14:00'\nendTime: '15:00'\n---\nRoom ZEPHYR, bring the figures.\n"
        ),
    )
    .unwrap();
    instance.write_note(
        "Standup.md",
        &format!(
            "title: Standup\ntype: recurring\ndaysOfWeek: [U, M, T, W, R, F, S]\nstartRecur: {year_ago}\nallDay: false\nstartTime: '09:00'\nendTime: '09:15'"
        ),
    );
    instance.write_note(
        "Lunch.md",
        &format!("title: Lunch\nallDay: true\ndate: {today}"),
    );
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;

    // `/` puts the caret in the box; typing narrows to the two notes that
    // say "zephyr" (title or body, any case): the upcoming one first.
    session.press("/").await;
    session
        .wait_for("document.activeElement.id === 'search'")
        .await;
    session.press("zephyr").await;
    session
        .wait_for(&format!(
            "{ROWS}.length === 2 && document.body.dataset.searched === 'zephyr'"
        ))
        .await;
    let rows = session
        .execute(&format!("return {ROWS}.map(r => r.textContent)"), json!([]))
        .await;
    let rows: Vec<String> = serde_json::from_value(rows).unwrap();
    assert!(
        rows[0].starts_with("Dentist") && rows[0].ends_with("· Home"),
        "{rows:?}"
    );
    assert!(
        rows[1].starts_with("Budget review") && rows[1].ends_with("· Work"),
        "{rows:?}"
    );

    // Enter goes to the first result's day and highlights it.
    session.press("\u{E007}").await;
    session
        .wait_for(&format!(
            "document.body.dataset.view === 'timeGridDay' && document.body.dataset.current === '{soon}'"
        ))
        .await;
    session
        .wait_for(
            "document.activeElement.matches('.fc-event.almanac-found[data-title=\"Dentist\"]')",
        )
        .await;

    // A click on the past one goes there.
    session
        .click("#search-results li:nth-child(2) .search-hit")
        .await;
    session
        .wait_for(&format!("document.body.dataset.current === '{earlier}'"))
        .await;
    session
        .wait_for("document.querySelector('.fc-event.almanac-found[data-title=\"Budget review\"]')")
        .await;

    // A series is listed once, by its occurrence today (today's counts as
    // upcoming all day); a text nothing holds says so.
    session.retype("#search", "standup").await;
    session
        .wait_for(&format!(
            "{ROWS}.length === 1 && {ROWS}[0].dataset.eventId.endsWith('#{today}')"
        ))
        .await;
    session.retype("#search", "no such words").await;
    session
        .wait_for("document.getElementById('search-summary').textContent === 'No events match.'")
        .await;
    session.end().await;
}
