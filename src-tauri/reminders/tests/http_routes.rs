//! Every route over real HTTP: answers, validation errors, atomicity, the
//! browser-hardening refusals, and unknown paths and methods.

use crate::common;

use almanac_reminders::{Daemon, DaemonConfig, Limits, LogNotifier, StartError, SystemOpener};
use common::{TestDaemon, config, now_epoch, raw_request, reminder};
use serde_json::{Value, json};
use std::sync::Arc;

fn error_of(body: &Value) -> (&str, &str) {
    (
        body["error"].as_str().expect("error id"),
        body["message"].as_str().expect("message"),
    )
}

#[tokio::test]
async fn read_routes_answer_fcr_compatible_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let now = now_epoch();
    let answer = daemon
        .sync(&[reminder("later", now + 7200), reminder("soon", now + 3600)])
        .await;
    assert_eq!(answer["status"], "ok");
    assert_eq!(answer["received"], 2);
    assert_eq!(answer["scheduled"], 2);
    assert_eq!(answer["active_reminders"], 2);

    let (status, body) = daemon.get("/status").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "running");
    assert!(body["checked_at_epoch"].as_i64().unwrap() >= now);
    assert!(body["checked_at_rfc3339"].as_str().unwrap().contains('T'));
    assert_eq!(body["active_reminders"], 2);
    assert_eq!(body["next_event"]["id"], "soon");
    assert_eq!(body["storage"]["storage_exists"], true);
    assert!(
        body["storage"]["storage_url"]
            .as_str()
            .unwrap()
            .starts_with("file://")
    );
    assert!(body["storage"]["app_dir"].is_string());

    let (_, body) = daemon.get("/events").await;
    let events = body["events"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    let first = &events[0];
    for field in [
        "id",
        "title",
        "body",
        "trigger_at_epoch",
        "action_url",
        "trigger_at_rfc3339",
        "seconds_until_fire",
    ] {
        assert!(
            !first[field].is_null(),
            "events[0].{field} missing: {first}"
        );
    }
    assert_eq!(first["id"], "soon");
    let until = first["seconds_until_fire"].as_i64().unwrap();
    assert!((3590..=3600).contains(&until), "{until}");
    assert!(body["recently_fired"].as_array().unwrap().is_empty());

    let (_, body) = daemon.get("/next").await;
    assert_eq!(body["status"], "running");
    assert_eq!(body["next_event"]["id"], "soon");

    let (_, body) = daemon.get("/storage").await;
    assert_eq!(body["stored_reminders"], 2);
    assert_eq!(
        body["storage"]["storage_path"].as_str().unwrap(),
        daemon.db_path.display().to_string()
    );

    let (_, body) = daemon.get("/doctor").await;
    assert_eq!(body["instance"]["pid"], std::process::id());
    assert_eq!(body["instance"]["bound_address"], daemon.addr().to_string());
    assert_eq!(body["instance"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(body["instance"]["started_at_rfc3339"].is_string());
    assert_eq!(body["notifications"]["backend"], "test");
    assert_eq!(body["notifications"]["actions_supported"], true);
    assert_eq!(body["host"]["keyring"], "unlocked");
    assert_eq!(body["active_reminders"], 2);
    let checks = body["checks"].as_array().unwrap();
    assert!(checks.iter().all(|c| c["ok"] == true), "{checks:?}");
    assert!(body["storage_size_bytes"].as_u64().unwrap() > 0);

    let (_, body) = daemon.get("/updates").await;
    assert_eq!(body["enabled"], false);
    assert_eq!(body["current_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["update_available"], false);
}

#[tokio::test]
async fn every_validation_error_names_index_and_field_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let now = now_epoch();
    let good = reminder("kept", now + 3600);
    daemon.sync(std::slice::from_ref(&good)).await;

    let with = |change: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut element = reminder("new", now + 600);
        change(element.as_object_mut().unwrap());
        element
    };
    let mut cases: Vec<(Value, &str, &str)> = Vec::new();
    for field in ["id", "title", "body", "trigger_at_epoch", "action_url"] {
        cases.push((with(&|e| drop(e.remove(field))), field, "missing field"));
    }
    for (field, wrong) in [
        ("id", json!(5)),
        ("title", json!(null)),
        ("body", json!(["x"])),
        ("action_url", json!({"a": 1})),
        ("trigger_at_epoch", json!("1700000000")),
        ("trigger_at_epoch", json!(1.5)),
        ("trigger_at_epoch", json!(true)),
    ] {
        let wrong = wrong.clone();
        cases.push((
            with(&move |e| drop(e.insert(field.into(), wrong.clone()))),
            field,
            "invalid ",
        ));
    }
    cases.push((
        with(&|e| drop(e.insert("extra".into(), json!(1)))),
        "extra",
        "unknown field",
    ));
    cases.push((
        with(&|e| drop(e.insert("trigger_at_epoch".into(), json!(253_402_300_800_i64)))),
        "trigger_at_epoch",
        "after the year 9999",
    ));
    cases.push((
        with(&|e| drop(e.insert("action_url".into(), json!("file:///etc/passwd")))),
        "action_url",
        "not allowed",
    ));
    cases.push((
        with(&|e| drop(e.insert("action_url".into(), json!("javascript:alert(1)")))),
        "action_url",
        "not allowed",
    ));
    cases.push((
        with(&|e| drop(e.insert("title".into(), json!("x".repeat(8193))))),
        "title",
        "at most 8192",
    ));
    cases.push((
        with(&|e| drop(e.insert("body".into(), json!("x".repeat(8193))))),
        "body",
        "at most 8192",
    ));
    cases.push((
        with(&|e| drop(e.insert("id".into(), json!("i".repeat(257))))),
        "id",
        "at most 256",
    ));
    cases.push((
        with(&|e| drop(e.insert("title".into(), json!("nul\u{0}byte")))),
        "title",
        "NUL",
    ));
    cases.push((
        with(&|e| drop(e.insert("id".into(), json!("kept")))),
        "id",
        "duplicate of element 0",
    ));

    for (element, field, reason) in &cases {
        let payload = json!([good, element]);
        let (status, body) = daemon.post("/sync", &payload).await;
        assert_eq!(status, 400, "{payload}: {body}");
        let (id, message) = error_of(&body);
        assert_eq!(id, "invalid_payload", "{body}");
        // The field is the place (a wrong value) or named in the words
        // (a missing field has no place of its own).
        assert!(message.starts_with("element 1"), "{message}");
        assert!(message.contains(&format!("`{field}`")), "{message}");
        assert!(message.contains(reason), "{message} should say {reason}");
    }

    for (payload, reason) in [
        (json!({"id": "x"}), "expected a JSON array"),
        (json!("text"), "expected a JSON array"),
        (
            json!([good, 5]),
            "element 1: invalid type: integer `5`, expected an object",
        ),
        (
            json!([good, [good]]),
            "element 1: invalid type: sequence, expected an object",
        ),
    ] {
        let (status, body) = daemon.post("/sync", &payload).await;
        assert_eq!(status, 400);
        assert!(error_of(&body).1.contains(reason), "{body}");
    }
    for malformed in ["", "[", "[{\"id\": \"x\",}]", "not json", "[] []"] {
        let (status, body) = daemon
            .post_raw("/sync", "application/json", malformed)
            .await;
        assert_eq!(status, 400, "{malformed:?}");
        assert_eq!(error_of(&body).0, "invalid_json", "{malformed:?}: {body}");
    }

    // Atomicity: after all of that, the stored set is still exactly the good one.
    assert_eq!(daemon.event_ids().await, vec!["kept"]);
}

#[tokio::test]
async fn limits_refuse_oversized_bodies_and_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start_with(DaemonConfig {
        limits: Limits {
            max_sync_body_bytes: 4096,
            max_reminders: 3,
            ..Limits::default()
        },
        ..config(&dir.path().join("db"))
    })
    .await;
    let now = now_epoch();
    let four: Vec<Value> = (0..4)
        .map(|i| reminder(&format!("r{i}"), now + 600))
        .collect();
    let (status, body) = daemon.post("/sync", &Value::from(four)).await;
    assert_eq!(status, 400);
    assert!(error_of(&body).1.contains("more than 3"), "{body}");

    let (status, body) = daemon
        .post_raw(
            "/sync",
            "application/json",
            format!("[{}]", " ".repeat(5000)),
        )
        .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(error_of(&body).0, "payload_too_large");
    assert!(daemon.event_ids().await.is_empty());
}

#[tokio::test]
async fn snooze_validates_and_schedules_durably() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = TestDaemon::start(dir.path()).await;
    let before = now_epoch();
    let snooze = json!({"id": "a", "title": "T", "body": "B", "action_url": "https://example.org", "minutes": 15});
    let (status, body) = daemon.post("/snooze", &snooze).await;
    assert_eq!(status, 200, "{body}");
    let trigger = body["trigger_at_epoch"].as_i64().unwrap();
    assert!((before + 900..=now_epoch() + 900).contains(&trigger));

    for (change, field) in [
        (json!({"minutes": 0}), "minutes"),
        (json!({"minutes": 10081}), "minutes"),
        (json!({"minutes": "5"}), "minutes"),
        (json!({"action_url": "file:///bin/sh"}), "action_url"),
        (json!({"id": ""}), "id"),
    ] {
        let mut bad = snooze.clone();
        for (key, value) in change.as_object().unwrap() {
            bad[key] = value.clone();
        }
        let (status, body) = daemon.post("/snooze", &bad).await;
        assert_eq!(status, 400, "{bad}");
        assert!(
            error_of(&body).1.starts_with(&format!("field `{field}`")),
            "{body}"
        );
    }
    let (status, _) = daemon.post("/snooze", &json!({"id": "a"})).await;
    assert_eq!(status, 400);

    // Durable: a restart on the same store still has it.
    daemon.stop().await;
    let daemon = TestDaemon::start(dir.path()).await;
    let (_, body) = daemon.get("/events").await;
    assert_eq!(body["events"][0]["id"], "a");
    assert_eq!(body["events"][0]["origin"], "snoozed");
    assert_eq!(body["events"][0]["trigger_at_epoch"], trigger);
}

