//! Settings › API & Security, driven through the real window (tauri-driver +
//! WebKitWebDriver under Xvfb) against the real REST server and keyring.

use crate::support;

use reqwest::StatusCode;
use support::instance::AppHarness;
use support::port_open;
use support::webdriver::{Session, Theme};

const STATUS: &str = "document.getElementById('rest-status').dataset.state";
const ROW: &str = "tr[data-token-name='e2e script']";

#[tokio::test]
async fn token_from_the_settings_window_works_until_revoked() {
    let instance = AppHarness::new();
    let session = Session::start(&instance, "settings", Theme::Light).await;
    assert_eq!(session.title().await, "Almanac — Settings");

    // Enable REST Server: the port opens.
    assert!(
        !port_open(instance.rest_port),
        "REST server is off by default"
    );
    session.click("#rest-enabled").await;
    session.wait_for(&format!("{STATUS} === 'running'")).await;
    assert!(port_open(instance.rest_port));

    // Generate Token: name, one scope, never expires.
    session.click("#generate-open").await;
    session.type_into("#token-name", "e2e script").await;
    let scopes = session
        .execute(
            "return [...document.querySelectorAll('#scope-list label')].map(l => l.innerText)",
            serde_json::json!([]),
        )
        .await;
    assert_eq!(
        scopes.as_array().unwrap().len(),
        10,
        "every scope is offered"
    );
    let dangerous = session.text("#scope-list label.dangerous").await;
    assert!(dangerous.contains("system:full-access") && dangerous.contains("Dangerous"));
    // The two classes of settings, next to the scopes that reach them.
    assert!(dangerous.contains("vaultPath"), "{dangerous}");
    let write = session
        .execute(
            "return document.querySelector(\"#scope-list input[value='settings:write']\").closest('label').innerText",
            serde_json::json!([]),
        )
        .await;
    let write = write.as_str().unwrap();
    assert!(
        write.contains("firstDay") && !write.contains("vaultPath"),
        "{write}"
    );
    session
        .click("input[name=scope][value='events:read']")
        .await;
    session.click("#generate-submit").await;

    // The secret, shown once, with a warning.
    let secret = session
        .wait_for("document.getElementById('secret-value').textContent")
        .await;
    let secret = secret.as_str().unwrap().to_string();
    assert!(secret.starts_with("ofc_pat_"), "{secret}");
    assert!(
        session
            .text("#secret-panel")
            .await
            .contains("will not be shown again")
    );
    session
        .wait_for(&format!("document.querySelector(\"{ROW}\")"))
        .await;
    session.click("#secret-done").await;
    let page = session
        .execute(
            "return document.documentElement.outerHTML",
            serde_json::json!([]),
        )
        .await;
    assert!(
        !page.as_str().unwrap().contains(&secret),
        "the secret is gone from the page"
    );

    // The secret works over real HTTP, for its scope only.
    assert_eq!(
        instance.api_status(&secret, "/events").await,
        StatusCode::OK
    );
    assert_eq!(
        instance.api_status(&secret, "/settings").await,
        StatusCode::FORBIDDEN
    );
    let listed = session.text(ROW).await;
    assert!(
        listed.contains("events:read") && listed.contains("Active"),
        "{listed}"
    );

    // Revoke, confirmed in the dialog: the next request gets 403.
    session.click(&format!("{ROW} button.revoke")).await;
    session
        .wait_for("document.getElementById('revoke-dialog').open")
        .await;
    session.click("#revoke-confirm").await;
    session
        .wait_for(&format!(
            "document.querySelector(\"{ROW}\").dataset.status === 'revoked'"
        ))
        .await;
    assert_eq!(
        instance.api_status(&secret, "/events").await,
        StatusCode::FORBIDDEN
    );

    // Switching the server off closes the port.
    session.click("#rest-enabled").await;
    session.wait_for(&format!("{STATUS} === 'disabled'")).await;
    assert!(!port_open(instance.rest_port));
    session.end().await;
}

