//! The MCP server over Streamable HTTP (`/mcp` on the REST port), driven by
//! the official Python MCP client (PyPI `mcp`, `scripts/mcp-venv.sh`) against
//! a real instance on loopback, with tokens in the real keyring (run under
//! `scripts/session.sh`). The stdio transport, through the real binary, is
//! tested in the repository's `tests/mcp_stdio.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use almanac_core::app::Core;
use almanac_core::rest::{RestServer, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, TestInstance, free_port, new_token};
use serde_json::{Value, json};

const STANDUP: &str = "events/2026-01-05 Standup.md";
const STANDUP_ID: &str = "fullnote:events/2026-01-05 Standup.md";

struct McpHarness {
    dir: tempfile::TempDir,
    core: Arc<Core>,
    _server: RestServer,
    url: String,
}

impl McpHarness {
    /// An instance in Europe/Berlin with a timed event and a weekly one,
    /// its REST server on a free port and the MCP server switched on (or
    /// not) the way the Settings window does.
    async fn start(mcp_on: bool) -> Self {
        let TestInstance { dir, core } = InstanceBuilder::new()
            .note(
                STANDUP,
                "---\ntitle: Standup\nallDay: false\ndate: 2026-01-05\nstartTime: \"09:00\"\n\
                 endTime: \"09:15\"\n---\n",
            )
            .note(
                "events/2026-01-01 Gym.md",
                "---\ntitle: Gym\ntype: recurring\ndaysOfWeek: [M, R]\nstartRecur: 2026-01-01\n\
                 endRecur: 2026-03-31\nallDay: false\nstartTime: \"07:00\"\nendTime: \"08:00\"\n---\n",
            )
            .settings(|settings| settings.display_timezone = "Europe/Berlin".into())
            .open()
            .await;
        let core = Arc::new(core);
        let server = RestServer::start(&core);
        let port = free_port();
        let patch = json!({
            "restServerEnabled": true,
            "localServerPort": port,
            "mcpServer": {"enabled": mcp_on},
        });
        let plugin = core.plugin().clone();
        tokio::task::spawn_blocking(move || plugin.update_settings(Actor::User, &patch))
            .await
            .unwrap()
            .unwrap();
        server
            .subscribe()
            .wait_for(|s| matches!(s, ServerState::Listening(a) if a.port() == port))
            .await
            .unwrap();
        Self {
            dir,
            core,
            _server: server,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    async fn token(&self, scopes: &[Scope]) -> String {
        new_token(&self.core, "mcp test", scopes, Expiry::Never).await
    }

    fn vault(&self) -> PathBuf {
        self.dir.path().join("vault")
    }
}

/// Runs `client.py ARGS…` with `token` and returns its facts (last line).
async fn client(token: &str, args: &[&str]) -> Value {
    client_in_mode("legacy", token, args).await
}

/// [`client`], negotiating with `MCP_MODE=mode`.
async fn client_in_mode(mode: &str, token: &str, args: &[&str]) -> Value {
    let venv = almanac_testkit::venv("mcp-venv.sh");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let mut command = Command::new(venv.join("bin/python"));
    command
        .arg(script)
        .args(args)
        .env("ALMANAC_TOKEN", token)
        .env("MCP_MODE", mode);
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "client.py {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("client.py printed no facts ({e}):\n{stdout}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_reads_writes_and_is_refused_an_unconfirmed_delete() {
    let app = McpHarness::start(true).await;
    let token = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead])
        .await;
    let facts = client(&token, &["session", "http", &app.url]).await;

    assert_eq!(facts["standupId"], STANDUP_ID);
    assert_eq!(facts["edited"]["title"], "MCP lunch moved");
    // The edit is in the note the create made.
    let created = app.vault().join("events/2026-01-07 MCP lunch moved.md");
    let note =
        std::fs::read_to_string(&created).unwrap_or_else(|e| panic!("{}: {e}", created.display()));
    assert!(
        note.contains("startTime: \"12:30\"") || note.contains("startTime: 12:30"),
        "{note}"
    );
    // Refused, so the note is still there.
    assert!(app.vault().join(STANDUP).exists());
}

/// An assistant's retry of `create_event` with its `idempotencyKey` (two
/// at once, and one after) answers the first's event and makes one note.
#[tokio::test(flavor = "multi_thread")]
async fn a_retried_create_with_its_key_makes_one_note() {
    let app = McpHarness::start(true).await;
    let token = app.token(&[Scope::EventsRead, Scope::EventsWrite]).await;
    let facts = client(&token, &["retry", "http", &app.url]).await;
    let ids = facts["ids"].as_array().unwrap();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| *id == ids[0]), "{facts}");
    let notes = std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .filter(|entry| {
            let name = entry.as_ref().unwrap().file_name();
            name.to_string_lossy().contains("Retried lunch")
        })
        .count();
    assert_eq!(notes, 1);
}