#[tokio::test]
async fn browser_hardening_refuses_web_pages() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let addr = daemon.addr();
    let port = addr.port();
    let payload = "[]";

    // A web origin: 403, whatever the route.
    let (status, body, _) = raw_request(
        addr,
        &format!("GET /status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(body["error"], "forbidden_origin");

    // A text/plain POST (no preflight needed from a page): 415, nothing stored.
    let (status, body) = daemon.post_raw("/sync", "text/plain", payload).await;
    assert_eq!(status, 415);
    assert_eq!(body["error"], "unsupported_media_type");
    let (status, _) = daemon
        .post_raw("/sync", "application/x-www-form-urlencoded", "a=b")
        .await;
    assert_eq!(status, 415);

    // DNS rebinding: a foreign Host name, or our name with another port: 421.
    for host in ["evil.example:{port}", "127.0.0.1:1", "localhost"] {
        let host = host.replace("{port}", &port.to_string());
        let (status, body, _) = raw_request(
            addr,
            &format!("GET /status HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert_eq!(status, 421, "{host}");
        assert_eq!(body["error"], "misdirected_request");
    }

    // Loopback names with our port, and app origins, are served (with CORS).
    for host in ["localhost:{port}", "[::1]:{port}"] {
        let host = host.replace("{port}", &port.to_string());
        let (status, _, _) = raw_request(
            addr,
            &format!("GET /status HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert_eq!(status, 200, "{host}");
    }
    let (status, _, head) = raw_request(
        addr,
        &format!("GET /next HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: app://obsidian.md\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("access-control-allow-origin: app://obsidian.md"),
        "{head}"
    );
    let (status, _, head) = raw_request(
        addr,
        &format!("OPTIONS /sync HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: app://obsidian.md\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 204);
    assert!(
        head.to_ascii_lowercase()
            .contains("access-control-allow-methods"),
        "{head}"
    );
    let (status, _, _) = raw_request(
        addr,
        &format!("OPTIONS /sync HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 403);
}

/// Stricter since the daemon shares the REST server's `Host` rule: an
/// absolute-form target must name this daemon too, and `Host` is parsed as
/// an authority, not compared as a string.
#[tokio::test]
async fn absolute_form_targets_and_odd_hosts_are_misdirected() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let addr = daemon.addr();
    let port = addr.port();

    let request = |target: &str, host: &str| {
        format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
    };
    let ours = format!("127.0.0.1:{port}");
    for (target, host) in [
        (format!("http://evil.example:{port}/status"), ours.clone()),
        ("http://127.0.0.1:1/status".to_string(), ours.clone()),
        (
            format!("http://localhost:{port}/status"),
            "evil.example".to_string(),
        ),
        ("/status".to_string(), format!("user@localhost:{port}")),
    ] {
        let (status, body, _) = raw_request(addr, &request(&target, &host)).await;
        assert_eq!(status, 421, "{target} with Host {host}");
        assert_eq!(body["error"], "misdirected_request");
    }
    // An absolute-form target naming this daemon is served.
    let (status, body, _) = raw_request(
        addr,
        &request(&format!("http://localhost:{port}/status"), &ours),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn unknown_paths_and_methods_answer_json() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    let (status, body) = daemon.get("/nope").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"], "not_found");
    let (status, body) = daemon.get("/sync").await;
    assert_eq!(status, 405);
    assert_eq!(body["error"], "method_not_allowed");
    let (status, body) = daemon.post("/status", &json!([])).await;
    assert_eq!(status, 405);
    assert_eq!(body["error"], "method_not_allowed");
    let response = daemon
        .client
        .delete(format!("{}/events", daemon.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 405);
}

/// FCR Reminder's lifecycle routes are refused, every method, with the
/// reason, and the daemon keeps its reminders and keeps running.
#[tokio::test]
async fn lifecycle_routes_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = TestDaemon::start(dir.path()).await;
    daemon.sync(&[reminder("kept", now_epoch() + 600)]).await;
    for action in ["start", "stop", "restart"] {
        let path = format!("/lifecycle/{action}");
        for (status, body) in [
            daemon.post(&path, &json!({})).await,
            daemon.get(&path).await,
        ] {
            assert_eq!(status, 403, "{path}: {body}");
            let (id, message) = error_of(&body);
            assert_eq!(id, "lifecycle_not_served");
            assert!(message.contains(&path), "{message}");
            assert!(message.contains("no authentication"), "{message}");
        }
    }
    let (status, body) = daemon.post("/lifecycle/pause", &json!({})).await;
    assert_eq!((status, body["error"].as_str()), (404, Some("not_found")));
    let (status, body) = daemon.get("/status").await;
    assert_eq!(status, 200);
    assert_eq!(body["active_reminders"], 1, "{body}");
}

#[tokio::test]
async fn a_taken_port_is_a_clear_start_error() {
    let dir = tempfile::tempdir().unwrap();
    let first = TestDaemon::start(dir.path()).await;
    let second = Daemon::start(
        DaemonConfig {
            port: first.addr().port(),
            ..DaemonConfig::new(dir.path().join("other.sled"))
        },
        Arc::new(LogNotifier::default()),
        Arc::new(SystemOpener),
        None,
    )
    .await;
    match second {
        Err(error @ StartError::Bind { .. }) => {
            assert!(error.to_string().contains("another"), "{error}")
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a second daemon bound the same port"),
    }
}
