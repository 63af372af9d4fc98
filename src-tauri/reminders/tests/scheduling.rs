//! Firing: order, once-only, snoozes, missed reminders across restarts, and
//! the shell's handle. Notifications are awaited on a channel; nothing here
//! asserts on timing.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use almanac_reminders::store::{Changes, ReminderStore, SledStore};
use almanac_reminders::{DaemonConfig, Notification, Origin, Outcome, Reminder};
use common::{TestDaemon, config, now_epoch, reminder};
use serde_json::json;

/// The reminder of a single-reminder notification.
fn fired(notification: Notification) -> Reminder {
    match notification {
        Notification::Reminder { reminder, .. } => reminder,
        other => panic!("expected a reminder, got {other:?}"),
    }
}

/// Waits until the wall clock has passed `epoch` (for reminders that must
/// come due while the daemon is stopped).
async fn wait_until_past(epoch: i64) {
    while now_epoch() <= epoch {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn reminders_fire_in_trigger_order_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    let now = now_epoch();
    daemon
        .sync(&[
            reminder("c", now + 3),
            reminder("b", now + 2),
            reminder("a", now + 2),
            reminder("far", now + 3600),
        ])
        .await;
    let order: Vec<String> = [
        daemon.next_notification().await,
        daemon.next_notification().await,
        daemon.next_notification().await,
    ]
    .into_iter()
    .map(|n| fired(n).id)
    .collect();
    assert_eq!(order, ["a", "b", "c"]);

    // Re-syncing the fired instances does not fire them again (the host may
    // not have noticed yet); they are skipped, the rest is scheduled.
    let (status, body) = daemon
        .post(
            "/sync",
            &json!([reminder("far", now + 3600), reminder("d", now_epoch() + 1)]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(fired(daemon.next_notification().await).id, "d");
    assert_eq!(daemon.event_ids().await, vec!["far"]);
    assert!(
        daemon.notifications.try_recv().is_err(),
        "nothing else fired"
    );

    let (_, body) = daemon.get("/events").await;
    let recent: Vec<&str> = body["recently_fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(recent, ["d", "c", "b", "a"]);
    assert_eq!(body["recently_fired"][0]["outcome"], "fired");
}

#[tokio::test]
async fn a_fired_instance_stays_fired_across_restart_and_resync() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    let trigger = now_epoch() + 1;
    daemon.sync(&[reminder("once", trigger)]).await;
    assert_eq!(fired(daemon.next_notification().await).id, "once");
    daemon.stop().await;

    let mut daemon = TestDaemon::start(dir.path()).await;
    assert!(
        daemon.notifications.try_recv().is_err(),
        "no summary: it fired"
    );
    assert_eq!(daemon.handle().recently_fired()[0].reminder.id, "once");
    // The fired key is on disk, so if the clock is ever set back and the
    // host re-sends this instance, it is skipped (see the schedule's tests).
    let (_, body) = daemon.get("/storage").await;
    assert_eq!(body["fired_keys"], 1);
}

#[tokio::test]
async fn snoozing_a_fired_reminder_fires_it_again_and_survives_syncs() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    let now = now_epoch();
    daemon.sync(&[reminder("meeting", now + 1)]).await;
    let actions = match daemon.next_notification().await {
        Notification::Reminder { actions, .. } => actions,
        other => panic!("{other:?}"),
    };
    // The usual case: the user snoozes a notification that already fired.
    let before = now_epoch();
    let snoozed = actions.snooze(1).await.expect("snooze");
    assert!((before + 60..=now_epoch() + 60).contains(&snoozed.trigger_at_epoch));
    let events = daemon.handle().upcoming(10);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].origin, Origin::Snoozed);

    // A sync of the host's set (which never contains snoozes) leaves it.
    daemon.sync(&[reminder("other", now + 3600)]).await;
    daemon.sync(&[]).await;
    let upcoming = daemon.handle().upcoming(10);
    assert_eq!(upcoming.len(), 1, "{upcoming:?}");
    assert_eq!(upcoming[0].reminder.id, "meeting");

    // Snoozing through HTTP for one minute, then through the handle with a
    // different duration replaces (not duplicates) the snooze.
    let (status, _) = daemon
        .post(
            "/snooze",
            &json!({"id": "meeting", "title": "T", "body": "B", "action_url": "obsidian://x", "minutes": 3}),
        )
        .await;
    assert_eq!(status, 200);
    daemon.handle().snooze("meeting", 2).await.unwrap();
    let upcoming = daemon.handle().upcoming(10);
    assert_eq!(upcoming.len(), 1);
    assert_eq!(upcoming[0].reminder.title, "T");
}

