//! The agenda (`ui/src/js/agenda.js`): `a` lists the coming days grouped by
//! day with the open tasks whose day has passed marked overdue on today,
//! and a task's box ticks it in its note right there.

use crate::support;

use chrono::{Days, Utc};
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

#[tokio::test]
async fn the_agenda_lists_the_coming_days_and_overdue_tasks_and_ticks_in_place() {
    let instance = AppHarness::with_settings(json!({ "initialView": "dayGridMonth" }));
    let today = Utc::now().date_naive();
    let overdue = today - Days::new(3);
    let later = today + Days::new(2);
    let far = today + Days::new(20);
    instance.write_note(
        "Pay rent.md",
        &format!("title: Pay rent\nallDay: true\ndate: {overdue}\ncompleted: false"),
    );
    instance.write_note(
        "Filed.md",
        &format!("title: Filed\nallDay: true\ndate: {overdue}\ncompleted: true"),
    );
    instance.write_note(
        "Call Ada.md",
        &format!("title: Call Ada\nallDay: true\ndate: {later}\ncompleted: false"),
    );
    instance.write_note(
        "Dinner.md",
        &format!(
            "title: Dinner\nallDay: false\ndate: {later}\nstartTime: '19:00'\nendTime: '21:00'"
        ),
    );
    instance.write_note(
        "Far away.md",
        &format!("title: Far away\nallDay: true\ndate: {far}"),
    );
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;

    session.press("a").await;
    session
        .wait_for("document.body.dataset.view === 'agenda'")
        .await;
    let rent = ".fc-list-event.almanac-overdue[data-title='Pay rent']";
    session
        .wait_for(&format!("document.querySelector(\"{rent}\")"))
        .await;
    session
        .wait_for("document.querySelector(\".fc-list-event[data-title='Dinner']\")")
        .await;
    // Grouped by day: the rent under today's heading, Ada and dinner under
    // theirs; a done task is no overdue one, and the 20th day is not listed.
    let listed = session
        .execute(
            "return [...document.querySelectorAll('.fc-list-day, .fc-list-event')].map(row => \
             row.classList.contains('fc-list-day') ? 'day ' + row.dataset.date : row.dataset.title)",
            json!([]),
        )
        .await;
    let listed: Vec<String> = serde_json::from_value(listed).unwrap();
    assert_eq!(
        listed,
        [
            format!("day {today}"),
            "Pay rent".to_string(),
            format!("day {later}"),
            "Call Ada".to_string(),
            "Dinner".to_string(),
        ],
    );

    // Ticking the overdue task writes it in its note; it then leaves the list.
    let note = instance.vault().join("events/Pay rent.md");
    session.click(&format!("{rent} input.almanac-task")).await;
    support::eventually("the tick written", || async {
        std::fs::read_to_string(&note)
            .ok()
            .filter(|text| !text.contains("completed: false"))
    })
    .await;
    session
        .wait_for(&format!("!document.querySelector(\"{rent}\")"))
        .await;
    session.end().await;
}
