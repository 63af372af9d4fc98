//! An MCP `tools/call` of `list_events` for one week against the REST
//! `GET /api/v1/events` of the same week, on a generated vault: one client,
//! sequential requests over real HTTP on loopback, timed end to end (request
//! sent → whole answer read; for MCP, the SSE event carrying the result).
//! Run inside `scripts/session.sh` (tokens live in the OS keyring), release
//! build:
//!
//! ```sh
//! cargo build -p almanac-core --release --examples
//! target/release/examples/gen_vault /tmp/v10k 10000
//! scripts/session.sh target/release/examples/bench_mcp /tmp/v10k 50
//! ```

use std::time::{Duration, Instant};

use almanac_core::rest::{RestServer, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, free_port, new_token};
use serde_json::{Value, json};

const START: &str = "2025-06-02";
const END: &str = "2025-06-08";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(vault) = args.next() else {
        eprintln!("usage: bench_mcp VAULT [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(50);
    let core = InstanceBuilder::new()
        .vault(vault)
        .settings(|s| s.display_timezone = "Europe/Berlin".into())
        .try_open()
        .await?;
    let secret = new_token(&core, "benchmark", &[Scope::EventsRead], Expiry::Never).await;
    let server = RestServer::start(&core);
    let port = free_port();
    let plugin = core.plugin().clone();
    let patch = json!({"restServerEnabled": true, "localServerPort": port,
                       "mcpServer": {"enabled": true}});
    tokio::task::spawn_blocking(move || plugin.update_settings(Actor::User, &patch)).await??;
    server
        .subscribe()
        .wait_for(|s| matches!(s, ServerState::Listening(_)))
        .await?;

    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let rest_url = format!("{base}/api/v1/events?start={START}&end={END}");
    let mcp = Mcp::connect(&client, &format!("{base}/mcp"), &secret).await?;

    let rest = time(rounds, || async {
        let body = client
            .get(&rest_url)
            .bearer_auth(&secret)
            .send()
            .await?
            .bytes()
            .await?;
        Ok(body.len())
    })
    .await?;
    // The REST server keeps its answers, so the row above is a repeated
    // question; MCP answers each call anew. This row asks REST a new question
    // each round (the week's end moved by a second), as MCP always does.
    let asked = std::sync::atomic::AtomicUsize::new(0);
    let fresh = time(rounds, || async {
        let n = asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let end = format!("{END}T23:{:02}:{:02}", n / 60 % 60, n % 60);
        let body = client
            .get(format!("{base}/api/v1/events?start={START}&end={end}"))
            .bearer_auth(&secret)
            .send()
            .await?
            .error_for_status()?
            .bytes()
            .await?;
        Ok(body.len())
    })
    .await?;
    let call = json!({"name": "list_events", "arguments": {"start": START, "end": END}});
    let tools = time(rounds, || async {
        mcp.request("tools/call", call.clone())
            .await
            .map(|a| a.len())
    })
    .await?;
    println!("one week ({START}..{END}), {rounds} rounds each, after one warm-up");
    report("REST GET /api/v1/events", &rest);
    report("REST, a new question each time", &fresh);
    report("MCP tools/call list_events", &tools);
    server.shutdown().await;
    Ok(())
}

/// An initialized MCP session over Streamable HTTP.
struct Mcp<'a> {
    client: &'a reqwest::Client,
    url: String,
    secret: String,
    session: String,
}

impl<'a> Mcp<'a> {
    async fn connect(
        client: &'a reqwest::Client,
        url: &str,
        secret: &str,
    ) -> Result<Mcp<'a>, Box<dyn std::error::Error>> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}});
        let answer = post(client, url, secret, None, &init).await?;
        let session = answer
            .headers()
            .get("mcp-session-id")
            .ok_or("no mcp-session-id")?
            .to_str()?
            .to_string();
        answer.bytes().await?;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(client, url, secret, Some(&session), &initialized).await?;
        Ok(Mcp {
            client,
            url: url.to_string(),
            secret: secret.to_string(),
            session,
        })
    }

    /// The result's JSON text, read from the answer's SSE event.
    async fn request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<String, Box<dyn std::error::Error>> {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let text = post(
            self.client,
            &self.url,
            &self.secret,
            Some(&self.session),
            &message,
        )
        .await?
        .text()
        .await?;
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|data| data.contains("\"result\""))
            .map(str::to_string)
            .ok_or_else(|| format!("no result in {text}").into())
    }
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    secret: &str,
    session: Option<&str>,
    body: &Value,
) -> Result<reqwest::Response, reqwest::Error> {
    let mut request = client
        .post(url)
        .bearer_auth(secret)
        .header("accept", "application/json, text/event-stream")
        .json(body);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await?.error_for_status()
}

async fn time<F, Fut>(
    rounds: usize,
    run: F,
) -> Result<Vec<(Duration, usize)>, Box<dyn std::error::Error>>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<usize, Box<dyn std::error::Error>>>,
{
    run().await?;
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        let bytes = run().await?;
        samples.push((started.elapsed(), bytes));
    }
    Ok(samples)
}

fn report(name: &str, samples: &[(Duration, usize)]) {
    let mut times: Vec<Duration> = samples.iter().map(|(t, _)| *t).collect();
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<32} median {:>8.2?}  p90 {:>8.2?}  max {:>8.2?}  ({} bytes)",
        at(0.5),
        at(0.9),
        at(1.0),
        samples[0].1
    );
}