#[tokio::test]
async fn a_snoozed_reminder_fires_at_its_new_time() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let now = now_epoch();
    // Snoozing a pending synced reminder consumes that instance: the host's
    // next sync (still carrying it) must not bring it back.
    daemon.sync(&[reminder("x", now + 3600)]).await;
    daemon.handle().snooze("x", 1).await.unwrap();
    daemon.sync(&[reminder("x", now + 3600)]).await;
    let upcoming = daemon.handle().upcoming(10);
    assert_eq!(upcoming.len(), 1);
    assert_eq!(upcoming[0].origin, Origin::Snoozed);
    let (_, body) = daemon.get("/next").await;
    assert_eq!(body["next_event"]["origin"], "snoozed");
    assert!(body["next_event"]["seconds_until_fire"].as_i64().unwrap() <= 60);
}

#[tokio::test]
async fn notification_actions_open_the_url_and_the_handle_opens_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    daemon
        .sync(&[
            reminder("doc", now_epoch() + 1),
            reminder("later", now_epoch() + 3600),
        ])
        .await;
    let Notification::Reminder {
        actions, origin, ..
    } = daemon.next_notification().await
    else {
        panic!("expected a reminder");
    };
    assert_eq!(origin, Origin::Synced);
    actions.open().unwrap();
    assert_eq!(daemon.next_opened().await, "obsidian://open?file=doc");
    daemon.handle().open("later").unwrap();
    assert_eq!(daemon.next_opened().await, "obsidian://open?file=later");
    daemon.handle().open("doc").unwrap();
    assert_eq!(daemon.next_opened().await, "obsidian://open?file=doc");
    assert!(daemon.handle().open("unknown").is_err());
    assert!(daemon.handle().snooze("unknown", 5).await.is_err());
    assert!(daemon.handle().snooze("later", 0).await.is_err());

    // After shutdown the notification's actions do nothing (and say so).
    daemon.stop().await;
    assert!(actions.open().is_err());
}

#[tokio::test]
async fn reminders_missed_while_closed_fire_as_one_summary_or_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("reminders.sled");
    let now = now_epoch();
    {
        // The state a daemon left behind before the app was closed for two
        // days: one reminder came due an hour ago, one yesterday morning,
        // one two days ago, one is still ahead.
        let store = SledStore::open(&db_path).unwrap();
        let put = |id: &str, trigger| {
            (
                Origin::Synced,
                Arc::new(Reminder::from_host(
                    id.into(),
                    format!("Title {id}"),
                    String::new(),
                    trigger,
                    String::new(),
                )),
            )
        };
        store
            .commit(&Changes {
                put: vec![
                    put("hour-ago", now - 3600),
                    put("yesterday", now - 20 * 3600),
                    put("two-days-ago", now - 48 * 3600),
                    put("ahead", now + 3600),
                ],
                ..Changes::default()
            })
            .unwrap();
    }
    let mut daemon = TestDaemon::start_with(config(&db_path)).await;
    match daemon.next_notification().await {
        Notification::MissedSummary { missed } => {
            let ids: Vec<&str> = missed.iter().map(|r| r.id.as_str()).collect();
            assert_eq!(ids, ["hour-ago", "yesterday"]);
        }
        other => panic!("expected one summary, got {other:?}"),
    }
    assert!(
        daemon.notifications.try_recv().is_err(),
        "exactly one notification"
    );
    assert_eq!(daemon.event_ids().await, vec!["ahead"]);

    let recent = daemon.handle().recently_fired();
    let outcomes: Vec<(&str, Outcome)> = recent
        .iter()
        .map(|e| (e.reminder.id.as_str(), e.outcome))
        .collect();
    assert!(
        outcomes.contains(&("two-days-ago", Outcome::Dropped)),
        "{outcomes:?}"
    );
    assert!(
        outcomes.contains(&("hour-ago", Outcome::Missed)),
        "{outcomes:?}"
    );
    let (_, doctor) = daemon.get("/doctor").await;
    assert_eq!(
        doctor["missed_at_start"],
        json!({"fired": 0, "missed": 2, "dropped": 1})
    );
    assert_eq!(doctor["history"]["dropped"], 1);

    // Settled for good: the next start neither shows nor drops anything.
    daemon.stop().await;
    let mut daemon = TestDaemon::start_with(config(&db_path)).await;
    let (_, doctor) = daemon.get("/doctor").await;
    assert_eq!(
        doctor["missed_at_start"],
        json!({"fired": 0, "missed": 0, "dropped": 0})
    );
    assert!(daemon.notifications.try_recv().is_err());
}

#[tokio::test]
async fn a_reminder_due_during_a_real_restart_is_summarized() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("reminders.sled");
    let mut daemon = TestDaemon::start_with(config(&db_path)).await;
    let trigger = now_epoch() + 2;
    daemon.sync(&[reminder("while-closed", trigger)]).await;
    daemon.stop().await;
    wait_until_past(trigger).await;

    let mut daemon = TestDaemon::start_with(DaemonConfig {
        grace_window: Duration::from_secs(3600),
        ..config(&db_path)
    })
    .await;
    match daemon.next_notification().await {
        Notification::MissedSummary { missed } => assert_eq!(missed[0].id, "while-closed"),
        other => panic!("{other:?}"),
    }
    assert!(daemon.event_ids().await.is_empty());
}
