//! `almanac mcp` / `almanac-server mcp`: the MCP server on stdin/stdout, for
//! assistants that start a process. The token comes from `ALMANAC_TOKEN`, or
//! a file only the user can read (`--token-file`, `ALMANAC_TOKEN_FILE`), as
//! the command line's does.
//!
//! One process writes the vault: when an instance runs (it holds the data
//! folder's lock), this bridges stdio to that instance's `/mcp` — each
//! message read from stdin is POSTed with the session's header, and every
//! message in the answers (JSON or an SSE stream) is written to stdout. Each
//! message is sent on its own task, so a server request made during a tool
//! call (asking the person to confirm a delete) reaches the client and its
//! answer goes back while the call waits. When none runs, this opens the
//! vault itself, under the lock, and serves stdio in-process.
//!
//! stdout carries only the protocol; the log goes to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use almanac_core::api::{DeclineAll, HeadlessUi};
use almanac_core::app::Core;
use almanac_core::client::Exit;
use almanac_core::client::sse::SseEvents;
use almanac_core::client::token::TokenSources;
use almanac_core::data_lock::{DataLock, DataLockError};
use almanac_core::mcp::{McpContext, serve_stdio};
use almanac_core::paths::Paths;
use almanac_core::settings::Settings;
use almanac_core::tokens::{Scope, SecretsInUse};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, RwLock};

pub const USAGE: &str = "\
Usage: ALMANAC_TOKEN=<token> almanac mcp
       almanac mcp --token-file FILE      (or ALMANAC_TOKEN_FILE=FILE)

Serves the calendar to an AI assistant over MCP on stdin/stdout. The token
(`almanac token create NAME --scopes events:read,events:write`) decides what
the assistant may do; without events:write it sees no write tools. The MCP
server must be switched on (Settings > API & Security, or \"mcpServer\":
{\"enabled\": true} in settings.json). With Almanac running, this goes
through it (its REST server must be on); otherwise it opens the vault itself.
A token file must be yours alone (chmod 600): one others can read is refused.
See docs/mcp.md.";

/// Runs `almanac mcp ARGS…`.
pub fn main(mut args: impl Iterator<Item = String>) -> ExitCode {
    let usage_error = |message: &str| {
        eprintln!("almanac mcp: {message}\n\n{USAGE}");
        ExitCode::from(Exit::Usage.code())
    };
    let mut token_file = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--token-file" => match args.next() {
                Some(file) => token_file = Some(PathBuf::from(file)),
                None => return usage_error("--token-file needs a file"),
            },
            other => return usage_error(&format!("unknown argument `{other}`")),
        }
    }
    let paths = Paths::platform();
    // The command line's sources and checks: a file others can read is
    // refused, not used.
    let secret = match TokenSources::from_env(token_file, &paths).secret() {
        Ok(Some(secret)) => secret,
        Ok(None) => {
            return usage_error(
                "no token: set ALMANAC_TOKEN, or name a file only you can read with \
                 --token-file or ALMANAC_TOKEN_FILE",
            );
        }
        Err(error) => {
            eprintln!("almanac mcp: {error}");
            return ExitCode::from(error.exit.code());
        }
    };
    init_logging();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("almanac mcp: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(paths, secret)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("almanac mcp: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Warnings and errors only, to stderr: stdout is the protocol's.
fn init_logging() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ALMANAC_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .try_init();
}

async fn run(paths: Paths, secret: String) -> Result<(), String> {
    match DataLock::acquire(&paths) {
        // Nobody runs: serve in-process. The lock is let go just before the
        // core takes it for itself (below), which the core reports.
        Ok(lock) => {
            drop(lock);
            in_process(paths, secret).await
        }
        Err(DataLockError::Held(_)) => bridge(&paths, &secret).await,
        Err(error) => Err(error.to_string()),
    }
}

async fn in_process(paths: Paths, secret: String) -> Result<(), String> {
    let secrets = SecretsInUse::at_start(&paths);
    let core = Core::open(
        paths.clone(),
        secrets.store,
        Arc::new(HeadlessUi),
        Arc::new(DeclineAll),
    )
    .await
    .map_err(|error| error.to_string())?;
    if core.data_lock.is_none() {
        // An instance started in between: go through it after all.
        drop(core);
        return bridge(&paths, &secret).await;
    }
    let context = McpContext::from(&core);
    if !context.enabled() {
        return Err(SWITCHED_OFF.to_string());
    }
    tracing::info!("no Almanac is running: serving the vault in this process");
    let api = core
        .plugin()
        .with_token(&secret)
        .ok_or("the token was refused (unknown, expired or revoked)")?;
    // As over HTTP: a session needs a token that may read the calendar.
    if !api.scopes().grants(Scope::EventsRead) {
        return Err("the token lacks the events:read scope an MCP session needs".into());
    }
    serve_stdio(context, api).await
}

const SWITCHED_OFF: &str = "the MCP server is off; turn it on in Settings > API & Security, \
or set \"mcpServer\": {\"enabled\": true} in settings.json";

