//! A fired reminder runs the user's reminder hook (`reminders.hookCommand`)
//! with the reminder as JSON on its standard input, and shows in the change
//! feed as `reminder.fired`; no token may set the hook.

use crate::support;

use almanac_core::tokens::Scope;
use serde_json::{Value, json};
use support::instance::AppHarness;
use support::{epoch_now, eventually, port_open, require_desktop_session};

#[tokio::test]
async fn a_fired_reminder_runs_the_hook_and_enters_the_change_feed() {
    require_desktop_session();
    let scratch = tempfile::tempdir().unwrap();
    let received = scratch.path().join("hook.json");
    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "reminders": {"hookCommand": format!("cat > '{}'", received.display())},
    }));
    let token = instance.mint_token(&[Scope::EventsRead, Scope::SystemFullAccess]);
    let _app = instance.spawn(&[]);
    eventually("the REST server and the reminder daemon", || async {
        (port_open(instance.rest_port) && port_open(instance.daemon_port)).then_some(())
    })
    .await;
    let client = reqwest::Client::new();
    let changes = |query: String| {
        client
            .get(format!("{}/changes{query}", instance.api()))
            .bearer_auth(&token)
            .send()
    };
    let start: Value = changes(String::new()).await.unwrap().json().await.unwrap();
    let since = start["last"].as_u64().unwrap();

    instance
        .sync_reminders(json!([{
            "id": "hooked", "title": "Hooked reminder", "body": "Water the plants",
            "trigger_at_epoch": epoch_now() + 2, "action_url": "",
        }]))
        .await;

    let hook_input = eventually("the hook to write what it read", || async {
        std::fs::read_to_string(&received)
            .ok()
            .filter(|text| text.ends_with('\n'))
    })
    .await;
    let reminder: Value = serde_json::from_str(&hook_input).unwrap();
    assert_eq!(reminder["id"], "hooked", "{hook_input}");
    assert_eq!(reminder["title"], "Hooked reminder");
    assert_eq!(reminder["body"], "Water the plants");

    let page: Value = changes(format!("?since={since}&timeout=20"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let fired: Vec<&Value> = page["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "reminder.fired")
        .collect();
    assert_eq!(fired.len(), 1, "{page}");
    assert_eq!(fired[0]["reminderId"], "hooked");

    // No token may change the hook, not even one with full access.
    let refused = client
        .put(format!("{}/settings", instance.api()))
        .bearer_auth(&token)
        .json(&json!({"settings": {"reminders": {"hookCommand": "true"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), reqwest::StatusCode::FORBIDDEN);
    let said: Value = refused.json().await.unwrap();
    assert!(
        said["message"]
            .as_str()
            .unwrap()
            .contains("reminders.hookCommand"),
        "{said}"
    );
    support::dismiss_notifications();
}