/// Every event an assistant reads states its start and end in UTC and in
/// the display zone (Berlin, +01:00 until the DST change of 2026-03-29,
/// +02:00 after) and how it is timed; `current_time` says the zone and its
/// offset.
#[tokio::test(flavor = "multi_thread")]
async fn events_and_the_current_time_say_their_zone_and_offset() {
    let app = McpHarness::start(true).await;
    let token = app.token(&[Scope::EventsRead, Scope::EventsWrite]).await;
    let facts = client(&token, &["times", "http", &app.url]).await;

    let now = &facts["now"];
    assert_eq!(now["timeZone"], "Europe/Berlin");
    let utc = chrono::DateTime::parse_from_rfc3339(now["nowUtc"].as_str().unwrap()).unwrap();
    let local = chrono::DateTime::parse_from_rfc3339(now["now"].as_str().unwrap()).unwrap();
    assert_eq!(utc, local, "the same instant: {now}");
    let offset = utc
        .with_timezone(&chrono_tz::Europe::Berlin)
        .format("%:z")
        .to_string();
    assert_eq!(now["utcOffset"], offset.as_str(), "{now}");
    assert!(now["now"].as_str().unwrap().ends_with(&offset), "{now}");

    // [startUtc, endUtc, startLocal, endLocal]; `start`/`end` are the local ones.
    let event = |title: &str, timing: &str, [start_utc, end_utc, start, end]: [Option<&str>; 4]| {
        json!({
            "title": title, "timing": timing, "displayZone": "Europe/Berlin",
            "startUtc": start_utc, "endUtc": end_utc,
            "startLocal": start, "endLocal": end, "start": start, "end": end,
        })
    };
    let expected = json!([
        event(
            "Gym",
            "floating",
            [
                Some("2026-03-26T06:00:00Z"),
                Some("2026-03-26T07:00:00Z"),
                Some("2026-03-26T07:00:00+01:00"),
                Some("2026-03-26T08:00:00+01:00"),
            ]
        ),
        // 10:00 in New York (already on summer time), shown in Berlin.
        event(
            "Flight",
            "zoned",
            [
                Some("2026-03-27T14:00:00Z"),
                Some("2026-03-27T16:00:00Z"),
                Some("2026-03-27T15:00:00+01:00"),
                Some("2026-03-27T17:00:00+01:00"),
            ]
        ),
        event(
            "Holiday",
            "allDay",
            [None, None, Some("2026-03-28"), Some("2026-03-29")]
        ),
        event(
            "Gym",
            "floating",
            [
                Some("2026-03-30T05:00:00Z"),
                Some("2026-03-30T06:00:00Z"),
                Some("2026-03-30T07:00:00+02:00"),
                Some("2026-03-30T08:00:00+02:00"),
            ]
        ),
    ]);
    assert_eq!(facts["events"], expected);
}

