//! A real instance with the CalDAV server on, and the Python clients.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use almanac_core::app::Core;
use almanac_core::caldav_server;
use almanac_core::rest::{RestServer, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{CalendarSource, KindSettings};
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, TestInstance, free_port, new_token};
use serde_json::json;

/// The local (Full Note) calendar.
pub const LOCAL: &str = "local";
/// The read-only ICS calendar.
pub const HOLIDAYS: &str = "holidays";

pub const STANDUP: &str = "events/2026-01-05 Standup.md";
pub const PLANNING: &str = "events/2026-01-12 Planning.md";
/// A note with frontmatter keys Almanac does not know and a body: an edit
/// in a calendar app must keep both.
pub const PLANNING_NOTE: &str = "---\ntitle: Planning\nallDay: false\ndate: 2026-01-12\n\
startTime: \"14:00\"\nendTime: \"15:00\"\nproject: apollo\ntags:\n  - work\n---\n\
Agenda:\n- budget\n- hiring\n";

pub struct CaldavHarness {
    pub dir: tempfile::TempDir,
    pub core: Arc<Core>,
    pub server: RestServer,
    pub base: String,
    pub client: reqwest::Client,
}

impl CaldavHarness {
    /// An instance in Europe/Berlin with four notes (timed, with unknown
    /// keys, weekly, all-day over two days) and a read-only ICS calendar,
    /// whose CalDAV server is switched on the way the Settings window does.
    pub async fn start() -> Self {
        Self::start_with(|builder| builder).await
    }

    /// [`CaldavHarness::start`], with more of the vault (notes) from `extra`.
    pub async fn start_with(extra: impl FnOnce(InstanceBuilder) -> InstanceBuilder) -> Self {
        let builder = InstanceBuilder::new()
            .note(
                STANDUP,
                "---\ntitle: Standup\nallDay: false\ndate: 2026-01-05\nstartTime: \"09:00\"\nendTime: \"09:15\"\n---\n",
            )
            .note(PLANNING, PLANNING_NOTE)
            .note(
                "events/2026-01-05 Gym.md",
                "---\ntitle: Gym\ntype: recurring\ndaysOfWeek: [M, R]\nstartRecur: 2026-01-01\n\
                 endRecur: 2026-03-31\nallDay: false\nstartTime: \"07:00\"\nendTime: \"08:00\"\n\
                 skipDates: [2026-01-08]\n---\n",
            )
            .note(
                "events/2026-01-20 Offsite.md",
                "---\ntitle: Offsite\nallDay: true\ndate: 2026-01-20\nendDate: 2026-01-21\n---\n",
            )
            .settings(|settings| {
                settings.display_timezone = "Europe/Berlin".into();
                settings.calendar_sources.push(CalendarSource {
                    id: HOLIDAYS.into(),
                    name: "Holidays".into(),
                    color: "#ff0000".into(),
                    // Refused at once (loopback without the user's
                    // permission): an empty, read-only calendar.
                    kind: KindSettings::Ical {
                        url: "http://127.0.0.1:9/holidays.ics".into(),
                        allow_private_network: false,
                    },
                order: None, components: None,
})
            });
        let TestInstance { dir, core } = extra(builder).open().await;
        let core = Arc::new(core);
        let server = caldav_server::start(
            core.plugin().clone(),
            core.calendar.clone(),
            &core.paths,
            core.settings.subscribe(),
        );
        let port = free_port();
        let instance = Self {
            dir,
            core,
            server,
            base: format!("http://127.0.0.1:{port}"),
            client: reqwest::Client::new(),
        };
        instance
            .settings_as_user(json!({"caldavServer": {"enabled": true, "port": port}}))
            .await;
        instance
            .server
            .subscribe()
            .wait_for(|s| matches!(s, ServerState::Listening(a) if a.port() == port))
            .await
            .unwrap();
        instance
    }

    pub async fn settings_as_user(&self, patch: serde_json::Value) {
        let plugin = self.core.plugin().clone();
        tokio::task::spawn_blocking(move || plugin.update_settings(Actor::User, &patch))
            .await
            .unwrap()
            .unwrap();
    }

    pub fn vault(&self) -> PathBuf {
        self.dir.path().join("vault")
    }

    pub fn note(&self, rel: &str) -> String {
        std::fs::read_to_string(self.vault().join(rel))
            .unwrap_or_else(|e| panic!("note {rel}: {e}"))
    }

    /// A new token with these scopes.
    pub async fn token(&self, scopes: &[Scope]) -> String {
        new_token(&self.core, "caldav test", scopes, Expiry::Never).await
    }

    /// A token with `events:read` and `events:write`.
    pub async fn read_write_token(&self) -> String {
        self.token(&[Scope::EventsRead, Scope::EventsWrite]).await
    }

    /// Checks the server still lists the local calendar (after something
    /// hostile was refused).
    pub async fn still_answers(&self) {
        let reader = self.token(&[Scope::EventsRead]).await;
        let listing = self
            .as_client(Some(&reader))
            .query("PROPFIND", "/calendars/local/", "")
            .await;
        assert_eq!(listing.status(), reqwest::StatusCode::MULTI_STATUS);
    }

