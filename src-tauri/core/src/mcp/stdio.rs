//! MCP on stdin/stdout, served in this process until the client closes
//! stdin or the app asks for the data folder.
//!
//! `almanac mcp` serves the vault itself only while no app runs. When the
//! app starts, it asks for the data folder ([`crate::data_lock`]); the
//! session must then move to the app without the assistant noticing. So the
//! messages do not go straight from stdin to the SDK: this front reads them,
//! hands them on, and keeps what a move needs — the client's `initialize`
//! (to replay to the app) and the requests still unanswered. Asked to hand
//! over, it passes on no new request (they wait, in order), lets the
//! unanswered ones finish (answers to the server's own questions still go
//! through: a call may be waiting on one), and returns what waits.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

use rmcp::service::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, Lines};

use super::{AlmanacMcp, McpContext};
use crate::api::AuthorizedApi;

/// Requests read while handing over, at most: past it stdin is not read
/// until the move is done (the client waits; nothing is dropped).
const MAX_WAITING: usize = 256;

/// How long calls under way may take to finish once the app asks; past it
/// they are answered with an error saying to try again, so a call that never
/// ends (a question nobody answers) cannot keep the app from starting.
const FINISH_WITHIN: Duration = Duration::from_secs(15);

/// What the session leaves for the app to carry on with.
#[derive(Debug, Default)]
pub struct Handover {
    /// The client's `initialize`, to replay (none under a protocol with no
    /// handshake).
    pub initialize: Option<Value>,
    /// Messages read but not yet served, in the order they came.
    pub waiting: Vec<Value>,
}

/// How a stdio session ended.
#[derive(Debug)]
pub enum StdioEnd {
    /// The client closed stdin: the session is over.
    Closed,
    /// The app asked for the data folder; the session goes on through it.
    HandedOver(Handover),
}

/// Serves MCP with `api`'s token on the SDK, spawned on `engine` (the
/// runtime the engine's tasks live on), reading `input` and writing
/// `output`, until the client closes `input` or `handover` completes.
pub async fn serve_stdio<R, W>(
    context: McpContext,
    api: AuthorizedApi,
    engine: &tokio::runtime::Handle,
    input: &mut Lines<R>,
    output: &mut W,
    handover: impl Future<Output = ()>,
) -> Result<StdioEnd, String>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let server = engine.spawn(async move {
        let running = AlmanacMcp::with_token(context, api)
            .serve(theirs)
            .await
            .map_err(|error| format!("the MCP session did not start: {error}"))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| format!("the MCP session failed: {error}"))
    });
    let (from_server, mut to_server) = tokio::io::split(ours);
    let mut from_server = BufReader::new(from_server).lines();
    let mut front = Front::default();
    let mut input_open = true;
    let mut asked = false;
    let finish_within = tokio::time::sleep(Duration::MAX);
    tokio::pin!(handover, finish_within);
    let end = loop {
        if asked && front.unanswered.is_empty() {
            break StdioEnd::HandedOver(front.handover);
        }
        tokio::select! {
            () = &mut handover, if !asked => {
                tracing::info!("the app asks for the data folder: handing the session over");
                asked = true;
                finish_within.as_mut().reset(tokio::time::Instant::now() + FINISH_WITHIN);
            }
            () = &mut finish_within, if asked => {
                for id in front.unanswered.drain() {
                    write_line(output, &try_again(&id)).await?;
                }
            }
            line = input.next_line(), if input_open && front.handover.waiting.len() < MAX_WAITING => {
                match line.map_err(|error| error.to_string())? {
                    None => {
                        input_open = false;
                        // The SDK ends the session at the end of its input.
                        let _ = to_server.shutdown().await;
                    }
                    Some(line) => {
                        if let Some(line) = front.client_said(line, asked) {
                            to_server.write_all(line.as_bytes()).await.map_err(gone)?;
                            to_server.write_all(b"\n").await.map_err(gone)?;
                        }
                    }
                }
            }
            line = from_server.next_line() => match line.map_err(|error| error.to_string())? {
                Some(line) => {
                    front.server_said(&line);
                    write_line(output, &line).await?;
                }
                None => break StdioEnd::Closed,
            },
        }
    };
    // End the session on the SDK (its input ends) and wait for it to wind up.
    drop(to_server);
    drop(from_server);
    match server.await {
        Ok(Err(error)) if matches!(end, StdioEnd::Closed) => Err(error),
        Err(error) if error.is_panic() => Err(format!("the MCP session failed: {error}")),
        _ => Ok(end),
    }
}

/// What the front keeps track of.
#[derive(Default)]
struct Front {
    /// Ids (as JSON text) of the client's requests not yet answered.
    unanswered: HashSet<String>,
    handover: Handover,
}

impl Front {
    /// A line from the client: what to pass to the server now, if anything.
    fn client_said(&mut self, line: String, handing_over: bool) -> Option<String> {
        if line.trim().is_empty() {
            return None;
        }
        // Not JSON: the SDK answers that; nothing to keep.
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            return (!handing_over).then_some(line);
        };
        // An answer to the server's own question: a call waits on it.
        let is_answer = message.get("method").is_none();
        if handing_over && !is_answer {
            self.handover.waiting.push(message);
            return None;
        }
        if message["method"] == "initialize" {
            self.handover.initialize = Some(message.clone());
        }
        if !is_answer && let Some(id) = message.get("id") {
            self.unanswered.insert(id.to_string());
        }
        Some(line)
    }

    /// A line from the server: an answer settles its request.
    fn server_said(&mut self, line: &str) {
        if let Ok(message) = serde_json::from_str::<Value>(line)
            && message.get("method").is_none()
            && let Some(id) = message.get("id")
        {
            self.unanswered.remove(&id.to_string());
        }
    }
}

/// The answer to a call cut short by the move to the app.
fn try_again(id: &str) -> String {
    let id: Value = serde_json::from_str(id).unwrap_or(Value::Null);
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32603,
            "message": "Almanac's app started and took the calendar over while this call \
                        was under way; it may or may not have been carried out: check, then \
                        try again",
        },
    })
    .to_string()
}

async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, line: &str) -> Result<(), String> {
    output.write_all(line.as_bytes()).await.map_err(gone)?;
    output.write_all(b"\n").await.map_err(gone)?;
    output.flush().await.map_err(gone)
}

fn gone(error: std::io::Error) -> String {
    format!("the MCP session's stream closed: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_wait_while_handing_over_and_answers_still_pass() {
        let mut front = Front::default();
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#;
        assert!(front.client_said(init.into(), false).is_some());
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#;
        assert!(front.client_said(call.into(), false).is_some());
        front.server_said(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#);
        assert_eq!(front.unanswered, HashSet::from(["1".to_string()]));

        let later = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        assert!(front.client_said(later.into(), true).is_none(), "waits");
        let answer = r#"{"jsonrpc":"2.0","id":"s1","result":{"action":"accept"}}"#;
        assert!(front.client_said(answer.into(), true).is_some(), "passes");
        front.server_said(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert!(front.unanswered.is_empty());
        assert_eq!(front.handover.waiting.len(), 1);
        assert_eq!(front.handover.initialize.as_ref().unwrap()["id"], 0);
    }

    #[test]
    fn a_server_request_is_not_taken_for_an_answer() {
        let mut front = Front::default();
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
        front.client_said(call.into(), false);
        // The server asks the client something with the same id.
        front.server_said(r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create"}"#);
        assert_eq!(front.unanswered.len(), 1);
    }
}
