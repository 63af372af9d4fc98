//! A real Almanac core for the fuzz targets that speak to its servers: a
//! temp vault with a few notes, tokens in a file store, and the REST and
//! CalDAV routers driven in-process (the same routers the listeners serve).
#![allow(dead_code)]

pub mod stack;

pub use stack::catch_overflow;

use std::sync::{Arc, OnceLock};

use almanac_core::app::Core;
use almanac_core::caldav_server::feeds::FeedStore;
use almanac_core::caldav_server::{self, CaldavServerState};
use almanac_core::rest::{self, RestState};
use almanac_core::tokens::{Expiry, HashFileStore, Scope};
use almanac_testkit::{InstanceBuilder, TestInstance, new_token};
use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use tokio::runtime::Runtime;
use tower::ServiceExt;

/// The port the routers believe they listen on (the `Host` check uses it).
pub const PORT: u16 = 18540;

pub struct Live {
    pub runtime: Runtime,
    pub instance: TestInstance,
    pub rest: Router,
    pub caldav: Router,
    /// `events:read` and `events:write`.
    pub events_token: String,
    /// `settings:read` and `settings:write`.
    pub settings_token: String,
    /// `events:read` only.
    pub read_token: String,
}

pub fn live() -> &'static Live {
    static LIVE: OnceLock<Live> = OnceLock::new();
    LIVE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .on_thread_start(catch_overflow)
            .enable_all()
            .build()
            .expect("a runtime");
        let secrets = tempfile::tempdir().expect("a temp dir").keep();
        let (instance, events_token, settings_token, read_token) = runtime.block_on(async {
            let instance = InstanceBuilder::new()
                .secrets(Arc::new(HashFileStore::new(secrets.join("hashes.json"))))
                .settings(|s| s.display_timezone = "Europe/Berlin".into())
                .note(
                    "events/2026-01-05 Standup.md",
                    "---\ntitle: Standup\nallDay: false\ndate: 2026-01-05\n\
                     startTime: \"09:00\"\nendTime: \"09:15\"\n---\n",
                )
                .note(
                    "events/2026-01-05 Gym.md",
                    "---\ntitle: Gym\ntype: rrule\nrrule: FREQ=WEEKLY;BYDAY=MO,TH\n\
                     startDate: 2026-01-01\nallDay: false\nstartTime: \"07:00\"\n\
                     endTime: \"08:00\"\nskipDates: [2026-01-08]\n---\n",
                )
                .note(
                    "events/2026-01-20 Offsite.md",
                    "---\ntitle: Offsite\nallDay: true\ndate: 2026-01-20\nendDate: 2026-01-21\n---\n",
                )
                .open()
                .await;
            let events = [Scope::EventsRead, Scope::EventsWrite];
            let events_token = new_token(&instance, "fuzz-events", &events, Expiry::Never).await;
            let settings = [Scope::SettingsRead, Scope::SettingsWrite];
            let settings_token =
                new_token(&instance, "fuzz-settings", &settings, Expiry::Never).await;
            let read = [Scope::EventsRead];
            let read_token = new_token(&instance, "fuzz-read", &read, Expiry::Never).await;
            (instance, events_token, settings_token, read_token)
        });
        let core: &Core = &instance;
        let rest = rest::router(RestState::from(core), PORT);
        let feeds = FeedStore::new(core.paths.feeds_file());
        let state = CaldavServerState::new(core.plugin().clone(), core.calendar.clone(), feeds);
        let caldav = caldav_server::router(state, PORT);
        Live {
            runtime,
            instance,
            rest,
            caldav,
            events_token,
            settings_token,
            read_token,
        }
    })
}

/// What a router answered.
pub struct Answer {
    pub status: StatusCode,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Live {
    pub fn send(&self, router: &Router, request: Request<Body>) -> Answer {
        self.runtime.block_on(async {
            let response = router.clone().oneshot(request).await.expect("infallible");
            let status = response.status();
            let content_type = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            let body = to_bytes(response.into_body(), usize::MAX)
                .await
                .expect("the body is read")
                .to_vec();
            Answer {
                status,
                content_type,
                body,
            }
        })
    }

    /// A request as a client on loopback sends it.
    pub fn request(&self, method: &str, uri: &str) -> axum::http::request::Builder {
        Request::builder()
            .method(method)
            .uri(uri)
            .header("host", format!("127.0.0.1:{PORT}"))
    }
}

/// The REST promise: no 500 for anything a client can send, and every
/// refusal in the spec's error shape.
pub fn assert_rest_answer(answer: &Answer, what: &str) {
    assert!(
        !answer.status.is_server_error(),
        "{what}: {} {}",
        answer.status,
        String::from_utf8_lossy(&answer.body)
    );
    if answer.status.is_client_error() {
        let body: serde_json::Value =
            serde_json::from_slice(&answer.body).expect("an error body is JSON");
        assert!(
            body["error"].is_string() && body["message"].is_string(),
            "{what}: error shape {body}"
        );
    }
}
