//! Webhooks end to end: real deliveries over loopback HTTP to a Python
//! receiver that verifies each with the Standard Webhooks reference library
//! (`standardwebhooks`, pinned in
//! `src-tauri/testkit/webhook_receiver/requirements.txt`),
//! signing secrets in the real OS keyring. Run with
//! `scripts/session.sh cargo nextest run -p almanac-core -E 'test(/^webhooks::/)'`; without
//! a Secret Service or the venv these tests fail, they do not skip.

use std::collections::BTreeSet;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use almanac_core::changes::{About, ChangeFeed, ChangeKind};
use almanac_core::webhooks::{
    CreatedHook, Delivery, Hook, KeyringSigningSecrets, LOG_FILE, MAX_HOOKS, NewHook, QUEUE_BOUND,
    RetryPolicy, SENDS_AT_ONCE, Skipped, WebhookError, Webhooks,
};
use almanac_testkit::{
    InstanceBuilder, WebhookReceiver as Receiver, captured_logs, files_containing, logs_text,
};
use axum::http::StatusCode;
use notify::event::{EventKind, ModifyKind, RenameMode};
use notify::{RecursiveMode, Watcher};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use uuid::Uuid;

const WAIT: Duration = Duration::from_secs(20);

const STANDUP: &str =
    "---\ntitle: Standup\ndate: 2026-01-05\nstartTime: \"09:00\"\nendTime: \"09:15\"\n---\n";

/// Creates a hook as the settings window does (off the async workers: the
/// keyring blocks).
async fn create(webhooks: &Webhooks, url: String, events: &[&str]) -> CreatedHook {
    let (webhooks, events) = (
        webhooks.clone(),
        events.iter().map(|e| e.to_string()).collect(),
    );
    tokio::task::spawn_blocking(move || webhooks.create(NewHook { url, events }))
        .await
        .unwrap()
        .expect("the hook is created")
}

