//! `/updates` against a local release feed: checked in the background when
//! enabled, reported from the cache by the route.

use crate::common;

use std::time::Duration;

use almanac_reminders::{DaemonConfig, UpdateConfig};
use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use common::{TIMEOUT, TestDaemon, config};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Serves `answer` at `/latest` and reports each hit.
async fn feed(answer: (StatusCode, Value)) -> (String, mpsc::UnboundedReceiver<()>) {
    let (hits_tx, hits) = mpsc::unbounded_channel();
    let app = Router::new().route(
        "/latest",
        get(move || {
            let _ = hits_tx.send(());
            let (status, body) = answer.clone();
            async move { (status, axum::Json(body)) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/latest", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, hits)
}

/// A daemon checking `feed_url`, allowed on loopback (where the tests'
/// feeds are) only when `allow_private_network`.
async fn daemon_guarded(
    dir: &std::path::Path,
    feed_url: String,
    allow_private_network: bool,
) -> TestDaemon {
    TestDaemon::start_with(DaemonConfig {
        updates: UpdateConfig {
            enabled: true,
            feed_url: Some(feed_url),
            interval: Duration::from_secs(3600),
            allow_private_network,
        },
        ..config(&dir.join("db"))
    })
    .await
}

async fn daemon_checking(dir: &std::path::Path, feed_url: String) -> TestDaemon {
    daemon_guarded(dir, feed_url, true).await
}

/// `/updates` once the checker has recorded its first result.
async fn checked_updates(daemon: &TestDaemon, hits: &mut mpsc::UnboundedReceiver<()>) -> Value {
    tokio::time::timeout(TIMEOUT, hits.recv())
        .await
        .expect("the feed was fetched");
    recorded(daemon).await
}

/// `/updates` once a check was recorded.
async fn recorded(daemon: &TestDaemon) -> Value {
    tokio::time::timeout(TIMEOUT, async {
        loop {
            let (status, body) = daemon.get("/updates").await;
            assert_eq!(status, 200);
            if body["last_checked_at_epoch"].as_i64() != Some(0) {
                return body;
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the check was recorded")
}

#[tokio::test]
async fn a_newer_release_is_reported_from_the_cache() {
    let (url, mut hits) = feed((
        StatusCode::OK,
        json!({"tag_name": "v99.0.0", "name": "Almanac 99", "html_url": "https://example.org/r/99",
               "published_at": "2030-01-01T00:00:00Z", "draft": false, "prerelease": false}),
    ))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon_checking(dir.path(), url.clone()).await;
    let body = checked_updates(&daemon, &mut hits).await;
    assert_eq!(body["enabled"], true);
    assert_eq!(body["feed_url"], url);
    assert_eq!(body["update_available"], true);
    assert_eq!(body["latest_release"]["version"], "99.0.0");
    assert_eq!(
        body["latest_release"]["html_url"],
        "https://example.org/r/99"
    );
    assert!(body["last_error"].is_null());
    // Reading the route does not fetch again.
    daemon.get("/updates").await;
    assert!(hits.try_recv().is_err());
    assert_eq!(
        daemon.handle().updates().latest_release.unwrap().version,
        "99.0.0"
    );
}

#[tokio::test]
async fn a_failing_feed_is_reported_not_fatal() {
    let (url, mut hits) = feed((StatusCode::NOT_FOUND, json!({"message": "Not Found"}))).await;
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon_checking(dir.path(), url).await;
    let body = checked_updates(&daemon, &mut hits).await;
    assert_eq!(body["update_available"], false);
    assert!(
        body["last_error"].as_str().unwrap().contains("404"),
        "{body}"
    );
    let (status, _) = daemon.get("/status").await;
    assert_eq!(status, 200);
}

/// A feed that streams more than the cap: reading stops, the check fails
/// with a message naming the cap, the daemon is unaffected.
#[tokio::test]
async fn a_feed_larger_than_the_cap_is_refused() {
    use almanac_reminders::updates::MAX_FEED_BYTES;
    use futures_util::stream;

    let (hits_tx, mut hits) = mpsc::unbounded_channel();
    let app = Router::new().route(
        "/latest",
        get(move || {
            let _ = hits_tx.send(());
            // Chunked, no Content-Length: 64 KiB chunks, twice the cap.
            let chunks = (0..2 * MAX_FEED_BYTES / 65_536)
                .map(|_| Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![b' '; 65_536])));
            async move { axum::body::Body::from_stream(stream::iter(chunks)) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/latest", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon_checking(dir.path(), url).await;
    let body = checked_updates(&daemon, &mut hits).await;
    let error = body["last_error"].as_str().unwrap();
    assert!(
        error.contains(&format!("larger than {MAX_FEED_BYTES} bytes")),
        "{body}"
    );
    assert_eq!(body["update_available"], false);
    assert_eq!(daemon.get("/status").await.0, 200);
}

/// With the guard (as in the app), a feed on loopback or a name resolving to
/// it is refused before any request: the feed server is never asked, and
/// `/updates` shows the refusal, no content.
#[tokio::test]
async fn a_feed_on_a_private_address_is_refused_unasked() {
    let (url, mut hits) = feed((StatusCode::OK, json!({"tag_name": "v99.0.0"}))).await;
    let by_name = url.replace("127.0.0.1", "localhost");
    for (feed_url, kind) in [(url, "loopback"), (by_name, "localhost")] {
        let dir = tempfile::tempdir().unwrap();
        let daemon = daemon_guarded(dir.path(), feed_url, false).await;
        let body = recorded(&daemon).await;
        let error = body["last_error"].as_str().unwrap_or_default();
        assert!(
            error.contains("refused to fetch") && error.contains(kind),
            "{body}"
        );
        assert!(body["latest_release"].is_null(), "{body}");
        assert!(hits.try_recv().is_err(), "the private feed was asked");
    }
}

/// A feed that is not a release document: the error says where it broke,
/// never what the body held.
#[tokio::test]
async fn an_unreadable_feed_is_not_echoed() {
    let (url, mut hits) = feed((
        StatusCode::OK,
        json!({"tag_name": "v1.0.0", "draft": "internal-secret-text"}),
    ))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let daemon = daemon_checking(dir.path(), url).await;
    let body = checked_updates(&daemon, &mut hits).await;
    let error = body["last_error"].as_str().unwrap();
    assert!(error.contains("unreadable release feed"), "{body}");
    assert!(!body.to_string().contains("internal-secret"), "{body}");
}
