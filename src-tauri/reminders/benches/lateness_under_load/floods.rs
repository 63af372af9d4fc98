//! The loads one token can put on the REST port besides `GET /events`
//! (issue 32's "one client cannot starve the others"): change-feed
//! streams, MCP sessions and parallel MCP listings. Each runs on the load
//! runtime, as another process would, until `stop`, and counts what its
//! requests got.
//!
//! A refused client waits as its `Retry-After` says and tries again: a
//! greedy client, not one that floods the port with requests as fast as it
//! can (any client can use up the CPU that way; the bounds are about what a
//! client can hold).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::future::join_all;
use serde_json::{Value, json};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

/// Change-feed streams one token tries to hold.
const STREAMS: usize = 300;
/// MCP sessions one token tries to open.
const SESSIONS: usize = 1_000;
/// MCP listings one token keeps running at once, in one session.
const LISTINGS: usize = 32;
/// A request the load gives up on (and counts as `other`).
const GIVE_UP: Duration = Duration::from_secs(30);
/// The wait after a refusal that names none.
const DEFAULT_RETRY: Duration = Duration::from_secs(5);
/// The MCP protocol version the requests speak (sessions are a feature of
/// the versions before 2026-07-28).
const PROTOCOL: &str = "2025-11-25";

/// Which load the bench puts on the port: `LOAD=rest` (the default),
/// `sse`, `mcp-sessions` or `mcp-listings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    /// `clients` back-to-back uncached one-year `GET /events`.
    Rest { clients: usize },
    /// One token opening [`STREAMS`] change-feed streams.
    Sse,
    /// One token opening [`SESSIONS`] MCP sessions.
    McpSessions,
    /// One token running [`LISTINGS`] year-long MCP listings at once.
    McpListings,
}

impl Load {
    /// From `LOAD` (and `LOAD_CLIENTS` for `rest`).
    pub fn from_env() -> Self {
        let clients = std::env::var("LOAD_CLIENTS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(8);
        match std::env::var("LOAD").as_deref() {
            Err(_) | Ok("rest") => Load::Rest { clients },
            Ok("sse") => Load::Sse,
            Ok("mcp-sessions") => Load::McpSessions,
            Ok("mcp-listings") => Load::McpListings,
            Ok(other) => panic!("LOAD={other}: one of rest, sse, mcp-sessions, mcp-listings"),
        }
    }

    pub fn describe(self) -> String {
        match self {
            Load::Rest { clients } => format!("{clients} clients of uncached one-year GET /events"),
            Load::Sse => format!("one token opening {STREAMS} change-feed streams"),
            Load::McpSessions => format!("one token opening {SESSIONS} MCP sessions"),
            Load::McpListings => {
                format!("one token running {LISTINGS} year-long MCP listings at once")
            }
        }
    }
}

/// What a load's requests got, counted as they come.
pub struct Tally {
    names: &'static [&'static str],
    counts: Vec<AtomicUsize>,
}

impl Tally {
    fn new(names: &'static [&'static str]) -> Arc<Self> {
        Arc::new(Self {
            names,
            counts: names.iter().map(|_| AtomicUsize::new(0)).collect(),
        })
    }

    pub fn add(&self, kind: usize) {
        self.counts[kind].fetch_add(1, Ordering::Relaxed);
    }

    pub fn total(&self) -> usize {
        self.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// `3 × 200, 12 × 429, …`, the kinds with none left out.
    pub fn summary(&self) -> String {
        let kinds: Vec<String> = self
            .names
            .iter()
            .zip(&self.counts)
            .map(|(name, count)| (name, count.load(Ordering::Relaxed)))
            .filter(|(_, count)| *count > 0)
            .map(|(name, count)| format!("{count} × {name}"))
            .collect();
        match kinds.is_empty() {
            true => "nothing answered".into(),
            false => kinds.join(", "),
        }
    }
}

/// Starts `load` on `runtime` with `token`'s requests to `base`.
pub fn spawn(
    load: Load,
    runtime: &Runtime,
    base: &str,
    token: &str,
    stop: &Arc<AtomicBool>,
) -> (Vec<JoinHandle<()>>, Arc<Tally>) {
    let client = reqwest::Client::new();
    let (base, token) = (base.to_string(), token.to_string());
    match load {
        Load::Rest { clients } => {
            let tally = Tally::new(&["200", "400", "503", "other"]);
            let tasks = (0..clients)
                .map(|n| {
                    let (base, token) = (base.clone(), token.clone());
                    runtime.spawn(super::hammer(n, base, token, stop.clone(), tally.clone()))
                })
                .collect();
            (tasks, tally)
        }
        Load::Sse => {
            let tally = Tally::new(SSE_KINDS);
            let follower = Follower {
                client,
                url: format!("{base}/api/v1/changes"),
                token,
            };
            let tasks = (0..STREAMS)
                .map(|_| runtime.spawn(follower.clone().follow(stop.clone(), tally.clone())))
                .collect();
            (tasks, tally)
        }
        Load::McpSessions => {
            let tally = Tally::new(SESSION_KINDS);
            let mcp = Mcp::new(client, &base, &token);
            let tasks = (0..SESSIONS)
                .map(|_| runtime.spawn(mcp.clone().open_one(stop.clone(), tally.clone())))
                .collect();
            (tasks, tally)
        }
        Load::McpListings => {
            let tally = Tally::new(LISTING_KINDS);
            let mcp = Mcp::new(client, &base, &token);
            let task = runtime.spawn(mcp.listings(stop.clone(), tally.clone()));
            (vec![task], tally)
        }
    }
}

