//! A real Almanac instance for black-box REST tests: a vault in a temp dir,
//! the calendar engine, tokens in the real OS keyring (run under
//! `scripts/session.sh`), and the REST server on an ephemeral loopback port,
//! driven with reqwest over real HTTP.

use std::path::PathBuf;
use std::sync::Arc;

use almanac_core::api::{ApiError, HeadlessUi, UiController};
use almanac_core::app::Core;
use almanac_core::rest::{self, Listening, RestState};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{CalendarSource, KindSettings, Settings};
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, TestInstance, new_token};
use reqwest::{Method, StatusCode};
use serde_json::Value;

pub use almanac_testkit::RecordingUi;

/// The note every instance starts with.
pub const STANDUP_ID: &str = "fullnote:events/2026-01-05 Standup.md";
/// The same id as a client percent-encodes it into a path.
pub const STANDUP_PATH: &str = "/api/v1/events/fullnote%3Aevents%2F2026-01-05%20Standup.md";
/// The read-only (ICS) calendar every instance has.
pub const ICS_CALENDAR: &str = "holidays";

const STANDUP_NOTE: &str = "---\ntitle: Standup\nallDay: false\ndate: 2026-01-05\n\
startTime: \"09:00\"\nendTime: \"09:15\"\n---\nDaily sync.\n";

pub struct RestHarness {
    pub dir: tempfile::TempDir,
    pub core: Arc<Core>,
    pub server: Listening,
    pub base: String,
    pub client: reqwest::Client,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl RestHarness {
    /// A headless instance (UI routes answer 503).
    pub async fn start() -> Self {
        Self::start_with_ui(Arc::new(HeadlessUi)).await
    }

    /// An instance whose vault holds the Standup note, with a local and a
    /// read-only ICS calendar, serving REST on an ephemeral port.
    pub async fn start_with_ui(ui: Arc<dyn UiController>) -> Self {
        Self::start_with(ui, |_| {}).await
    }

    /// [`Self::start_with_ui`] with the settings edited further by `edit`.
    pub async fn start_with(ui: Arc<dyn UiController>, edit: impl FnOnce(&mut Settings)) -> Self {
        let TestInstance { dir, core } = InstanceBuilder::new()
            .note("events/2026-01-05 Standup.md", STANDUP_NOTE)
            .settings(|settings| {
                settings.calendar_sources.push(CalendarSource {
                    id: ICS_CALENDAR.into(),
                    name: "Holidays".into(),
                    color: "#ff0000".into(),
                    // A loopback feed without the user's permission: the fetch
                    // is refused at once and the calendar stays empty and
                    // read-only.
                    kind: KindSettings::Ical {
                        url: "http://127.0.0.1:9/holidays.ics".into(),
                        allow_private_network: false,
                    },
                    order: None,
                    components: None,
                });
                edit(settings);
            })
            .ui(ui)
            .open()
            .await;
        let core = Arc::new(core);
        let state = RestState::from(core.as_ref());
        let server = Listening::bind(0, move |port| rest::router(state, port))
            .await
            .unwrap();
        let base = format!("http://{}", server.local_addr());
        Self {
            dir,
            core,
            server,
            base,
            client: reqwest::Client::new(),
        }
    }

    /// Changes settings as the desktop UI does: the user may change every key.
    pub async fn settings_as_user(&self, patch: Value) -> Result<Arc<Settings>, ApiError> {
        let plugin = self.core.plugin().clone();
        tokio::task::spawn_blocking(move || plugin.update_settings(Actor::User, &patch))
            .await
            .unwrap()
    }

    pub fn vault(&self) -> PathBuf {
        self.dir.path().join("vault")
    }

    /// A new token with these scopes, created as the settings window does.
    pub async fn token(&self, scopes: &[Scope]) -> String {
        self.token_with(scopes, Expiry::Never).await
    }

    pub async fn token_with(&self, scopes: &[Scope], expiry: Expiry) -> String {
        new_token(&self.core, "rest test", scopes, expiry).await
    }

    /// Sends `method path` with an optional bearer token and JSON body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        Reply::read(request.send().await.unwrap()).await
    }
}

impl Reply {
    pub async fn read(response: reqwest::Response) -> Self {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Self {
            status,
            headers,
            body,
            text,
        }
    }

    /// Asserts the spec's error shape and returns the `error` id.
    pub fn error_id(&self) -> &str {
        assert_eq!(
            self.headers["content-type"], "application/json",
            "error without JSON body: {self:?}"
        );
        let object = self.body.as_object().unwrap_or_else(|| panic!("{self:?}"));
        assert_eq!(object.len(), 2, "{self:?}");
        assert!(object["message"].as_str().is_some_and(|m| !m.is_empty()));
        object["error"].as_str().unwrap()
    }

    /// Asserts the three CORS headers of the spec.
    pub fn assert_cors(&self) {
        assert_eq!(self.headers["access-control-allow-origin"], "*", "{self:?}");
        assert_eq!(
            self.headers["access-control-allow-methods"],
            "GET, POST, PUT, DELETE, OPTIONS"
        );
        assert_eq!(
            self.headers["access-control-allow-headers"],
            "Content-Type, Authorization"
        );
    }
}

/// A reply read off a raw socket.
#[derive(Debug)]
pub struct RawReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawReply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Asserts the JSON error shape (or an empty 2xx/204) and the CORS headers.
    pub fn assert_well_formed(&self) {
        assert_eq!(
            self.header("access-control-allow-origin"),
            Some("*"),
            "{self:?}"
        );
        if self.status >= 400 {
            assert_eq!(
                self.header("content-type"),
                Some("application/json"),
                "{self:?}"
            );
            let body: Value = serde_json::from_slice(&self.body).unwrap();
            assert!(
                body["error"].is_string() && body["message"].is_string(),
                "{self:?}"
            );
        }
    }
}

impl RestHarness {
    /// The bytes of a request to this server: `Host`, optional bearer token,
    /// `Content-Length`, `Connection: close`. Nothing is normalized, so the
    /// target can carry `..`, `%00` or invalid UTF-8.
    pub fn raw_request(
        &self,
        method: &str,
        target: &[u8],
        token: Option<&str>,
        body: &[u8],
    ) -> Vec<u8> {
        let mut request = Vec::new();
        request.extend_from_slice(method.as_bytes());
        request.push(b' ');
        request.extend_from_slice(target);
        request.extend_from_slice(b" HTTP/1.1\r\n");
        request.extend_from_slice(format!("Host: {}\r\n", self.server.local_addr()).as_bytes());
        if let Some(token) = token {
            request.extend_from_slice(format!("Authorization: Bearer {token}\r\n").as_bytes());
        }
        if !body.is_empty() {
            request.extend_from_slice(b"Content-Type: application/json\r\n");
            request.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
        }
        request.extend_from_slice(b"Connection: close\r\n\r\n");
        request.extend_from_slice(body);
        request
    }

    /// Writes `request` on a fresh connection and reads the reply to EOF.
    pub async fn raw(&self, request: &[u8]) -> RawReply {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(self.server.local_addr())
            .await
            .unwrap();
        // The server may answer (e.g. 413) and close before reading it all.
        let _ = stream.write_all(request).await;
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply).await;
        parse_reply(&reply)
    }
}

fn parse_reply(reply: &[u8]) -> RawReply {
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP reply: {:?}", String::from_utf8_lossy(reply)));
    let head = String::from_utf8_lossy(&reply[..split]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    RawReply {
        status,
        headers,
        body: reply[split + 4..].to_vec(),
    }
}
