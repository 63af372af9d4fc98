//! A real Almanac instance for black-box REST tests: a vault in a temp dir,
//! the calendar engine, tokens in the real OS keyring (run under
//! `scripts/session.sh`), and the REST server on an ephemeral loopback port,
//! driven with reqwest over real HTTP.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use almanac_core::api::{DeclineAll, HeadlessUi, UiController, UiUnavailable};
use almanac_core::app::Core;
use almanac_core::paths::Paths;
use almanac_core::rest::{self, Listening};
use almanac_core::settings::{CalendarSource, Settings, SettingsStore, SourceKind};
use almanac_core::tokens::{Expiry, NewToken, Scope};
use almanac_core::view::CalendarView;
use reqwest::{Method, StatusCode};
use serde_json::Value;

#[path = "../token_support/mod.rs"]
mod token_support;

/// The note every instance starts with.
pub const STANDUP_ID: &str = "fullnote:events/2026-01-05 Standup.md";
/// The same id as a client percent-encodes it into a path.
pub const STANDUP_PATH: &str = "/api/v1/events/fullnote%3Aevents%2F2026-01-05%20Standup.md";
/// The read-only (ICS) calendar every instance has.
pub const ICS_CALENDAR: &str = "holidays";

const STANDUP_NOTE: &str = "---\ntitle: Standup\nallDay: false\ndate: 2026-01-05\n\
startTime: \"09:00\"\nendTime: \"09:15\"\n---\nDaily sync.\n";

/// Records what the API asked of the windows.
#[derive(Default)]
pub struct RecordingUi(Mutex<Vec<String>>);

impl RecordingUi {
    pub fn calls(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl UiController for RecordingUi {
    fn open_calendar(&self) -> Result<(), UiUnavailable> {
        self.0.lock().unwrap().push("open_calendar".into());
        Ok(())
    }
    fn open_sidebar(&self) -> Result<(), UiUnavailable> {
        self.0.lock().unwrap().push("open_sidebar".into());
        Ok(())
    }
    fn change_view(&self, view: CalendarView) -> Result<(), UiUnavailable> {
        self.0
            .lock()
            .unwrap()
            .push(format!("change_view {}", view.id()));
        Ok(())
    }
    fn announce(&self, _message: &str) {}
}

pub struct Instance {
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

impl Instance {
    /// A headless instance (UI routes answer 503).
    pub async fn start() -> Self {
        Self::start_with_ui(Arc::new(HeadlessUi)).await
    }

    /// An instance whose vault holds the Standup note, with a local and a
    /// read-only ICS calendar, serving REST on an ephemeral port.
    pub async fn start_with_ui(ui: Arc<dyn UiController>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        std::fs::create_dir_all(vault.join("events")).unwrap();
        std::fs::write(vault.join("events/2026-01-05 Standup.md"), STANDUP_NOTE).unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let mut settings = Settings {
            vault_path: vault,
            display_timezone: "UTC".into(),
            ..Settings::default()
        };
        settings.calendar_sources.push(CalendarSource {
            id: ICS_CALENDAR.into(),
            name: "Holidays".into(),
            color: "#ff0000".into(),
            // Nothing listens on the discard port: the feed fails fast and
            // the calendar stays empty and read-only.
            kind: SourceKind::Ical {
                url: "http://127.0.0.1:9/holidays.ics".into(),
            },
        });
        SettingsStore::open(&paths.settings_file())
            .unwrap()
            .replace(settings)
            .unwrap();
        let core = Arc::new(
            Core::open(
                paths,
                token_support::real_keyring(),
                ui,
                Arc::new(DeclineAll),
            )
            .await
            .unwrap(),
        );
        let serving = core.clone();
        let server = Listening::bind(0, move |port| rest::router(&serving, port))
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

    pub fn vault(&self) -> PathBuf {
        self.dir.path().join("vault")
    }

    /// A new token with these scopes, created as the settings window does.
    pub async fn token(&self, scopes: &[Scope]) -> String {
        self.token_with(scopes, Expiry::Never).await
    }

    pub async fn token_with(&self, scopes: &[Scope], expiry: Expiry) -> String {
        let tokens = self.core.tokens.clone();
        let scopes = scopes.iter().copied().collect();
        tokio::task::spawn_blocking(move || {
            tokens
                .create(NewToken {
                    name: "rest test".into(),
                    scopes,
                    expiry,
                })
                .unwrap()
                .secret
                .expose()
                .to_string()
        })
        .await
        .unwrap()
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