#[tokio::test]
async fn cancelled_revoke_keeps_the_token() {
    let instance = AppHarness::with_settings(serde_json::json!({ "restServerEnabled": true }));
    let session = Session::start(&instance, "settings", Theme::Dark).await;
    session.wait_for(&format!("{STATUS} === 'running'")).await;
    session.click("#generate-open").await;
    session.type_into("#token-name", "e2e script").await;
    session
        .click("input[name=scope][value='settings:read']")
        .await;
    session.click("#generate-submit").await;
    let secret = session
        .wait_for("document.getElementById('secret-value').textContent")
        .await;
    session.click("#secret-done").await;

    session.click(&format!("{ROW} button.revoke")).await;
    session
        .wait_for("document.getElementById('revoke-dialog').open")
        .await;
    session.click("#revoke-dialog button[value=cancel]").await;
    session
        .wait_for("!document.getElementById('revoke-dialog').open")
        .await;

    let response = reqwest::Client::new()
        .get(format!("{}/settings", instance.api()))
        .bearer_auth(secret.as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    session.end().await;
}

/// The whole Generate Token flow works from the keyboard alone.
#[tokio::test]
async fn tokens_can_be_generated_with_the_keyboard_alone() {
    const TAB: &str = "\u{E004}";
    const ENTER: &str = "\u{E007}";
    const SPACE: &str = "\u{E00D}";
    let instance = AppHarness::new();
    let session = Session::start(&instance, "settings", Theme::Light).await;

    // Tab through the page to the button; focus is always visible and in order.
    let mut order = Vec::new();
    while session.focused_id().await != "generate-open" {
        assert!(
            order.len() < 12,
            "Generate Token is not reachable by Tab: {order:?}"
        );
        session.press(TAB).await;
        order.push(session.focused_id().await);
    }
    assert_eq!(
        order[..2],
        ["rest-enabled".to_string(), "rest-port".to_string()]
    );

    // Enter opens the form with the name field focused.
    session.press(ENTER).await;
    session
        .wait_for("document.activeElement.id === 'token-name'")
        .await;
    session.press("kbd").await;
    session.press(TAB).await;
    session.press(SPACE).await; // the first scope: events:read
    session
        .wait_for("document.querySelector(\"input[value='events:read']\").checked")
        .await;
    session.press(ENTER).await; // submits the form
    let secret = session
        .wait_for("document.getElementById('secret-value').textContent")
        .await;
    assert!(secret.as_str().unwrap().starts_with("ofc_pat_"));
    assert_eq!(session.focused_id().await, "secret-copy");
    session
        .wait_for(&format!(
            "document.querySelector(\"{}\")",
            "tr[data-token-name='kbd']"
        ))
        .await;
    session.end().await;
}

/// A vault path that is a regular file: the window opens all the same, a
/// banner says why the notes' calendars are empty, and it goes away once the
/// path is a folder (no restart).
#[tokio::test]
async fn an_unusable_vault_is_named_in_a_banner_until_it_is_fixed() {
    let instance = AppHarness::new();
    std::fs::remove_dir_all(instance.vault()).unwrap();
    std::fs::write(instance.vault(), "not a folder").unwrap();
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session
        .wait_for("!document.getElementById('vault-problem').hidden")
        .await;
    let banner = session.text("#vault-problem").await;
    assert!(
        banner.contains(&instance.vault().display().to_string()),
        "{banner}"
    );

    std::fs::remove_file(instance.vault()).unwrap();
    std::fs::create_dir_all(instance.vault()).unwrap();
    session
        .wait_for("document.getElementById('vault-problem').hidden")
        .await;
    session.end().await;
}

/// The MCP switch opens `/mcp` on the REST port (the window is the user, the
/// only one who may); before it, `/mcp` is a 404 even with a valid token.
#[tokio::test]
async fn the_mcp_switch_opens_mcp_on_the_rest_port() {
    let instance = AppHarness::new();
    // Before the app starts: it reads its tokens at start.
    let token = instance.mint_token(&[almanac_core::tokens::Scope::EventsRead]);
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session.click("#rest-enabled").await;
    session.wait_for(&format!("{STATUS} === 'running'")).await;
    let url = format!("http://127.0.0.1:{}/mcp", instance.rest_port);
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "window test", "version": "1"}},
    });
    let status = || async {
        reqwest::Client::new()
            .post(&url)
            .bearer_auth(&token)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
            .await
            .unwrap()
            .status()
    };
    assert_eq!(status().await, StatusCode::NOT_FOUND, "off by default");

    session.click("#mcp-enabled").await;
    session
        .wait_for("document.getElementById('mcp-enabled').checked")
        .await;
    support::eventually("/mcp to answer", || async {
        (status().await == StatusCode::OK).then_some(())
    })
    .await;
    session.end().await;
}