/// Where the running instance serves `/mcp`.
fn endpoint(paths: &Paths) -> Result<String, String> {
    // Read only: the running instance owns the file.
    let file = paths.settings_file();
    let settings: Settings = std::fs::read(&file)
        .map_err(|error| error.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|error| error.to_string()))
        .map_err(|error| format!("reading {}: {error}", file.display()))?;
    if !settings.rest_server_enabled {
        return Err(
            "Almanac is running with its REST server off; `almanac mcp` goes through \
            it: turn it on in Settings > API & Security (restServerEnabled)"
                .to_string(),
        );
    }
    if !settings.mcp_server.enabled {
        return Err(SWITCHED_OFF.to_string());
    }
    Ok(format!(
        "http://127.0.0.1:{}/mcp",
        settings.local_server_port
    ))
}

/// The bridge's state: the session the server gave, where to write.
struct Bridge {
    client: reqwest::Client,
    url: String,
    secret: String,
    session: RwLock<Option<String>>,
    protocol: RwLock<Option<String>>,
    stdout: Mutex<tokio::io::Stdout>,
}

async fn bridge(paths: &Paths, secret: &str) -> Result<(), String> {
    let bridge = Arc::new(Bridge {
        client: reqwest::Client::builder()
            .no_proxy()
            .build()
            .map_err(|error| error.to_string())?,
        url: endpoint(paths)?,
        secret: secret.to_string(),
        session: RwLock::new(None),
        protocol: RwLock::new(None),
        stdout: Mutex::new(tokio::io::stdout()),
    });
    tracing::info!(url = %bridge.url, "going through the running Almanac");
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut in_flight = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "a line on stdin is not JSON; skipped");
                continue;
            }
        };
        // The handshake sets the session every later message carries, so
        // it completes before the next line is read.
        if message["method"] == "initialize" {
            bridge.forward(message).await;
        } else {
            let bridge = bridge.clone();
            in_flight.spawn(async move { bridge.forward(message).await });
        }
    }
    while in_flight.join_next().await.is_some() {}
    bridge.close().await;
    Ok(())
}

impl Bridge {
    /// POSTs one message and writes every message of the answer to stdout;
    /// a refused request is answered with a JSON-RPC error, so the client
    /// never waits for an answer that will not come.
    async fn forward(&self, message: Value) {
        let id = message.get("id").cloned();
        let is_initialize = message["method"] == "initialize";
        let mut request = self
            .client
            .post(&self.url)
            .bearer_auth(&self.secret)
            .header("accept", "application/json, text/event-stream")
            .json(&message);
        if let Some(session) = self.session.read().await.as_ref() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = self.protocol.read().await.as_ref() {
            request = request.header("mcp-protocol-version", version);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                return self
                    .fail(id, format!("Almanac did not answer: {error}"))
                    .await;
            }
        };
        if let Some(session) = response.headers().get("mcp-session-id")
            && let Ok(session) = session.to_str()
        {
            *self.session.write().await = Some(session.to_string());
        }
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return self
                .fail(id, format!("Almanac answered {status}: {body}"))
                .await;
        }
        let event_stream = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        if event_stream {
            self.relay_stream(response).await;
        } else {
            let body = response.text().await.unwrap_or_default();
            if is_initialize {
                self.remember_protocol(&body).await;
            }
            if !body.trim().is_empty() {
                self.write(body.trim()).await;
            }
        }
    }

    /// Writes each SSE event's data to stdout as it arrives, each event
    /// decoded whole ([`SseEvents`]).
    async fn relay_stream(&self, mut response: reqwest::Response) {
        let mut events = SseEvents::default();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => match events.push(&chunk) {
                    Ok(datas) => {
                        for data in datas {
                            self.remember_protocol(&data).await;
                            self.write(data.trim()).await;
                        }
                    }
                    Err(why) => {
                        tracing::warn!("the answer stream was dropped: {why}");
                        break;
                    }
                },
                Ok(None) => break,
                Err(error) => {
                    tracing::warn!(%error, "the answer stream broke off");
                    break;
                }
            }
        }
    }

    /// The version the handshake agreed on, sent on every later request.
    async fn remember_protocol(&self, message: &str) {
        if let Ok(message) = serde_json::from_str::<Value>(message)
            && let Some(version) = message["result"]["protocolVersion"].as_str()
        {
            *self.protocol.write().await = Some(version.to_string());
        }
    }

    async fn fail(&self, id: Option<Value>, message: String) {
        tracing::warn!("{message}");
        if let Some(id) = id {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": { "code": -32603, "message": message },
            });
            self.write(&error.to_string()).await;
        }
    }

    async fn write(&self, message: &str) {
        let mut stdout = self.stdout.lock().await;
        let line = format!("{message}\n");
        if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
            tracing::warn!("stdout is closed");
        }
    }

    /// Ends the session on the server.
    async fn close(&self) {
        if let Some(session) = self.session.read().await.as_ref() {
            let _ = self
                .client
                .delete(&self.url)
                .bearer_auth(&self.secret)
                .header("mcp-session-id", session)
                .send()
                .await;
        }
    }
}