/// Awaits `ready` on hook `id`'s delivery log (written after each attempt).
async fn log_until(
    webhooks: &Webhooks,
    id: Uuid,
    what: &str,
    ready: impl Fn(&[Delivery]) -> bool,
) -> Vec<Delivery> {
    let deadline = Instant::now() + WAIT;
    loop {
        let log = webhooks.deliveries(id).unwrap();
        if ready(&log) {
            return log;
        }
        assert!(Instant::now() < deadline, "{what}: the log is {log:#?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn hook(webhooks: &Webhooks, id: Uuid) -> Hook {
    let hooks = webhooks.hooks().unwrap();
    hooks.into_iter().find(|h| h.id == id).expect("the hook")
}

/// What `secret-tool` (libsecret, a separate client) finds for a hook.
fn keyring_lookup(id: Uuid) -> Option<String> {
    let output = Command::new("secret-tool")
        .args(["lookup", "service", "almanac-webhook", "username"])
        .arg(id.to_string())
        .output()
        .expect("secret-tool (libsecret-tools) is installed");
    output
        .status
        .success()
        .then(|| String::from_utf8(output.stdout).unwrap())
}

fn assert_verifies(report: &Value) {
    assert_eq!(report["error"], Value::Null, "{report:#}");
    assert_eq!(
        report["replayError"], "Message timestamp too old",
        "a replay six minutes later must not verify: {report:#}"
    );
    assert_eq!(
        report["tamperedError"], "No matching signature found",
        "{report:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_on_disk_is_delivered_signed_and_its_replay_does_not_verify() {
    captured_logs();
    let app = InstanceBuilder::new()
        .note("events/2026-01-05 Standup.md", STANDUP)
        .open()
        .await;
    let mut receiver = Receiver::start(200);
    let created = create(
        &app.webhooks,
        receiver.url(),
        &["event.created", "event.updated"],
    )
    .await;
    receiver.knows(created.secret.expose());
    let id = created.hook.id;
    let secret = created.secret.expose().to_string();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(
        keyring_lookup(id).as_deref(),
        Some(secret.as_str()),
        "the secret is in the OS keyring"
    );

    let note = app.dir.path().join("vault/events/2026-01-05 Standup.md");
    std::fs::write(&note, STANDUP.replace("Standup", "Standup moved")).unwrap();
    let report = receiver.next();
    assert_verifies(&report);
    assert_eq!(report["body"]["type"], "event.updated", "{report:#}");
    let data = &report["body"]["data"];
    assert_eq!(data["type"], "event.updated");
    assert_eq!(data["calendarId"], "local");
    assert_eq!(data["eventId"], "fullnote:events/2026-01-05 Standup.md");
    assert_eq!(report["body"]["timestamp"], data["at"]);
    let webhook_id = report["headers"]["webhook-id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(webhook_id.starts_with("msg_"), "{webhook_id}");
    assert_eq!(report["headers"]["content-type"], "application/json");

    std::fs::write(
        app.dir.path().join("vault/events/2026-01-06 Review.md"),
        STANDUP.replace("Standup", "Review"),
    )
    .unwrap();
    let report = receiver.next();
    assert_verifies(&report);
    assert_eq!(report["body"]["type"], "event.created", "{report:#}");
    assert_ne!(report["headers"]["webhook-id"], webhook_id.as_str());

    let log = log_until(&app.webhooks, id, "both delivered", |log| log.len() == 2).await;
    assert!(
        log.iter()
            .all(|d| d.ok && d.status == Some(200) && d.attempt == 1),
        "{log:#?}"
    );
    assert_eq!(log[0].webhook_id, webhook_id);
    assert_eq!(log[0].entry_type, "event.updated");

    assert_eq!(
        files_containing(app.dir.path(), &secret),
        Vec::<std::path::PathBuf>::new(),
        "the secret reached a file (settings.json, webhooks.json, the delivery log…)"
    );
    assert!(!logs_text().contains(&secret), "the secret was logged");
    assert!(app.dir.path().join("data/webhooks.json").exists());

    let webhooks = app.webhooks.clone();
    tokio::task::spawn_blocking(move || webhooks.delete(id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(keyring_lookup(id), None, "deleting left the secret behind");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_receiver_gets_every_attempt_then_the_hook_is_turned_off() {
    let dir = tempfile::tempdir().unwrap();
    let policy = RetryPolicy {
        delays: vec![Duration::from_millis(20), Duration::from_millis(40)],
        disable_after: 2,
        timeout: Duration::from_secs(5),
    };
    let open = || {
        Webhooks::open(
            dir.path(),
            Arc::new(KeyringSigningSecrets::default()),
            policy.clone(),
        )
    };
    let webhooks = open();
    let feed = ChangeFeed::default();
    webhooks.follow(feed.clone());
    let mut failing = Receiver::start(500);
    let mut healthy = Receiver::start(200);
    let bad = create(&webhooks, failing.url(), &["event.created"]).await;
    let good = create(&webhooks, healthy.url(), &["event.created"]).await;
    failing.knows(bad.secret.expose());
    healthy.knows(good.secret.expose());
    let created = |event: &str| About::calendar(ChangeKind::EventCreated, "local", Some(event));

    for (round, event) in ["first", "second"].into_iter().enumerate() {
        feed.push([created(event)]);
        let attempts: Vec<Value> = (0..3).map(|_| failing.next()).collect();
        for report in &attempts {
            assert_verifies(report);
            assert_eq!(report["body"]["data"]["eventId"], event);
            assert_eq!(
                report["headers"]["webhook-id"], attempts[0]["headers"]["webhook-id"],
                "every attempt of one entry has the same webhook-id"
            );
        }
        assert_verifies(&healthy.next());
        let log = log_until(&webhooks, bad.hook.id, "three attempts logged", |log| {
            log.len() == 3 * (round + 1)
        })
        .await;
        let this_round = &log[3 * round..];
        assert_eq!(
            this_round.iter().map(|d| d.attempt).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert!(
            this_round.iter().all(|d| !d.ok
                && d.status == Some(500)
                && d.error.as_deref() == Some("HTTP 500 Internal Server Error")),
            "{this_round:#?}"
        );
    }
    // The log is written after the attempt; the count right after it.
    let deadline = Instant::now() + WAIT;
    while hook(&webhooks, bad.hook.id).enabled {
        assert!(Instant::now() < deadline, "the failing hook stays on");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let turned_off = hook(&webhooks, bad.hook.id);
    let reason = turned_off.disabled_reason.clone().unwrap();
    assert!(
        reason.contains("2 deliveries in a row failed") && reason.contains("HTTP 500"),
        "{reason}"
    );
    assert!(hook(&webhooks, good.hook.id).enabled);

    // Off means off: the next entry goes only to the healthy hook.
    feed.push([created("third")]);
    assert_eq!(healthy.next()["body"]["data"]["eventId"], "third");
    assert_eq!(webhooks.deliveries(bad.hook.id).unwrap().len(), 6);

    // The state and the log survive a restart. The log's writer may still
    // be saving when the webhooks are dropped (it holds them until it is
    // done, and the last save comes with that), so the reopened log is
    // awaited, not read at once: a log that lost entries never gets there.
    drop(webhooks);
    let deadline = Instant::now() + WAIT;
    let webhooks = loop {
        let webhooks = open();
        if webhooks.deliveries(bad.hook.id).unwrap().len() == 6 {
            break webhooks;
        }
        assert!(
            Instant::now() < deadline,
            "the log lost entries in the restart"
        );
        drop(webhooks);
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(hook(&webhooks, bad.hook.id), turned_off);
    assert_eq!(webhooks.deliveries(bad.hook.id).unwrap().len(), 6);
    let on = webhooks.set_enabled(bad.hook.id, true).unwrap();
    assert!(on.enabled && on.disabled_reason.is_none() && on.consecutive_failures == 0);

    for secret in [bad.secret.expose(), good.secret.expose()] {
        assert!(files_containing(dir.path(), secret).is_empty());
    }
    for created in [bad, good] {
        let webhooks = webhooks.clone();
        let id = created.hook.id;
        tokio::task::spawn_blocking(move || webhooks.delete(id))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(keyring_lookup(id), None);
    }
}

/// A receiver that accepts every connection and never answers, holding
/// each open; `accepted` hears of each.
async fn never_answers() -> (String, mpsc::UnboundedReceiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (accepted, heard) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((connection, _)) = listener.accept().await {
            held.push(connection);
            if accepted.send(()).is_err() {
                return;
            }
        }
    });
    (url, heard)
}

/// A receiver answering 204 at once, telling the feed id of each entry.
async fn answers_at_once() -> (String, mpsc::UnboundedReceiver<u64>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (delivered, heard) = mpsc::unbounded_channel();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
            let delivered = delivered.clone();
            async move {
                let _ = delivered.send(body["data"]["id"].as_u64().expect("a feed id"));
                StatusCode::NO_CONTENT
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, heard)
}

/// The next message on `channel`, at most [`WAIT`] away.
async fn next<T>(channel: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    tokio::time::timeout(WAIT, channel.recv())
        .await
        .unwrap_or_else(|_| panic!("{what}: nothing came"))
        .expect("the sender lives")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_receiver_that_never_answers_holds_its_queue_at_the_bound_and_the_other_hook_is_served() {
    let dir = tempfile::tempdir().unwrap();
    // Every attempt to the hanging receiver outlasts the test.
    let policy = RetryPolicy {
        delays: vec![],
        disable_after: 1_000,
        timeout: Duration::from_secs(600),
    };
    let webhooks = Webhooks::open(
        dir.path(),
        Arc::new(KeyringSigningSecrets::default()),
        policy,
    );
    let feed = ChangeFeed::default();
    webhooks.follow(feed.clone());
    let (hanging_url, mut accepted) = never_answers().await;
    let (healthy_url, mut delivered) = answers_at_once().await;
    let hanging = create(&webhooks, hanging_url, &["event.created"]).await;
    let healthy = create(&webhooks, healthy_url, &["event.created"]).await;

    // Each time the log's file is replaced (written atomically: a rename).
    let (written, mut writes) = mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if event.kind == EventKind::Modify(ModifyKind::Name(RenameMode::To))
            && event.paths.iter().any(|p| p.ends_with(LOG_FILE))
        {
            let _ = written.send(());
        }
    })
    .unwrap();
    watcher
        .watch(dir.path(), RecursiveMode::NonRecursive)
        .unwrap();

    // Thousands of changes, a hundred at a time, each hundred delivered to
    // the healthy receiver before the next (so its queue never fills).
    const BATCH: u64 = 100;
    const ENTRIES: u64 = 3_000;
    let mut received = BTreeSet::new();
    for batch in 0..ENTRIES / BATCH {
        feed.push((0..BATCH).map(|i| {
            let event = format!("e{}", batch * BATCH + i);
            About::calendar(ChangeKind::EventCreated, "local", Some(&event))
        }));
        while received.len() < ((batch + 1) * BATCH) as usize {
            received.insert(next(&mut delivered, "the healthy receiver's delivery").await);
        }
        if batch == 0 {
            for _ in 0..SENDS_AT_ONCE {
                next(&mut accepted, "a send to the hanging receiver").await;
            }
        }
    }
    assert_eq!(received, (1..=ENTRIES).collect(), "every entry, once");
    assert!(
        accepted.try_recv().is_err(),
        "only {SENDS_AT_ONCE} sends to the hanging receiver at a time"
    );

    // The hanging hook's four entries (1 to 4) are being sent, the newest
    // thousand wait, and the ones between were dropped, counted in one row.
    let skipped = ENTRIES - QUEUE_BOUND as u64 - SENDS_AT_ONCE as u64;
    let log = log_until(
        &webhooks,
        hanging.hook.id,
        "the skipped entries counted",
        |log| {
            log.last()
                .and_then(|row| row.skipped)
                .is_some_and(|s| s.count == skipped)
        },
    )
    .await;
    let [row] = log.as_slice() else {
        panic!("one row, no attempt finished: {log:#?}")
    };
    assert_eq!((row.entry_id, row.attempt, row.ok), (5, 0, false));
    assert_eq!(
        row.skipped,
        Some(Skipped {
            count: skipped,
            last_entry_id: 2_000
        })
    );
    let error = row.error.as_deref().unwrap();
    assert!(
        error.starts_with("1996 entries not sent (feed ids 5 to 2000)")
            && error.contains("GET /api/v1/changes?since=4"),
        "{error}"
    );
    let healthy_log = webhooks.deliveries(healthy.hook.id).unwrap();
    assert!(
        healthy_log.iter().all(|d| d.ok && d.skipped.is_none()),
        "{healthy_log:#?}"
    );

    // The log reached its file, a few times rather than once per attempt.
    next(&mut writes, "the delivery log written").await;
    let mut times = 1;
    while writes.try_recv().is_ok() {
        times += 1;
    }
    assert!(
        times * 10 < ENTRIES,
        "the log was written {times} times for {ENTRIES} attempts"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_hook_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let webhooks = Webhooks::open(
        dir.path(),
        Arc::new(KeyringSigningSecrets::default()),
        RetryPolicy::default(),
    );
    let refused = tokio::task::spawn_blocking(move || {
        webhooks.create(NewHook {
            url: "file:///etc/passwd".into(),
            events: vec!["event.created".into()],
        })
    })
    .await
    .unwrap();
    assert!(
        matches!(refused, Err(WebhookError::Invalid(_))),
        "{refused:?}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// The user may set 20 hooks; the 21st is refused by name and not kept.
#[tokio::test]
async fn a_twenty_first_hook_is_refused_and_nothing_of_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let webhooks = Webhooks::open(
        dir.path(),
        Arc::new(KeyringSigningSecrets::default()),
        RetryPolicy::default(),
    );
    let refused = tokio::task::spawn_blocking(move || {
        let new = |n: usize| NewHook {
            url: format!("http://127.0.0.1:9/hook-{n}"),
            events: vec!["event.created".into()],
        };
        let made: Vec<_> = (0..MAX_HOOKS)
            .map(|n| webhooks.create(new(n)).expect("within the bound"))
            .collect();
        let refused = webhooks.create(new(MAX_HOOKS));
        let kept = webhooks.hooks().unwrap().len();
        for created in made {
            webhooks.delete(created.hook.id).unwrap();
        }
        (refused, kept)
    })
    .await
    .unwrap();
    let (refused, kept) = refused;
    let error = refused.expect_err("a 21st hook");
    assert!(matches!(error, WebhookError::TooMany), "{error:?}");
    assert!(error.to_string().contains("at most 20 webhooks"), "{error}");
    assert_eq!(kept, MAX_HOOKS);
}