    /// The href of the local calendar's resource whose summary is `title`.
    pub async fn href_of(&self, token: &str, title: &str) -> String {
        let body = self
            .as_client(Some(token))
            .query("PROPFIND", "/calendars/local/", CALENDAR_DATA)
            .await
            .text()
            .await
            .unwrap();
        body.split("<D:response>")
            .find(|r| r.contains(&format!("SUMMARY:{title}&#13;")))
            .and_then(|r| r.split("<D:href>").nth(1)?.split("</D:href>").next())
            .unwrap_or_else(|| panic!("no resource titled {title}: {body}"))
            .to_string()
    }

    /// Requests with `token` as Basic credentials (any user, the token as
    /// password), or with none.
    pub fn as_client<'a>(&'a self, token: Option<&'a str>) -> Client<'a> {
        Client { app: self, token }
    }
}

/// A `PROPFIND` body asking for each resource's iCalendar text.
const CALENDAR_DATA: &str = r#"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop></d:propfind>"#;

/// One client of the server: the requests a test sends, with its
/// credentials.
pub struct Client<'a> {
    app: &'a CaldavHarness,
    token: Option<&'a str>,
}

impl Client<'_> {
    /// `method path`, to add headers or a body to.
    pub fn request(&self, method: &str, path: &str) -> reqwest::RequestBuilder {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let request = self
            .app
            .client
            .request(method, format!("{}{path}", self.app.base));
        match self.token {
            Some(token) => request.basic_auth("someone", Some(token)),
            None => request,
        }
    }

    /// `method path` with no body, answered.
    pub async fn send(&self, method: &str, path: &str) -> reqwest::Response {
        self.request(method, path).send().await.unwrap()
    }

    /// A WebDAV query (`PROPFIND`, `REPORT`) of `path` and its members
    /// (`Depth: 1`), answered.
    pub async fn query(
        &self,
        method: &str,
        path: &str,
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        self.query_at_depth(method, path, "1", body).await
    }

    /// A WebDAV query with this `Depth`, answered.
    pub async fn query_at_depth(
        &self,
        method: &str,
        path: &str,
        depth: &str,
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        let request = self.request(method, path).header("Depth", depth);
        request.body(body).send().await.unwrap()
    }

    /// `PUT path` of `body` on a connection of its own, the reply read
    /// whatever became of the write. A server refusing a body over its limit
    /// answers (413) and closes without reading the rest, so a client still
    /// writing gets EPIPE or ECONNRESET although the reply has arrived;
    /// reqwest reports that write error instead of the reply, so whether a
    /// test saw the 413 depended on the scheduler. Returns the status and
    /// the body.
    pub async fn put_raw(&self, path: &str, body: &[u8]) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        // The headers reqwest would send (the Basic credentials); the
        // framing ones are written here.
        let made = self.request("PUT", path).body(Vec::new()).build().unwrap();
        let mut request = format!("PUT {path} HTTP/1.1\r\n");
        let framing = ["host", "content-length", "connection", "transfer-encoding"];
        for (name, value) in made.headers() {
            if framing.contains(&name.as_str()) {
                continue;
            }
            request.push_str(&format!("{name}: {}\r\n", value.to_str().unwrap()));
        }
        let host = self.app.base.trim_start_matches("http://");
        request.push_str(&format!(
            "Host: {host}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ));
        let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
        let mut bytes = request.into_bytes();
        bytes.extend_from_slice(body);
        let _ = stream.write_all(&bytes).await;
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply).await;
        let reply = String::from_utf8_lossy(&reply).into_owned();
        let (head, body) = reply
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP reply: {reply:?}"));
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status: {head}"));
        (status, body.to_string())
    }

    /// `PUT path` of `body`, with a precondition header (`If-Match`,
    /// `If-None-Match`) when given, answered.
    pub async fn put(
        &self,
        path: &str,
        precondition: Option<(&str, &str)>,
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        let mut request = self.request("PUT", path).body(body);
        if let Some((name, value)) = precondition {
            request = request.header(name, value);
        }
        request.send().await.unwrap()
    }
}

/// The virtualenv with the Python clients, created on first use.
pub fn venv() -> PathBuf {
    almanac_testkit::venv("caldav-venv.sh")
}

/// Runs `program` (from the virtualenv's `bin`) off the async workers and
/// panics with its output unless it succeeds.
pub async fn run(venv: &Path, program: &str, args: Vec<String>) -> String {
    let program = venv.join("bin").join(program);
    let shown = format!("{} {}", program.display(), args.join(" "));
    let output = tokio::task::spawn_blocking(move || Command::new(&program).args(&args).output())
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("{shown}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{shown} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A script of `tests/caldav/clients`.
pub fn client_script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/caldav/clients")
        .join(name)
        .display()
        .to_string()
}

/// A `calendar-query` of January 2026 asking for each event's ETag and
/// text.
pub const JANUARY: &str = r#"<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">
    <c:time-range start="20260101T000000Z" end="20260201T000000Z"/>
  </c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>"#;
