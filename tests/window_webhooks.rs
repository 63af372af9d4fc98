//! Settings › API & Security › Webhooks, driven through the real window
//! (tauri-driver + WebKitWebDriver under Xvfb): a hook added there gets a
//! note written on disk, signed with the secret the window showed once, as
//! the Standard Webhooks reference library verifies; its delivery log,
//! turning it off, and deleting it (the keyring item goes too).

use crate::support;

use almanac_testkit::{WebhookReceiver, files_containing};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

/// Saves what the window shows as `artifacts/screenshots/settings-<name>-light.png`.
async fn screenshot(session: &Session, name: &str) {
    session.painted().await;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../artifacts/screenshots/settings-{name}-light.png"
    ));
    session.screenshot(&path).await;
}

/// What `secret-tool` finds in the session's keyring for hook `id`.
fn keyring_lookup(id: &str) -> Option<String> {
    let output = std::process::Command::new("secret-tool")
        .args(["lookup", "service", "almanac-webhook", "username", id])
        .output()
        .expect("secret-tool (libsecret-tools) is installed");
    output
        .status
        .success()
        .then(|| String::from_utf8(output.stdout).unwrap())
}

#[tokio::test]
async fn a_webhook_added_in_settings_delivers_signed_changes_and_is_deleted() {
    let instance = AppHarness::new();
    let mut receiver = WebhookReceiver::start(200);
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session.click("#tab-api").await;
    session
        .wait_for("!document.getElementById('panel-api').hidden")
        .await;
    session
        .wait_for("!document.getElementById('no-webhooks').hidden")
        .await;

    // Deleted events are ticked by default; untick them, keep created/updated.
    session.type_into("#webhook-url", &receiver.url()).await;
    session
        .click("#webhook-events input[value='event.deleted']")
        .await;
    session.click("#webhook-create").await;
    // The secret, or the refusal the form shows instead.
    let secret = session
        .wait_for(
            "document.getElementById('webhook-secret').textContent \
             || document.getElementById('webhook-error').textContent",
        )
        .await;
    let secret = secret.as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"), "{secret}");
    receiver.knows(&secret);
    let id = session
        .wait_for("document.querySelector('#webhook-rows tr')?.dataset.webhookId")
        .await
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(keyring_lookup(&id).as_deref(), Some(secret.as_str()));
    session.click("#webhook-done").await;
    assert_eq!(session.text("#webhook-secret").await, "", "shown once");
    let row = session.text("#webhook-rows").await;
    assert!(
        row.contains(&receiver.url()) && row.contains("event.created, event.updated"),
        "{row}"
    );

    instance.write_note("2026-01-05 Standup.md", "title: Standup\ndate: 2026-01-05");
    let report = receiver.next();
    assert_eq!(report["error"], serde_json::Value::Null, "{report:#}");
    assert_eq!(report["replayError"], "Message timestamp too old");
    assert_eq!(report["body"]["type"], "event.created");
    assert_eq!(
        report["body"]["data"]["eventId"],
        "fullnote:events/2026-01-05 Standup.md"
    );

    // The delivery log, as the window shows it.
    session
        .click(&format!(
            "#webhook-rows tr[data-webhook-id='{id}'] button:nth-child(2)"
        ))
        .await;
    support::eventually("the delivery in the log", || async {
        session.click("#webhook-log-refresh").await;
        let log = session.text("#webhook-log-rows").await;
        log.contains("Delivered (HTTP 200)").then_some(log)
    })
    .await;
    assert!(
        session
            .text("#webhook-log-rows")
            .await
            .contains("event.created")
    );
    session
        .execute(
            "document.getElementById('webhooks-heading').scrollIntoView()",
            serde_json::json!([]),
        )
        .await;
    screenshot(&session, "webhooks").await;

    // Off: the state says so.
    session
        .click(&format!(
            "#webhook-rows tr[data-webhook-id='{id}'] button:nth-child(1)"
        ))
        .await;
    session
        .wait_for("document.querySelector('#webhook-rows td:nth-child(3)')?.textContent === 'Off'")
        .await;

    assert_eq!(
        files_containing(instance.root(), &secret),
        Vec::<std::path::PathBuf>::new(),
        "the secret reached a file (settings.json, webhooks.json, the log…)"
    );
    assert!(!instance.log().contains(&secret), "the secret was logged");

    session.click("#webhook-rows button.danger").await;
    session
        .wait_for("document.getElementById('webhook-delete-dialog').open")
        .await;
    session.click("#webhook-delete-confirm").await;
    session
        .wait_for("!document.getElementById('no-webhooks').hidden")
        .await;
    assert_eq!(keyring_lookup(&id), None, "the secret left in the keyring");
    session.end().await;
}
