//! ICS feeds only reach public addresses unless the user allowed the private
//! network for the source, and a feed body is cut off at its size cap. Each
//! outcome shows as the calendar's state in `GET /calendars`. The feed
//! servers are real HTTP servers on loopback.

use std::io::Write;
use std::time::Duration;

use almanac_core::calendar::sources::ical::MAX_FEED_BYTES;
use almanac_core::tokens::Scope;
use almanac_testkit::HttpStub;
use reqwest::Method;
use serde_json::{Value, json};

use crate::rest::support::RestHarness;

const ICS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
BEGIN:VEVENT\r\nUID:lan-party@x\r\nDTSTART:20260105T180000Z\r\nDTEND:20260105T200000Z\r\n\
SUMMARY:LAN party\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

/// A loopback feed server: `respond` writes each answer. Counts the requests.
struct FeedServer {
    port: u16,
    stub: HttpStub,
}

impl FeedServer {
    fn start(respond: impl Fn(&mut std::net::TcpStream) + Send + 'static) -> Self {
        let stub = HttpStub::start(respond);
        Self {
            port: stub.addr.port(),
            stub,
        }
    }

    fn calendar() -> Self {
        Self::start(|stream| {
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ICS}",
                ICS.len()
            );
        })
    }

    fn requests(&self) -> usize {
        self.stub.requests()
    }
}

fn source(url: &str, allow: bool) -> Value {
    json!({"calendarSources": [
        {"id": "lan", "name": "LAN", "type": "ical", "url": url, "allowPrivateNetwork": allow},
    ]})
}

/// `GET /calendars`' entry for the `lan` calendar once `ready` holds for it,
/// re-checked on every change of the engine's state.
async fn lan_calendar(
    instance: &RestHarness,
    token: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let mut changes = instance.core.calendar.subscribe();
    let wait = async {
        loop {
            changes.borrow_and_update();
            let reply = instance
                .send(Method::GET, "/api/v1/calendars", Some(token), None)
                .await;
            let calendar = reply.body["calendars"]
                .as_array()
                .and_then(|all| all.iter().find(|c| c["id"] == "lan"))
                .cloned()
                .unwrap_or(Value::Null);
            if ready(&calendar) {
                return calendar;
            }
            changes.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("the calendar never reached the expected state")
}

fn has_error(calendar: &Value) -> bool {
    calendar["lastError"].is_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_feeds_are_refused_with_a_clear_calendar_state() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::ProvidersRead]).await;
    let server = FeedServer::calendar();
    for host in ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"] {
        let url = format!("http://{host}:{}/team.ics", server.port);
        instance
            .settings_as_user(source(&url, false))
            .await
            .unwrap();
        let calendar = lan_calendar(&instance, &token, has_error).await;
        let error = calendar["lastError"].as_str().unwrap();
        assert!(
            error.contains("refused") && error.contains("loopback"),
            "{host}: {error}"
        );
        assert_eq!(calendar["eventCount"], 0, "{host}: {calendar}");
    }
    assert_eq!(server.requests(), 0, "a refused feed reached the server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_flag_lets_a_local_feed_through() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::ProvidersRead]).await;
    let server = FeedServer::calendar();
    let url = format!("http://127.0.0.1:{}/team.ics", server.port);
    instance.settings_as_user(source(&url, true)).await.unwrap();
    let calendar = lan_calendar(&instance, &token, |c| c["eventCount"] == 1).await;
    assert!(calendar["lastError"].is_null(), "{calendar}");
    assert!(calendar["lastFetched"].is_string(), "{calendar}");
    assert!(server.requests() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_that_never_ends_is_cut_off_at_the_cap() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::ProvidersRead]).await;
    // No Content-Length: only reading can tell the size. The body goes on
    // until the client hangs up; then the server reports how much it sent.
    let (hung_up, mut sent) = tokio::sync::mpsc::unbounded_channel();
    let server = FeedServer::start(move |stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nConnection: close\r\n\r\nBEGIN:VCALENDAR\r\n",
        );
        let chunk = vec![b'X'; 64 * 1024];
        let mut bytes = 0u64;
        while stream.write_all(&chunk).is_ok() {
            bytes += chunk.len() as u64;
        }
        let _ = hung_up.send(bytes);
    });
    let url = format!("http://127.0.0.1:{}/endless.ics", server.port);
    instance.settings_as_user(source(&url, true)).await.unwrap();
    let calendar = lan_calendar(&instance, &token, has_error).await;
    let error = calendar["lastError"].as_str().unwrap();
    assert!(error.contains("20 MiB"), "{error}");
    assert_eq!(calendar["eventCount"], 0);
    // The fetcher stopped reading and hung up: the endless write failed.
    let bytes = tokio::time::timeout(Duration::from_secs(30), sent.recv())
        .await
        .expect("the fetcher kept the endless feed open")
        .unwrap();
    assert!(bytes >= MAX_FEED_BYTES, "only {bytes} bytes were sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_announcing_more_than_the_cap_is_not_read() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::ProvidersRead]).await;
    let server = FeedServer::start(|stream| {
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            MAX_FEED_BYTES + 1
        );
    });
    let url = format!("http://127.0.0.1:{}/huge.ics", server.port);
    instance.settings_as_user(source(&url, true)).await.unwrap();
    let calendar = lan_calendar(&instance, &token, has_error).await;
    let error = calendar["lastError"].as_str().unwrap();
    assert!(error.contains("20 MiB"), "{error}");
}
