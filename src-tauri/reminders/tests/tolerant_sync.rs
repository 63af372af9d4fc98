//! `/sync` as the Full Calendar plugin's host sends it: ids
//! `<event id>::<start>`, `obsidian://open?vault=…&file=…` URLs, and an
//! item whose trigger slipped a second into the past on the way. Late items
//! within the grace window are accepted and fire at once; older ones are
//! reported as expired; a malformed element still refuses the whole array.

use crate::common;

use std::time::Duration;

use almanac_reminders::{DaemonConfig, Notification};
use common::{TestDaemon, config, now_epoch, plugin_item};
use serde_json::{Value, json};

#[tokio::test]
async fn an_item_a_second_late_fires_at_once_and_the_rest_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    let now = now_epoch();
    let late = plugin_item("2026-11-23", "09:30", "Standup", now - 1);
    let ahead = [
        plugin_item("2026-11-23", "14:00", "Review", now + 3600),
        plugin_item("2026-11-24", "09:30", "Standup", now + 86_400),
        plugin_item("2026-11-25", "11:00", "Planning", now + 2 * 86_400),
    ];
    let mut payload = vec![late.clone()];
    payload.extend(ahead.iter().cloned());

    let (status, answer) = daemon.post("/sync", &Value::from(payload)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["received"], 4);
    assert_eq!(answer["scheduled"], 4);
    assert_eq!(
        answer["late"],
        json!([{"id": late["id"], "trigger_at_epoch": now - 1}])
    );
    assert_eq!(answer["expired"], json!([]));

    match daemon.next_notification().await {
        Notification::Reminder { reminder, .. } => {
            assert_eq!(
                reminder.id,
                "fullnote:events/2026-11-23 Standup.md::2026-11-23T09:30"
            );
            assert_eq!(
                reminder.action_url,
                "obsidian://open?vault=My%20Vault&file=events%2F2026-11-23%20Standup.md"
            );
        }
        other => panic!("expected the late item on its own, got {other:?}"),
    }
    let stored: Vec<Value> = ahead.iter().map(|item| item["id"].clone()).collect();
    assert_eq!(daemon.event_ids().await, stored);
    // Fired once: the host re-sending it (it has not noticed yet) skips it.
    let (_, again) = daemon.post("/sync", &json!([late])).await;
    assert_eq!(again["skipped_already_fired"], 1);
    assert!(daemon.notifications.try_recv().is_err());
}

#[tokio::test]
async fn items_older_than_the_grace_window_expire_instead_of_failing_the_sync() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start_with(DaemonConfig {
        grace_window: Duration::from_secs(3600),
        ..config(&dir.path().join("db"))
    })
    .await;
    let now = now_epoch();
    let old = plugin_item("2026-11-20", "09:30", "Standup", now - 7200);
    let ahead = plugin_item("2026-11-24", "09:30", "Standup", now + 600);
    let (status, answer) = daemon
        .post("/sync", &json!([old.clone(), ahead.clone()]))
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        (answer["received"].clone(), answer["scheduled"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(
        answer["expired"],
        json!([{"id": old["id"], "trigger_at_epoch": now - 7200}])
    );
    assert_eq!(answer["late"], json!([]));
    assert_eq!(daemon.event_ids().await, [ahead["id"].clone()]);
    assert!(daemon.notifications.try_recv().is_err(), "nothing shown");
}

#[tokio::test]
async fn a_malformed_element_still_refuses_the_whole_array_naming_index_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let now = now_epoch();
    let mut broken = plugin_item("2026-11-24", "09:30", "Standup", now + 600);
    broken["trigger_at_epoch"] = json!("2026-11-24T09:30");
    let (status, body) = daemon
        .post(
            "/sync",
            &json!([
                plugin_item("2026-11-23", "09:30", "Standup", now - 1),
                plugin_item("2026-11-23", "14:00", "Review", now + 60),
                broken,
            ]),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], "invalid_payload");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("element 2, field `trigger_at_epoch`:"),
        "{message}"
    );
    assert!(daemon.event_ids().await.is_empty(), "nothing changed");
}