/// How long a refusal asks the client to wait (`Retry-After`, seconds).
fn retry_after(response: &reqwest::Response) -> Duration {
    response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .map_or(DEFAULT_RETRY, Duration::from_secs)
}

/// Sleeps `wait`, or less if the load stops first.
async fn pause(wait: Duration, stop: &AtomicBool) {
    let until = tokio::time::Instant::now() + wait;
    while !stop.load(Ordering::Relaxed) && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

const SSE_KINDS: &[&str] = &["200 (a stream held)", "429", "503", "other"];

/// One client following the change feed as a stream, reconnecting when
/// refused (after `Retry-After`) or when its stream ends.
#[derive(Clone)]
struct Follower {
    client: reqwest::Client,
    url: String,
    token: String,
}

impl Follower {
    async fn follow(self, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
        while !stop.load(Ordering::Relaxed) {
            let request = self
                .client
                .get(&self.url)
                .bearer_auth(&self.token)
                .header("accept", "text/event-stream")
                .send();
            let Ok(Ok(mut response)) = tokio::time::timeout(GIVE_UP, request).await else {
                tally.add(3);
                pause(DEFAULT_RETRY, &stop).await;
                continue;
            };
            match response.status().as_u16() {
                200 => {
                    tally.add(0);
                    hold(&mut response, &stop).await;
                }
                status => {
                    tally.add(match status {
                        429 => 1,
                        503 => 2,
                        _ => 3,
                    });
                    let wait = retry_after(&response);
                    let _ = response.bytes().await;
                    pause(wait, &stop).await;
                }
            }
        }
    }
}

/// Reads a stream (its keep-alive comments, any entries) until it ends or
/// the load stops; dropping it then closes the connection.
async fn hold(response: &mut reqwest::Response, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        match tokio::time::timeout(Duration::from_millis(200), response.chunk()).await {
            Ok(Ok(Some(_))) | Err(_) => {}
            Ok(Ok(None)) | Ok(Err(_)) => return,
        }
    }
}

const SESSION_KINDS: &[&str] = &["200 (a session opened)", "429", "503", "other"];
const LISTING_KINDS: &[&str] = &[
    "answered",
    "refused at the 10,000-event ceiling",
    "refused: the token's query share busy (429 in the tool result)",
    "refused: all query threads busy (503 in the tool result)",
    "HTTP 429/503",
    "other",
];

/// Streamable HTTP requests to `/mcp` with one token.
#[derive(Clone)]
struct Mcp {
    client: reqwest::Client,
    url: String,
    token: String,
}

impl Mcp {
    fn new(client: reqwest::Client, base: &str, token: &str) -> Self {
        Self {
            client,
            url: format!("{base}/mcp"),
            token: token.to_string(),
        }
    }

