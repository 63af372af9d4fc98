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
//! vault itself, under the lock, and serves stdio in-process — until the app
//! starts and asks for the data folder: then the session finishes its calls,
//! the engine stops and lets go, and the same session carries on through the
//! app (its `initialize` replayed there), so the assistant never notices and
//! two engines never write the vault.
//!
//! stdout carries only the protocol; the log goes to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use almanac_core::api::{DeclineAll, HeadlessUi};
use almanac_core::app::Core;
use almanac_core::client::Exit;
use almanac_core::client::sse::SseEvents;
use almanac_core::client::token::TokenSources;
use almanac_core::data_lock::{DataLock, DataLockError};
use almanac_core::instance_proof::{CHALLENGE_HEADER, Challenge, PROOF_HEADER};
use almanac_core::mcp::{Handover, McpContext, StdioEnd, serve_stdio};
use almanac_core::paths::Paths;
use almanac_core::settings::Settings;
use almanac_core::tokens::{Scope, SecretsInUse};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines, Stdin};
use tokio::sync::{Mutex, RwLock};

pub const USAGE: &str = "\
Usage: ALMANAC_TOKEN=<token> almanac mcp
       almanac mcp --token-file FILE      (or ALMANAC_TOKEN_FILE=FILE)

Serves the calendar to an AI assistant over MCP on stdin/stdout. The token
(`almanac token create NAME --scopes events:read,events:write,providers:read`) decides what
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

/// stdin, read line by line; the same reader goes on from the in-process
/// session to the bridge, so no line is lost in the move.
type Input = Lines<BufReader<Stdin>>;

async fn run(paths: Paths, secret: String) -> Result<(), String> {
    let mut input = BufReader::new(tokio::io::stdin()).lines();
    match DataLock::acquire(&paths) {
        Ok(lock) => in_process(&paths, lock, &secret, input).await,
        Err(DataLockError::Held(_)) => bridge(&paths, &secret, &mut input, None).await,
        Err(error) => Err(error.to_string()),
    }
}

/// No instance runs: serve the vault here, on an engine of its own (its
/// own runtime, so that all of it, background tasks too, stops at the
/// handover before the lock goes).
async fn in_process(
    paths: &Paths,
    lock: DataLock,
    secret: &str,
    mut input: Input,
) -> Result<(), String> {
    let engine = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|error| error.to_string())?;
    let secrets = SecretsInUse::at_start(paths);
    let opening = Core::open(
        paths.clone(),
        lock,
        secrets.store,
        Arc::new(HeadlessUi),
        Arc::new(DeclineAll),
    );
    let core = engine
        .spawn(opening)
        .await
        .map_err(|error| error.to_string())?
        .map_err(|error| error.to_string())?;
    let core = Arc::new(core);
    let served = serve_here(&core, secret, engine.handle(), &mut input).await;
    // Whatever ended the session, this engine stops before its lock goes.
    stop_engine(core, engine).await;
    match served? {
        StdioEnd::Closed => Ok(()),
        StdioEnd::HandedOver(handover) => {
            tracing::info!("the vault is the app's now: going on through it");
            bridge(paths, secret, &mut input, Some(handover)).await
        }
    }
}

async fn serve_here(
    core: &Arc<Core>,
    secret: &str,
    engine: &tokio::runtime::Handle,
    input: &mut Input,
) -> Result<StdioEnd, String> {
    let context = McpContext::from(&**core);
    if !context.enabled() {
        return Err(SWITCHED_OFF.to_string());
    }
    tracing::info!("no Almanac is running: serving the vault in this process");
    let api = core
        .plugin()
        .with_token(secret)
        .ok_or("the token was refused (unknown, expired or revoked)")?;
    // As over HTTP: a session needs a token that may read the calendar.
    if !api.scopes().grants(Scope::EventsRead) {
        return Err("the token lacks the events:read scope an MCP session needs".into());
    }
    let asked = {
        let core = core.clone();
        async move { core.data_lock().until_handover_asked().await }
    };
    let mut output = tokio::io::stdout();
    serve_stdio(context, api, engine, input, &mut output, asked).await
}

/// Stops the in-process engine: what is only in memory is written, every
/// task of it ends, and only then is the core (and with it the data
/// folder's lock) let go.
async fn stop_engine(core: Arc<Core>, engine: tokio::runtime::Runtime) {
    let tokens = core.tokens.clone();
    let stopped = tokio::task::spawn_blocking(move || {
        if let Err(error) = tokens.flush_last_used() {
            tracing::warn!("could not save token last-used times: {error}");
        }
        engine.shutdown_timeout(ENGINE_STOP);
        drop(core);
    });
    if let Err(error) = stopped.await {
        tracing::warn!(%error, "stopping the engine");
    }
}

/// How long the engine's last writes may take at a handover.
const ENGINE_STOP: Duration = Duration::from_secs(10);

const SWITCHED_OFF: &str = "the MCP server is off; turn it on in Settings > API & Security, \
or set \"mcpServer\": {\"enabled\": true} in settings.json";

/// Where the running instance serves `/mcp`, and its port.
fn endpoint(paths: &Paths) -> Result<(String, u16), String> {
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
    let port = settings.local_server_port;
    Ok((format!("http://127.0.0.1:{port}/mcp"), port))
}

