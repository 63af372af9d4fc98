//! `DaemonHandle::reconfigure`: every setting the shell passes on takes
//! effect on the running daemon, over real HTTP, without a restart.

use crate::common;

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::time::Duration;

use almanac_reminders::{DaemonConfig, ReconfigureError, UpdateConfig};
use almanac_testkit::free_port;
use axum::Router;
use axum::routing::get;
use common::{TIMEOUT, TestDaemon, config, now_epoch, reminder};
use serde_json::{Value, json};

/// Waits until nothing accepts connections on `addr` any more.
async fn closed(addr: SocketAddr) {
    tokio::time::timeout(TIMEOUT, async {
        while tokio::net::TcpStream::connect(addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{addr} still accepts connections"));
}

async fn status_on(port: u16) -> Result<u16, reqwest::Error> {
    let response = reqwest::get(format!("http://127.0.0.1:{port}/status")).await?;
    Ok(response.status().as_u16())
}

fn with_url(id: &str, trigger: i64, url: &str) -> Value {
    let mut element = reminder(id, trigger);
    element["action_url"] = json!(url);
    element
}

#[tokio::test]
async fn a_new_port_listens_and_the_old_one_closes() {
    let dir = tempfile::tempdir().unwrap();
    let base = config(&dir.path().join("db"));
    let mut daemon = TestDaemon::start_with(base.clone()).await;
    daemon.sync(&[reminder("kept", now_epoch() + 3600)]).await;
    let old = daemon.addr();

    let port = free_port();
    daemon
        .handle()
        .reconfigure(DaemonConfig {
            port,
            ..base.clone()
        })
        .await
        .unwrap();
    assert_eq!(daemon.addr().port(), port);
    closed(old).await;
    daemon.base = format!("http://127.0.0.1:{port}");
    assert_eq!(daemon.event_ids().await, ["kept"]);
    let (_, doctor) = daemon.get("/doctor").await;
    assert_eq!(
        doctor["instance"]["bound_address"],
        format!("127.0.0.1:{port}")
    );
    // The Host check follows the port too.
    let (status, _, _) = common::raw_request(
        daemon.addr(),
        &format!(
            "GET /status HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            old.port()
        ),
    )
    .await;
    assert_eq!(status, 421);
}

#[tokio::test]
async fn a_busy_port_is_reported_and_the_old_listener_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let base = config(&dir.path().join("db"));
    let daemon = TestDaemon::start_with(base.clone()).await;
    let old = daemon.addr();
    let taken = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let busy = taken.local_addr().unwrap().port();

    let error = daemon
        .handle()
        .reconfigure(DaemonConfig {
            port: busy,
            ..base.clone()
        })
        .await
        .expect_err("the port is taken");
    assert!(
        matches!(&error, ReconfigureError::Bind { addr, serving, .. }
            if addr.port() == busy && *serving == old),
        "{error:?}"
    );
    assert_eq!(daemon.addr(), old);
    assert_eq!(status_on(old.port()).await.unwrap(), 200);
    let problem = daemon.handle().listen_problem().unwrap();
    assert!(problem.contains(&busy.to_string()), "{problem}");
    let (_, doctor) = daemon.get("/doctor").await;
    let bound = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["name"] == "loopback_server_bound")
        .unwrap();
    assert_eq!(bound["ok"], false, "{bound}");
    assert!(
        bound["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("still serving on {old}")),
        "{bound}"
    );

    // Once the port is free, the next reconfigure moves there.
    drop(taken);
    daemon
        .handle()
        .reconfigure(DaemonConfig { port: busy, ..base })
        .await
        .unwrap();
    assert_eq!(daemon.addr().port(), busy);
    assert_eq!(daemon.handle().listen_problem(), None);
    closed(old).await;
}

#[tokio::test]
async fn schemes_and_grace_window_apply_to_the_next_sync() {
    let dir = tempfile::tempdir().unwrap();
    let base = config(&dir.path().join("db"));
    let daemon = TestDaemon::start_with(base.clone()).await;
    let now = now_epoch();
    let zotero = with_url("paper", now + 600, "zotero://select/items/ABC");
    let web = with_url("site", now + 600, "https://example.org/");
    let (status, body) = daemon.post("/sync", &json!([zotero.clone()])).await;
    assert_eq!(status, 400, "{body}");

    daemon
        .handle()
        .reconfigure(DaemonConfig {
            allowed_schemes: vec!["obsidian".into(), "zotero".into()],
            grace_window: Duration::ZERO,
            ..base.clone()
        })
        .await
        .unwrap();
    let (status, body) = daemon.post("/sync", &json!([zotero.clone()])).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = daemon.post("/sync", &json!([zotero.clone(), web])).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("element 1, field `action_url`"),
        "{body}"
    );
    // No grace: an item a few seconds late expires.
    let late = reminder("late", now_epoch() - 5);
    let (_, body) = daemon
        .post("/sync", &json!([zotero.clone(), late.clone()]))
        .await;
    assert_eq!(body["expired"][0]["id"], "late", "{body}");

    daemon
        .handle()
        .reconfigure(DaemonConfig {
            grace_window: Duration::from_secs(3600),
            ..base
        })
        .await
        .unwrap();
    let (_, body) = daemon.post("/sync", &json!([late])).await;
    assert_eq!(body["late"][0]["id"], "late", "{body}");
}

#[tokio::test]
async fn update_checks_switch_on_and_fixed_fields_are_refused() {
    let (hits_tx, mut hits) = tokio::sync::mpsc::unbounded_channel();
    let app = Router::new().route(
        "/latest",
        get(move || {
            let _ = hits_tx.send(());
            async { axum::Json(json!({"tag_name": "v99.0.0"})) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let feed_url = format!("http://{}/latest", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = tempfile::tempdir().unwrap();
    let base = config(&dir.path().join("db"));
    let daemon = TestDaemon::start_with(base.clone()).await;
    assert_eq!(daemon.get("/updates").await.1["enabled"], false);
    daemon
        .handle()
        .reconfigure(DaemonConfig {
            updates: UpdateConfig {
                enabled: true,
                feed_url: Some(feed_url.clone()),
                // The test's feed is on loopback.
                allow_private_network: true,
                ..UpdateConfig::default()
            },
            ..base.clone()
        })
        .await
        .unwrap();
    let (_, updates) = daemon.get("/updates").await;
    assert_eq!(
        (updates["enabled"].clone(), updates["feed_url"].clone()),
        (json!(true), json!(feed_url))
    );
    tokio::time::timeout(TIMEOUT, hits.recv())
        .await
        .expect("the feed was fetched without a restart");

    let moved = daemon
        .handle()
        .reconfigure(DaemonConfig {
            port: free_port(),
            ..config(&dir.path().join("elsewhere"))
        })
        .await;
    assert!(
        matches!(moved, Err(ReconfigureError::Fixed("db_path"))),
        "{moved:?}"
    );
    assert_eq!(
        daemon.get("/updates").await.1["enabled"],
        true,
        "nothing applied"
    );
}