    /// A JSON-RPC message, in `session` if any.
    fn post(&self, session: Option<&str>, message: &Value) -> reqwest::RequestBuilder {
        let request = self
            .client
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL)
            .json(message);
        match session {
            Some(id) => request.header("mcp-session-id", id),
            None => request,
        }
    }

    fn initialize() -> Value {
        json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                       "clientInfo": {"name": "lateness bench", "version": "1"}},
        })
    }

    /// One client after a session: `initialize` until one is opened (then
    /// it keeps it, idle, as a client that never ends its sessions does),
    /// after `Retry-After` when refused.
    async fn open_one(self, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
        while !stop.load(Ordering::Relaxed) {
            let request = self.post(None, &Self::initialize()).send();
            let Ok(Ok(response)) = tokio::time::timeout(GIVE_UP, request).await else {
                tally.add(3);
                pause(DEFAULT_RETRY, &stop).await;
                continue;
            };
            let status = response.status().as_u16();
            let wait = retry_after(&response);
            let _ = reply(response).await;
            match status {
                200 => return tally.add(0),
                429 => tally.add(1),
                503 => tally.add(2),
                _ => tally.add(3),
            }
            pause(wait, &stop).await;
        }
    }

    /// Opens one session, then runs [`LISTINGS`] listings in it at once,
    /// each starting its next as soon as it has its answer.
    async fn listings(self, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
        let opened = self.post(None, &Self::initialize()).send().await.unwrap();
        assert_eq!(opened.status(), 200, "the listing session opens");
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        reply(opened).await.unwrap();
        let ready = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let ready = self.post(Some(&session), &ready).send().await.unwrap();
        assert!(ready.status().is_success(), "{}", ready.status());
        join_all((0..LISTINGS).map(|lane| self.list(&session, lane, stop.clone(), tally.clone())))
            .await;
    }

    /// One listing after another over a year: in turn `list_events` (the
    /// whole vault, refused at the ceiling after 10,001 occurrences) and
    /// `search_events` for a sixth of it (about 9,000 events, answered),
    /// as the REST load asks. Every start differs by a millisecond, so no
    /// answer is served from a cache.
    async fn list(&self, session: &str, lane: usize, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
        let mut n: i64 = 0;
        while !stop.load(Ordering::Relaxed) {
            n += 1;
            let start = super::LOAD_FROM_MS + 500_000_000 + (lane as i64) * 1_000_000 + n;
            let range = (start.to_string(), (start + super::YEAR_MS).to_string());
            let call = match n % 2 {
                0 => json!({"name": "search_events", "arguments": {
                    "text": format!("group-{}", n as usize % super::GROUPS),
                    "start": range.0, "end": range.1}}),
                _ => {
                    json!({"name": "list_events", "arguments": {"start": range.0, "end": range.1}})
                }
            };
            // Ids are the session's, not the lane's: rmcp routes an answer
            // by its id, so two calls in flight with one id lose an answer.
            let id = (lane as i64 + 1) * 1_000_000 + n;
            let message =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call});
            let request = self.post(Some(session), &message).send();
            let response = match tokio::time::timeout(GIVE_UP, request).await {
                Ok(Ok(response)) => response,
                Ok(Err(error)) => {
                    unexpected(0, Some(&error.to_string()));
                    tally.add(5);
                    continue;
                }
                Err(_) => {
                    unexpected(0, None);
                    tally.add(5);
                    continue;
                }
            };
            let status = response.status().as_u16();
            let wait = retry_after(&response);
            let text = reply(response).await;
            let kind = match (status, &text) {
                (200, Some(text)) => {
                    first_answer_size(text);
                    listing_kind(text)
                }
                (429 | 503, _) => 4,
                _ => 5,
            };
            if kind == 5 {
                unexpected(status, text.as_deref());
            }
            tally.add(kind);
            if kind == 4 {
                pause(wait, &stop).await;
            }
        }
    }
}

/// Says how large the first answer is (a listing of ~9,000 events), once.
fn first_answer_size(text: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if text.len() > REFUSAL_AT_MOST && !SAID.swap(true, Ordering::Relaxed) {
        eprintln!("first answered listing: {:.1} MB", text.len() as f64 / 1e6);
    }
}

/// Says what the first answer that fits no kind was, once, so `other` in
/// the counts can be told apart.
fn unexpected(status: u16, text: Option<&str>) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        let text: String = text
            .unwrap_or("(no reply in time)")
            .chars()
            .take(400)
            .collect();
        eprintln!("first `other` answer: {status} {text}");
    }
}

/// Which of [`LISTING_KINDS`] a `tools/call` reply is. A refusal is a few
/// hundred bytes and is read as JSON; an answer (megabytes) is only looked
/// at: parsing it would make the bench's own client, in this process, a
/// large part of the RSS measured.
fn listing_kind(reply: &str) -> usize {
    if reply.len() > REFUSAL_AT_MOST {
        return if reply.contains("\"result\"") { 0 } else { 5 };
    }
    let message = reply
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .unwrap_or(Value::Null);
    let result = &message["result"];
    if result["isError"] != Value::Bool(true) {
        return if result.is_object() { 0 } else { 5 };
    }
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    if text.contains("10000") {
        1
    } else if text.contains("event queries running") {
        2
    } else if text.contains("busy") {
        3
    } else {
        5
    }
}

/// The largest reply read as a possible refusal.
const REFUSAL_AT_MOST: usize = 64 * 1024;

/// A reply's body: its JSON-RPC message, as an event of the request's
/// stream (or plain JSON). Read until that event is whole, not until the
/// stream ends, in case the server keeps it open.
async fn reply(mut response: reqwest::Response) -> Option<String> {
    let mut body = Vec::new();
    let read = tokio::time::timeout(GIVE_UP, async {
        while let Ok(Some(chunk)) = response.chunk().await {
            body.extend_from_slice(&chunk);
            // Only a whole event ends in a blank line; look inside then.
            if body.ends_with(b"\n\n") && holds_reply(&body) {
                break;
            }
        }
    });
    read.await.ok()?;
    String::from_utf8(body).ok()
}

fn holds_reply(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(body);
    text.lines()
        .any(|line| line.starts_with("data:") && line.contains("\"jsonrpc\""))
}