/// The bridge's state: the session the server gave, where to write.
struct Bridge {
    client: reqwest::Client,
    url: String,
    port: u16,
    secret: String,
    session: RwLock<Option<String>>,
    protocol: RwLock<Option<String>>,
    stdout: Mutex<tokio::io::Stdout>,
}

/// Goes through the running instance's `/mcp`; `resumed` is the session a
/// handover brings along.
async fn bridge(
    paths: &Paths,
    secret: &str,
    lines: &mut Input,
    resumed: Option<Handover>,
) -> Result<(), String> {
    let (url, port) = endpoint(paths)?;
    let bridge = Arc::new(Bridge {
        client: reqwest::Client::builder()
            .no_proxy()
            .build()
            .map_err(|error| error.to_string())?,
        url,
        port,
        secret: secret.to_string(),
        session: RwLock::new(None),
        protocol: RwLock::new(None),
        stdout: Mutex::new(tokio::io::stdout()),
    });
    // A session handed over waits for the app to open the vault and listen.
    let patience = if resumed.is_some() {
        APP_START
    } else {
        Duration::ZERO
    };
    bridge.check_listener(paths, patience).await?;
    tracing::info!(url = %bridge.url, "going through the running Almanac");
    let mut in_flight = tokio::task::JoinSet::new();
    if let Some(resumed) = resumed {
        if let Some(initialize) = resumed.initialize {
            bridge.resume(initialize).await?;
        }
        for message in resumed.waiting {
            bridge.dispatch(message, &mut in_flight).await;
        }
    }
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line) {
            Ok(message) => bridge.dispatch(message, &mut in_flight).await,
            Err(error) => tracing::warn!(%error, "a line on stdin is not JSON; skipped"),
        }
    }
    while in_flight.join_next().await.is_some() {}
    bridge.close().await;
    Ok(())
}

/// How long a session handed over waits for the app to answer on its port
/// (it opens the vault first).
const APP_START: Duration = Duration::from_secs(60);

impl Bridge {
    /// Sends one message from the client on its way.
    async fn dispatch(self: &Arc<Self>, message: Value, in_flight: &mut tokio::task::JoinSet<()>) {
        // The handshake sets the session every later message carries, so
        // it completes before the next line is read.
        if message["method"] == "initialize" {
            self.forward(message).await;
        } else {
            let bridge = self.clone();
            in_flight.spawn(async move { bridge.forward(message).await });
        }
    }

    /// Sends the token only to this user's Almanac: the listener on the
    /// port proves it first ([`almanac_core::instance_proof`]), waiting up
    /// to `patience` for one to listen.
    async fn check_listener(&self, paths: &Paths, patience: Duration) -> Result<(), String> {
        let since = Instant::now();
        loop {
            let challenge = Challenge::new();
            let asked = self
                .client
                .get(&self.url)
                .header(CHALLENGE_HEADER, challenge.header())
                .send()
                .await;
            match asked {
                Ok(response) => {
                    let proof = response
                        .headers()
                        .get(PROOF_HEADER)
                        .and_then(|value| value.to_str().ok());
                    return challenge.check(paths, self.port, proof);
                }
                Err(error) if error.is_connect() && since.elapsed() < patience => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(error) => {
                    return Err(format!("Almanac did not answer at {}: {error}", self.url));
                }
            }
        }
    }

    /// Carries a session handed over on at the app: its `initialize` again
    /// (the answer is not the client's: it had one) and the notice that
    /// follows it.
    async fn resume(&self, initialize: Value) -> Result<(), String> {
        let answer = self
            .post(&initialize)
            .await
            .map_err(|error| format!("the app did not take the session: {error}"))?;
        self.take_session(&answer).await;
        let status = answer.status();
        let body = answer.text().await.unwrap_or_default();
        if !status.is_success() {
            return Err(format!(
                "the app did not take the session: {status}: {body}"
            ));
        }
        for data in SseEvents::default()
            .push(body.as_bytes())
            .unwrap_or_default()
        {
            self.remember_protocol(&data).await;
        }
        self.remember_protocol(&body).await;
        let initialized = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/initialized",
        });
        self.post(&initialized)
            .await
            .map_err(|error| format!("the app did not take the session: {error}"))?;
        Ok(())
    }

    /// POSTs one message with the session's headers.
    async fn post(&self, message: &Value) -> reqwest::Result<reqwest::Response> {
        let mut request = self
            .client
            .post(&self.url)
            .bearer_auth(&self.secret)
            .header("accept", "application/json, text/event-stream")
            .json(message);
        if let Some(session) = self.session.read().await.as_ref() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = self.protocol.read().await.as_ref() {
            request = request.header("mcp-protocol-version", version);
        }
        request.send().await
    }

    /// The session the server gave, sent on every later request.
    async fn take_session(&self, response: &reqwest::Response) {
        if let Some(session) = response.headers().get("mcp-session-id")
            && let Ok(session) = session.to_str()
        {
            *self.session.write().await = Some(session.to_string());
        }
    }
    /// POSTs one message and writes every message of the answer to stdout;
    /// a refused request is answered with a JSON-RPC error, so the client
    /// never waits for an answer that will not come.
    async fn forward(&self, message: Value) {
        let id = message.get("id").cloned();
        let is_initialize = message["method"] == "initialize";
        let response = match self.post(&message).await {
            Ok(response) => response,
            Err(error) => {
                return self
                    .fail(id, format!("Almanac did not answer: {error}"))
                    .await;
            }
        };
        self.take_session(&response).await;
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