/// An assistant lists its own change and undoes it, confirmed through
/// elicitation: the vault is as before, byte for byte.
#[tokio::test(flavor = "multi_thread")]
async fn an_assistant_undoes_its_own_change() {
    let app = McpHarness::start(true).await;
    let token = app.token(&[Scope::EventsRead, Scope::EventsWrite]).await;
    let before = crate::common::snapshot(&app.vault());
    let facts = client(&token, &["undo", "http", &app.url]).await;
    assert_eq!(
        facts["change"]["author"],
        json!({"kind": "token", "name": "mcp test"})
    );
    assert_eq!(
        facts["change"]["files"][0]["path"],
        "events/2026-01-08 Mistaken lunch.md"
    );
    let asked = facts["asked"][0].as_str().unwrap();
    assert!(asked.contains("Mistaken lunch.md"), "{asked}");
    assert_eq!(facts["undo"]["undoes"], facts["change"]["id"]);
    assert_eq!(crate::common::snapshot(&app.vault()), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_token_sees_no_write_tools() {
    let app = McpHarness::start(true).await;
    let token = app.token(&[Scope::EventsRead]).await;
    let facts = client(&token, &["read-only", "http", &app.url]).await;
    assert_eq!(facts["tools"].as_array().unwrap().len(), 6);
    assert!(!app.vault().join("events/2026-01-07 Sneaky.md").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delete_confirmed_through_elicitation_removes_the_note() {
    let app = McpHarness::start(true).await;
    let token = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead])
        .await;
    let facts = client(&token, &["elicit", "http", &app.url, STANDUP_ID]).await;
    let asked = facts["asked"][0].as_str().unwrap();
    assert!(asked.contains("Standup"), "{asked}");
    assert!(!app.vault().join(STANDUP).exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn on_the_2026_protocol_the_confirmation_comes_back_with_the_retried_call() {
    let app = McpHarness::start(true).await;
    let token = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead])
        .await;
    let facts = client_in_mode("auto", &token, &["session", "http", &app.url]).await;
    assert_eq!(facts["protocol"], "2026-07-28");
    assert!(app.vault().join(STANDUP).exists(), "refused, so kept");
    let facts = client_in_mode("auto", &token, &["elicit", "http", &app.url, STANDUP_ID]).await;
    assert_eq!(facts["protocol"], "2026-07-28");
    assert!(facts["asked"][0].as_str().unwrap().contains("Standup"));
    assert!(!app.vault().join(STANDUP).exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_answers_only_when_switched_on_and_only_to_a_token_that_may_read() {
    let app = McpHarness::start(false).await;
    let token = app.token(&[Scope::EventsRead]).await;
    let http = reqwest::Client::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}},
    });
    let post = |token: Option<&str>| {
        let request = http
            .post(&app.url)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize);
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    };
    let off = post(Some(&token)).send().await.unwrap();
    assert_eq!(off.status(), 404);
    assert!(off.text().await.unwrap().contains("mcpServer"));

    let patch = json!({"mcpServer": {"enabled": true}});
    let plugin = app.core.plugin().clone();
    tokio::task::spawn_blocking(move || plugin.update_settings(Actor::User, &patch))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(post(None).send().await.unwrap().status(), 401);
    assert_eq!(
        post(Some("not-a-token")).send().await.unwrap().status(),
        403
    );
    // A token that may read nothing opens no session.
    let settings_only = app.token(&[Scope::SettingsRead]).await;
    let refused = post(Some(&settings_only)).send().await.unwrap();
    assert_eq!(refused.status(), 403);
    assert!(refused.text().await.unwrap().contains("events:read"));
    assert_eq!(post(Some(&token)).send().await.unwrap().status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_token_can_switch_the_mcp_server_on() {
    let app = McpHarness::start(false).await;
    let full_access = Actor::Token([Scope::SystemFullAccess].into_iter().collect());
    let plugin = app.core.plugin().clone();
    let refused = tokio::task::spawn_blocking(move || {
        plugin.update_settings(full_access, &json!({"mcpServer": {"enabled": true}}))
    })
    .await
    .unwrap();
    let error = refused.expect_err("a token may not open the MCP server");
    assert!(error.to_string().contains("mcpServer"), "{error}");
    assert!(!app.core.settings.get().mcp_server.enabled);
}

/// A thousand `initialize`s sent at once by one token open its 8 sessions
/// and no more: each takes its place when admitted, not when its answer
/// names the session (the bench `lateness_under_load`, `LOAD=mcp-sessions`,
/// opened 17 before).
#[tokio::test(flavor = "multi_thread")]
async fn initializes_sent_at_once_open_no_more_than_the_tokens_sessions() {
    let app = McpHarness::start(true).await;
    let greedy = app.token(&[Scope::EventsRead]).await;
    let http = reqwest::Client::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}},
    });
    let answers = futures_util::future::join_all((0..1000).map(|_| {
        http.post(&app.url)
            .bearer_auth(&greedy)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
    }))
    .await;
    let count = |status: u16| {
        answers
            .iter()
            .filter(|answer| answer.as_ref().is_ok_and(|r| r.status() == status))
            .count()
    };
    assert_eq!(count(200), 8, "sessions opened");
    assert_eq!(count(429), 992, "refused");
}

/// One token cannot open MCP sessions without end: past its 8, each
/// `initialize` is a `429` with `Retry-After` (a thousand tried), while
/// another token still opens one and its REST requests are answered; a
/// session its client ends frees its place.
#[tokio::test(flavor = "multi_thread")]
async fn sessions_are_bounded_per_token() {
    let app = McpHarness::start(true).await;
    let greedy = app.token(&[Scope::EventsRead]).await;
    let other = app.token(&[Scope::EventsRead]).await;
    let http = reqwest::Client::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}},
    });
    let open = |token: &str| {
        http.post(&app.url)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
    };
    let mut sessions = Vec::new();
    for _ in 0..8 {
        let opened = open(&greedy).await.unwrap();
        assert_eq!(opened.status(), 200);
        let id = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        sessions.push(id);
    }
    for _ in 0..1000 {
        let refused = open(&greedy).await.unwrap();
        assert_eq!(refused.status(), 429);
        assert_eq!(refused.headers()["retry-after"], "5");
    }
    assert_eq!(open(&other).await.unwrap().status(), 200);
    let rest = app
        .url
        .replace("/mcp", "/api/v1/events?start=2026-01-01&end=2026-12-31");
    let listed = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        http.get(&rest).bearer_auth(&other).send(),
    )
    .await
    .expect("another client's request is not held up")
    .unwrap();
    assert_eq!(listed.status(), 200);

    let ended = http
        .delete(&app.url)
        .bearer_auth(&greedy)
        .header("mcp-session-id", &sessions[0])
        .send()
        .await
        .unwrap();
    assert!(ended.status().is_success(), "{}", ended.status());
    assert_eq!(open(&greedy).await.unwrap().status(), 200);
}
