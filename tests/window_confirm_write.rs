//! An assistant's delete through `/mcp`, from a client that cannot ask the
//! person itself (no elicitation): the running app's confirmation dialog
//! asks instead. No (the focused answer) keeps the note and the assistant is
//! told it was refused; Yes deletes it. The note's title is shown made safe
//! and marked as the note's words; Yes waits until the question was seen.

use crate::support;

use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use support::eventually;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const NOTE: &str = "2026-01-05 Standup.md";
const NOTE_ID: &str = "fullnote:events/2026-01-05 Standup.md";

/// A plain JSON-RPC client of `/mcp` (Streamable HTTP) that declares no
/// elicitation, like most assistants' clients today.
struct McpClient {
    url: String,
    token: String,
    session_id: String,
}

impl McpClient {
    async fn connect(url: String, token: String) -> Self {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "window test", "version": "1"}},
        });
        let (headers, body) = post(&url, &token, None, &initialize).await;
        assert!(body.contains("\"result\""), "initialize: {body}");
        let session_id = headers["mcp-session-id"].to_str().unwrap().to_string();
        let client = McpClient {
            url,
            token,
            session_id,
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(
            &client.url,
            &client.token,
            Some(&client.session_id),
            &initialized,
        )
        .await;
        client
    }

    /// Calls `delete_event` on the note; its result once the person answered.
    async fn delete(&self, id: u64) -> Value {
        let call = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "delete_event", "arguments": {"id": NOTE_ID}},
        });
        let (_, body) = post(&self.url, &self.token, Some(&self.session_id), &call).await;
        // The answer comes as one server-sent event (or plain JSON).
        body.lines()
            .filter_map(|line| line.strip_prefix("data:").or(Some(line)))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message["id"] == id)
            .unwrap_or_else(|| panic!("no answer to the call in {body}"))["result"]
            .clone()
    }
}

async fn post(url: &str, token: &str, session: Option<&str>, body: &Value) -> (HeaderMap, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(body);
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let response = request.send().await.expect("POST /mcp");
    assert!(response.status().is_success(), "{}", response.status());
    let headers = response.headers().clone();
    (headers, response.text().await.unwrap())
}

/// What the dialog showed when first seen ready, read in the same script.
const FIRST_LOOK: &str = "document.body && document.body.dataset.ready === 'true' && {
    page: location.pathname,
    token: document.getElementById('token-name').textContent,
    before: document.getElementById('action-before').textContent,
    title: document.getElementById('action-title').textContent,
    titleFromNote: document.getElementById('action-title').classList.contains('from-note')
        && !document.getElementById('title-origin').hidden,
    after: document.getElementById('action-after').textContent,
    warnings: document.getElementById('text-warnings').textContent,
    yesDisabled: document.getElementById('allow').disabled,
    focused: document.activeElement && document.activeElement.id,
}";

/// Waits for the confirmation dialog, switches to it, and returns its first
/// look.
async fn first_look_at_dialog(session: &Session, calendar: &Value) -> Value {
    let handle = eventually("the confirmation dialog", || async {
        for handle in session.window_handles().await {
            if &handle != calendar
                && session
                    .page_in(&handle)
                    .await
                    .is_some_and(|page| page.ends_with("confirm.html"))
            {
                return Some(handle);
            }
        }
        None
    })
    .await;
    session.switch_to_window(&handle).await;
    session.wait_for(FIRST_LOOK).await
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn a_delete_is_asked_in_the_apps_dialog_no_keeps_the_note_yes_deletes_it() {
    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "mcpServer": { "enabled": true },
    }));
    // A title with a right-to-left override: shown made visible.
    instance.write_note(
        NOTE,
        "title: \"Stand\u{202E}up\"\nallDay: false\ndate: 2026-01-05\nstartTime: \"09:00\"\nendTime: \"09:15\"",
    );
    let note = instance.vault().join("events").join(NOTE);
    let token = instance.mint_token(&[
        almanac_core::tokens::Scope::EventsRead,
        almanac_core::tokens::Scope::EventsWrite,
    ]);
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    let calendar = session.window_handle().await;
    let url = format!("http://127.0.0.1:{}/mcp", instance.rest_port);
    let client = McpClient::connect(url, token).await;

    let refused = tokio::join!(client.delete(2), async {
        let first = first_look_at_dialog(&session, &calendar).await;
        assert_eq!(first["yesDisabled"], true, "Yes usable at once: {first}");
        assert_eq!(first["focused"], "deny", "{first}");
        assert_eq!(first["token"], "black-box test");
        assert_eq!(first["before"], "delete ");
        assert_eq!(first["title"], "Stand[U+202E]up", "shown made visible");
        assert_eq!(first["titleFromNote"], true, "{first}");
        assert!(
            first["after"].as_str().unwrap().contains("2026-01-05"),
            "{first}"
        );
        assert_eq!(session.title().await, "Almanac — Allow this change?");
        session.click_closing_window("#deny").await;
    })
    .0;
    assert_eq!(refused["isError"], true, "{refused}");
    let message = text_of(&refused);
    assert!(message.contains("refused in Almanac's dialog"), "{message}");
    assert!(note.exists(), "No deleted the note");

    session.switch_to_window(&calendar).await;
    let allowed = tokio::join!(client.delete(3), async {
        first_look_at_dialog(&session, &calendar).await;
        session
            .wait_for("!document.getElementById('allow').disabled")
            .await;
        session.click_closing_window("#allow").await;
    })
    .0;
    assert_ne!(allowed["isError"], true, "{allowed}");
    assert!(!note.exists(), "Yes kept the note: {}", text_of(&allowed));
    session.switch_to_window(&calendar).await;
    session.end().await;
}
