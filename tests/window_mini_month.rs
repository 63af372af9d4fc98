//! The sidebar's mini-month (`ui/src/js/mini_month.js`): it browses months
//! on its own, marks the days that hold events, a click on a day takes the
//! calendar there in its view, and week numbers (ISO 8601) are a choice
//! the window keeps across a restart.

use crate::support;

use chrono::{Datelike, Days, Months, NaiveDate, Utc};
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

fn day_button(date: NaiveDate) -> String {
    format!("document.querySelector(\"#mini-grid button[data-date='{date}']\")")
}

#[tokio::test]
async fn a_click_on_a_marked_day_goes_there_and_week_numbers_show() {
    let instance =
        AppHarness::with_settings(json!({ "initialView": "dayGridMonth", "firstDay": 1 }));
    let today = Utc::now().date_naive();
    let next_month = today.with_day(1).unwrap() + Months::new(1);
    let busy = next_month + Days::new(14);
    let quiet = busy + Days::new(1);
    instance.write_note(
        "Trip.md",
        &format!("title: Trip\nallDay: true\ndate: {busy}"),
    );
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;
    let this_month = today.format("%Y-%m").to_string();
    session
        .wait_for(&format!(
            "document.getElementById('mini-month').dataset.month === '{this_month}'"
        ))
        .await;

    // The day view; the mini-month browses to next month on its own.
    session.press("d").await;
    session
        .wait_for("document.body.dataset.view === 'timeGridDay'")
        .await;
    session.click("#mini-next").await;
    session
        .wait_for(&format!(
            "{}?.classList.contains('mini-busy')",
            day_button(busy)
        ))
        .await;
    assert!(
        !session
            .execute(
                &format!(
                    "return {}.classList.contains('mini-busy')",
                    day_button(quiet)
                ),
                json!([])
            )
            .await
            .as_bool()
            .unwrap()
    );
    // Weeks start on Monday, as the settings say.
    assert_eq!(
        session
            .execute(
                "return document.querySelector('#mini-grid th').title",
                json!([])
            )
            .await,
        "Monday"
    );

    // A click takes the calendar to that day, in the day view.
    session
        .click(&format!("#mini-grid button[data-date='{busy}']"))
        .await;
    session
        .wait_for(&format!(
            "document.body.dataset.current === '{busy}' && document.body.dataset.view === 'timeGridDay'"
        ))
        .await;
    session
        .wait_for("document.querySelector(\".fc-event[data-title='Trip']\")")
        .await;

    // Week numbers: the row of that day starts with its ISO week.
    session.click("#week-numbers").await;
    let week = busy.iso_week().week().to_string();
    let row_week = format!(
        "{}.closest('tr').querySelector('.mini-week').textContent",
        day_button(busy)
    );
    session.wait_for(&format!("{row_week} === '{week}'")).await;
    let saved = instance.data_home().join("almanac/calendar-window.json");
    support::eventually("the choice saved", || async {
        std::fs::read_to_string(&saved)
            .ok()
            .filter(|state| state.contains("\"weekNumbers\": true"))
    })
    .await;
    session.end().await;

    // Kept across a restart.
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;
    session
        .wait_for(
            "document.getElementById('week-numbers').checked && document.querySelector('#mini-grid td.mini-week')",
        )
        .await;
    session.end().await;
}
