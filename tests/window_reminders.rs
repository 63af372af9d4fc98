//! The Reminders window: fired and upcoming reminders, with Open and Snooze
//! working from the window (the path that works where notifications have no
//! action buttons).

use crate::support;

use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};
use support::{epoch_now, eventually, port_open};

const URL: &str = "obsidian://open?vault=Almanac&file=Plants";

#[tokio::test]
async fn fired_reminder_can_be_snoozed_and_opened_from_the_window() {
    let instance = AppHarness::new();
    let opened = instance.register_url_handler();
    let session = Session::start(&instance, "reminders", Theme::Light).await;
    eventually("the reminder daemon", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;
    // Seen as upcoming first (an hour away, so it cannot fire before the
    // window shows it), then re-synced to fire in a moment.
    let plants = |trigger_at_epoch: i64| {
        json!([{ "id": "plants", "title": "Water the plants", "body": "Balcony first",
            "trigger_at_epoch": trigger_at_epoch, "action_url": URL }])
    };
    instance.sync_reminders(plants(epoch_now() + 3600)).await;
    session
        .wait_for("document.querySelector('#upcoming tr[data-reminder-id=plants]')")
        .await;

    // It fires and moves to "Recently fired" by itself.
    instance.sync_reminders(plants(epoch_now() + 2)).await;
    session
        .wait_for("document.querySelector('#fired tr[data-reminder-id=plants]')")
        .await;
    session
        .wait_for("!document.querySelector('#upcoming tr[data-reminder-id=plants]')")
        .await;

    // Snooze for 10 minutes: upcoming again, marked snoozed, due in ~10 min.
    let row = "#fired tr[data-reminder-id=plants]";
    session
        .execute(
            &format!("document.querySelector('{row} select').value = '10'"),
            json!([]),
        )
        .await;
    session.click(&format!("{row} button.snooze")).await;
    let snoozed = "#upcoming tr[data-reminder-id=plants]";
    session
        .wait_for(&format!("document.querySelector('{snoozed}')"))
        .await;
    assert!(session.text(snoozed).await.contains("snoozed"));
    let status: serde_json::Value =
        reqwest::get(format!("http://127.0.0.1:{}/next", instance.daemon_port))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let due = status.to_string();
    assert!(due.contains("plants"), "{due}");

    // Open runs the system opener on the action_url.
    session.click(&format!("{snoozed} button.open")).await;
    let recorded = eventually("xdg-open to run the obsidian: handler", || async {
        std::fs::read_to_string(&opened)
            .ok()
            .filter(|s| !s.is_empty())
    })
    .await;
    assert_eq!(recorded.trim(), URL);
    session.end().await;
    support::dismiss_notifications();
}
