//! Settings › API & Security, driven through the real window (tauri-driver +
//! WebKitWebDriver under Xvfb) against the real REST server and keyring.

mod support;

use reqwest::StatusCode;
use support::instance::Instance;
use support::port_open;
use support::webdriver::{Session, Theme};

const STATUS: &str = "document.getElementById('rest-status').dataset.state";
const ROW: &str = "tr[data-token-name='e2e script']";

#[tokio::test]
async fn token_from_the_settings_window_works_until_revoked() {
    let instance = Instance::new();
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
    let http = reqwest::Client::new();
    let get = |path: &str| {
        http.get(format!("{}{path}", instance.api()))
            .bearer_auth(&secret)
            .send()
    };
    assert_eq!(get("/events").await.unwrap().status(), StatusCode::OK);
    assert_eq!(
        get("/settings").await.unwrap().status(),
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
        get("/events").await.unwrap().status(),
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
    let instance = Instance::with_settings(serde_json::json!({ "restServerEnabled": true }));
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
