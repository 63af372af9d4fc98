//! An Obsidian Tasks calendar in the window: the vault's task lines show on
//! the calendar, and ticking one there rewrites that line only, as the Tasks
//! plugin would (`[x]` and a done date), every other byte of the note kept.

use crate::support;

use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

#[tokio::test]
async fn ticking_a_task_in_the_window_rewrites_its_line_only() {
    let instance = AppHarness::with_settings(json!({
        "initialView": "dayGridMonth",
        "calendarSources": [
            {"id": "tasks_1", "name": "Tasks", "color": "#2e7d32", "type": "tasks", "directory": ""}
        ],
    }));
    let today = chrono::Utc::now().date_naive();
    let inbox = instance.vault().join("Inbox.md");
    let before = format!(
        "# Inbox\r\n\r\nSome notes first.\r\n\r\n- [ ] Pay rent #home 📅 {today}\r\n\
         > - [ ] Call the bank ⏳ {today} 🔼\r\n- [x] Old one 📅 {today} ✅ {today}\r\n\
         - plain list item\r\n"
    );
    std::fs::write(&inbox, &before).unwrap();
    let session = Session::start(&instance, "calendar", Theme::Light).await;

    // Both open tasks are on the calendar, each with its box.
    let rent = ".fc-event[data-title='Pay rent #home'] input.almanac-task";
    session
        .wait_for(&format!("document.querySelector(\"{rent}\")"))
        .await;
    session
        .wait_for(
            "document.querySelector(\".fc-event[data-title='Call the bank'] input.almanac-task\")",
        )
        .await;
    assert!(
        !session
            .execute(
                "return document.querySelector(arguments[0]).checked",
                json!([rent])
            )
            .await
            .as_bool()
            .unwrap()
    );

    session.click(rent).await;
    let after = support::eventually("the tick written", || async {
        std::fs::read_to_string(&inbox)
            .ok()
            .filter(|t| *t != before)
    })
    .await;
    assert_eq!(
        after,
        before.replace(
            &format!("- [ ] Pay rent #home 📅 {today}\r\n"),
            &format!("- [x] Pay rent #home 📅 {today} ✅ {today}\r\n")
        ),
        "only the ticked line changed"
    );
    session
        .wait_for(&format!("document.querySelector(\"{rent}\").checked"))
        .await;
    session.end().await;
}
