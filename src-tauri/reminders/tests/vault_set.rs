//! The vault set next to the host's: replaced whole through the handle,
//! never by a `/sync` (and the other way round), listed by the read routes
//! with its source and event, durable across a restart, and fired once.

use crate::common;

use almanac_reminders::{EventRef, Reminder, Source};
use common::{TestDaemon, now_epoch, reminder};
use serde_json::json;

fn vault(file: &str, trigger: i64) -> Reminder {
    Reminder {
        id: format!("fullnote:events/{file}::{}", (trigger + 60) * 1000),
        title: format!("Vault {file}"),
        body: "Starts in 1 minute".into(),
        trigger_at_epoch: trigger,
        action_url: format!("obsidian://open?vault=V&file=events%2F{file}"),
        source: Source::Vault,
        event: Some(Box::new(EventRef {
            id: format!("fullnote:events/{file}"),
            title: format!("Vault {file}"),
            path: format!("events/{file}"),
            start: "2026-11-23T09:30:00+00:00".into(),
        })),
    }
}

#[tokio::test]
async fn host_and_vault_sets_live_side_by_side_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    let ahead = now_epoch() + 3600;
    let summary = daemon
        .handle()
        .replace_vault_reminders(vec![vault("A.md", ahead), vault("B.md", ahead + 60)])
        .await
        .unwrap();
    assert_eq!((summary.received, summary.scheduled), (2, 2));
    daemon.sync(&[reminder("host", ahead + 30)]).await;
    // A host's empty set leaves the vault's alone, and the other way round.
    daemon.sync(&[]).await;
    daemon.sync(&[reminder("host", ahead + 30)]).await;
    daemon
        .handle()
        .replace_vault_reminders(vec![vault("A.md", ahead)])
        .await
        .unwrap();

    let (status, body) = daemon.get("/events").await;
    assert_eq!(status, 200);
    let events = body["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "{body}");
    assert_eq!(events[0]["source"], "vault");
    assert_eq!(events[0]["origin"], "vault");
    assert_eq!(
        events[0]["event"],
        json!({"id": "fullnote:events/A.md", "title": "Vault A.md",
               "path": "events/A.md", "start": "2026-11-23T09:30:00+00:00"})
    );
    assert_eq!(events[1]["id"], "host");
    assert_eq!(events[1]["source"], "host");
    assert!(events[1].get("event").is_none(), "{body}");
    let (_, next) = daemon.get("/next").await;
    assert_eq!(next["next_event"]["source"], "vault");
    let (_, status) = daemon.get("/status").await;
    assert_eq!(status["active_reminders"], 2);
    assert_eq!(status["next_event"]["source"], "vault");
    let upcoming = daemon.handle().upcoming(10);
    assert_eq!(upcoming[0].reminder.source, Source::Vault);
    assert_eq!(
        upcoming[0].reminder.event.as_ref().unwrap().title,
        "Vault A.md"
    );

    daemon.stop().await;
    let daemon = TestDaemon::start(dir.path()).await;
    let ids = daemon.event_ids().await;
    assert_eq!(ids, [vault("A.md", ahead).id, "host".to_string()]);
}

#[tokio::test]
async fn a_vault_reminder_fires_once_even_when_sent_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    let soon = vault("Soon.md", now_epoch() + 1);
    daemon
        .handle()
        .replace_vault_reminders(vec![soon.clone()])
        .await
        .unwrap();
    let shown = match daemon.next_notification().await {
        almanac_reminders::Notification::Reminder { reminder, .. } => reminder,
        other => panic!("{other:?}"),
    };
    assert_eq!(shown, soon);
    let history = daemon.handle().recently_fired();
    assert_eq!(history[0].reminder.source, Source::Vault);
    daemon.stop().await;

    // The vault keeps deriving the occurrence (it starts a minute later):
    // sent again after a restart, it is skipped.
    let mut daemon = TestDaemon::start(dir.path()).await;
    let summary = daemon
        .handle()
        .replace_vault_reminders(vec![soon])
        .await
        .unwrap();
    assert_eq!(summary.skipped_already_fired, 1);
    assert!(daemon.event_ids().await.is_empty());
    assert!(daemon.notifications.try_recv().is_err());
}

#[tokio::test]
async fn a_vault_reminder_breaking_a_rule_is_left_out_not_the_set() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let ahead = now_epoch() + 3600;
    let huge = Reminder {
        title: "x".repeat(10_000),
        ..vault("Huge.md", ahead)
    };
    let odd_link = Reminder {
        action_url: "file:///etc/passwd".into(),
        ..vault("Link.md", ahead)
    };
    let summary = daemon
        .handle()
        .replace_vault_reminders(vec![huge, odd_link, vault("Fine.md", ahead)])
        .await
        .unwrap();
    assert_eq!(summary.received, 2);
    let upcoming = daemon.handle().upcoming(10);
    let links: Vec<&str> = upcoming
        .iter()
        .map(|s| s.reminder.action_url.as_str())
        .collect();
    assert_eq!(links.len(), 2);
    assert!(
        links.contains(&""),
        "the refused link is dropped: {links:?}"
    );
}
