//! `almanac --request-access` end to end: a second launch hands the request
//! to the running app (single-instance handoff), whose consent dialog asks
//! the user; an allowed token's secret is shown once in Settings and works
//! over real HTTP for its scopes only; a declined request creates nothing.
//! Allow is enabled only after the request is painted and a short delay
//! (again after the dialog regains focus); Enter goes to Deny;
//! hidden characters are shown; requests queue, one dialog at a time.

use crate::support;

use std::path::PathBuf;
use std::process::{Command, Output};

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::eventually;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

fn screenshot_path(theme: Theme) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../artifacts/screenshots")
        .join(format!("consent-{}.png", theme.name()))
}

/// Runs `almanac ARGS` for the instance's profile, as a script would.
fn almanac(instance: &AppHarness, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_almanac"))
        .args(args)
        .envs(instance.env())
        .output()
        .expect("run almanac")
}

/// `almanac --request-access …` while the app runs: it hands over and exits.
fn request_access(instance: &AppHarness, args: &[&str]) {
    let mut all = vec!["--request-access"];
    all.extend_from_slice(args);
    let second = almanac(instance, &all);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
}

/// Waits for a window whose handle is not in `known`, switches to it and
/// waits until its page is ready; returns its handle.
async fn switch_to_new_window(session: &Session, known: &[Value]) -> Value {
    let handle = eventually("a new window", || async {
        session
            .window_handles()
            .await
            .into_iter()
            .find(|handle| !known.contains(handle))
    })
    .await;
    session.switch_to_window(&handle).await;
    session
        .wait_for("document.body && document.body.dataset.ready === 'true'")
        .await;
    handle
}

/// What the dialog showed the first time it was seen ready: its text, and
/// whether Allow could be used yet. Read in the same script that sees the
/// page ready, so nothing can happen in between.
const FIRST_LOOK: &str = "document.body && document.body.dataset.ready === 'true' && {
    page: location.pathname,
    name: document.getElementById('token-name')?.textContent,
    reason: document.getElementById('reason')?.textContent,
    warnings: document.getElementById('text-warnings')?.textContent,
    scopes: document.getElementById('scopes')?.textContent,
    allowDisabled: document.getElementById('allow')?.disabled,
}";

/// The handles of the open consent dialogs (found by switching to every
/// window: switch to the one wanted afterwards).
async fn consent_dialogs(session: &Session) -> Vec<Value> {
    let mut dialogs = Vec::new();
    for handle in session.window_handles().await {
        let page = session.page_in(&handle).await;
        if page.is_some_and(|page| page.ends_with("consent.html")) {
            dialogs.push(handle);
        }
    }
    dialogs
}

/// Waits for a new consent dialog, switches to it and returns its first
/// look ([`FIRST_LOOK`]) and its handle. Allow must be disabled then, with
/// the request's text already on the page.
async fn first_look_at_new_dialog(session: &Session, known: &[Value]) -> (Value, Value) {
    let handle = eventually("a new consent dialog", || async {
        consent_dialogs(session)
            .await
            .into_iter()
            .find(|handle| !known.contains(handle))
    })
    .await;
    session.switch_to_window(&handle).await;
    let first = session.wait_for(FIRST_LOOK).await;
    assert!(
        first["page"]
            .as_str()
            .is_some_and(|p| p.ends_with("consent.html")),
        "the new window is not a consent dialog: {first}"
    );
    assert_eq!(
        first["allowDisabled"], true,
        "Allow was usable as soon as the dialog was ready: {first}"
    );
    assert!(
        first["name"].as_str().is_some_and(|n| !n.is_empty())
            && first["scopes"].as_str().is_some_and(|s| !s.is_empty()),
        "the dialog was ready without its text: {first}"
    );
    (first, handle)
}

/// Waits until Allow can be used: the text is painted and the delay over.
async fn wait_for_allow(session: &Session) {
    session
        .wait_for("!document.getElementById('allow').disabled")
        .await;
}

/// Calls a Tauri command from the current window's page: its value, or
/// `{refused: why}` (not `error`: a value with an `error` key reads as the
/// W3C error shape, and so as the WebDriver command failing).
async fn invoke(session: &Session, command: &str) -> Value {
    session
        .execute_async(&format!(
            "const done = arguments[arguments.length - 1];
             (async () => {{
               try {{ done(await window.__TAURI__.core.invoke('{command}')); }}
               catch (e) {{ done({{ refused: String(e) }}); }}
             }})();"
        ))
        .await
}

async fn background(session: &Session) -> String {
    let color = session
        .execute(
            "return getComputedStyle(document.body).backgroundColor",
            json!([]),
        )
        .await;
    color.as_str().unwrap().to_string()
}

#[tokio::test]
async fn allowed_request_shows_a_working_secret_once() {
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    let calendar = session.window_handle().await;

    request_access(
        &instance,
        &[
            "nightly export",
            "--scopes",
            "events:read",
            "--reason",
            "Back up the calendar every night",
        ],
    );
    let (first, dialog) = first_look_at_new_dialog(&session, std::slice::from_ref(&calendar)).await;
    assert_eq!(first["name"], "nightly export");
    assert_eq!(first["reason"], "Back up the calendar every night");
    assert_eq!(first["warnings"], "");
    wait_for_allow(&session).await;
    // Coming back into focus starts the wait again.
    let rearmed = session
        .execute(
            "window.dispatchEvent(new FocusEvent('focus'));
             return document.getElementById('allow').disabled",
            json!([]),
        )
        .await;
    assert_eq!(
        rearmed, true,
        "Allow stayed usable when the dialog regained focus"
    );
    wait_for_allow(&session).await;
    assert_eq!(session.title().await, "Almanac — Allow access?");
    assert_eq!(session.text("#token-name").await, "nightly export");
    assert_eq!(
        session.text("#reason").await,
        "Back up the calendar every night"
    );
    let scopes = session.text("#scopes").await;
    assert!(
        scopes.contains("events:read") && !scopes.contains("settings:read"),
        "{scopes}"
    );
    assert_eq!(background(&session).await, "rgb(255, 255, 255)");
    session.screenshot(&screenshot_path(Theme::Light)).await;

    // The dialog's own capability: it answers its request and nothing more.
    // A script in it cannot make a token, list tokens or change settings.
    for command in ["token_create", "tokens_list", "settings_update"] {
        let refused = invoke(&session, command).await;
        assert!(
            refused["refused"]
                .as_str()
                .unwrap_or_default()
                .contains("not allowed"),
            "{command}: {refused}"
        );
    }

    // Allow: the dialog closes and Settings shows the secret.
    session.click_closing_window("#allow").await;
    switch_to_new_window(&session, &[calendar, dialog]).await;
    let secret = session
        .wait_for("document.getElementById('secret-value').textContent")
        .await;
    let secret = secret.as_str().unwrap().to_string();
    assert!(secret.starts_with("ofc_pat_"), "{secret}");
    assert_eq!(session.text("#secret-name").await, "nightly export");
    assert!(
        session
            .text("#secret-panel")
            .await
            .contains("will not be shown again")
    );
    // Handed out once: the shell no longer has it.
    assert_eq!(invoke(&session, "granted_secret_take").await, Value::Null);
    session
        .wait_for("document.querySelector(\"tr[data-token-name='nightly export']\")")
        .await;

    // The secret works over real HTTP, for the granted scope only.
    assert_eq!(
        instance.api_status(&secret, "/events").await,
        StatusCode::OK
    );
    assert_eq!(
        instance.api_status(&secret, "/settings").await,
        StatusCode::FORBIDDEN
    );

    session.click("#secret-done").await;
    let page = session
        .execute("return document.documentElement.outerHTML", json!([]))
        .await;
    assert!(!page.as_str().unwrap().contains(&secret));
    assert!(!session.log().contains(&secret), "the secret was logged");
    session.end().await;
}

#[tokio::test]
async fn declined_request_creates_no_token() {
    let instance = AppHarness::new();
    let session = Session::start(&instance, "settings", Theme::Dark).await;
    let settings = session.window_handle().await;

    request_access(
        &instance,
        &["sync tool", "--scopes", "events:write,ui:open-calendar"],
    );
    first_look_at_new_dialog(&session, std::slice::from_ref(&settings)).await;
    wait_for_allow(&session).await;
    assert_eq!(session.text("#token-name").await, "sync tool");
    assert_eq!(session.text("#reason").await, "No reason given.");
    let scopes = session.text("#scopes").await;
    assert!(
        scopes.contains("events:write") && scopes.contains("ui:open-calendar"),
        "{scopes}"
    );
    assert_eq!(background(&session).await, "rgb(27, 29, 33)");
    session.screenshot(&screenshot_path(Theme::Dark)).await;

    session.click_closing_window("#deny").await;
    eventually("the core to record the decline", || async {
        session
            .log()
            .contains("access request declined by the user")
            .then_some(())
    })
    .await;
    eventually("the dialog to close", || async {
        (session.window_handles().await == [settings.clone()]).then_some(())
    })
    .await;
    session.switch_to_window(&settings).await;
    assert_eq!(invoke(&session, "tokens_list").await, json!([]));
    assert_eq!(invoke(&session, "granted_secret_take").await, Value::Null);
    assert_eq!(
        session
            .execute(
                "return document.getElementById('no-tokens').hidden",
                json!([])
            )
            .await,
        json!(false)
    );
    session.end().await;
}

#[tokio::test]
async fn requests_queue_one_dialog_at_a_time_and_hidden_characters_show() {
    let instance = AppHarness::new();
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    let calendar = session.window_handle().await;

    // A name that reverses itself on screen, a reason with a Cyrillic `а`
    // and a zero-width space.
    request_access(
        &instance,
        &[
            "evil\u{202E}gnp.exe",
            "--scopes",
            "events:read",
            "--reason",
            "p\u{0430}ypal\u{200B} backup",
        ],
    );
    let (first, dialog) = first_look_at_new_dialog(&session, std::slice::from_ref(&calendar)).await;
    assert_eq!(first["name"], "evil[U+202E]gnp.exe");
    assert_eq!(first["reason"], "p\u{0430}ypal[U+200B] backup");
    let warnings = first["warnings"].as_str().unwrap();
    assert!(warnings.contains("mixes Latin and Cyrillic"), "{warnings}");

    // A second request while the dialog is open waits; no second dialog.
    request_access(&instance, &["second tool", "--scopes", "events:read"]);
    eventually("the second request to wait its turn", || async {
        session
            .log()
            .contains("access request waiting: another one is being asked")
            .then_some(())
    })
    .await;
    assert_eq!(
        consent_dialogs(&session).await,
        std::slice::from_ref(&dialog),
        "a dialog was stacked"
    );
    session.switch_to_window(&dialog).await;

    // Enter goes to Deny (it has the focus), never to Allow.
    assert_eq!(session.focused_id().await, "deny");
    session.press_closing_window("\u{E007}").await;
    let (second, _) = first_look_at_new_dialog(&session, &[calendar.clone(), dialog]).await;
    assert_eq!(second["name"], "second tool");
    wait_for_allow(&session).await;
    session.click_closing_window("#deny").await;
    eventually("both requests to be declined", || async {
        (session
            .log()
            .matches("access request declined by the user")
            .count()
            == 2)
            .then_some(())
    })
    .await;
    eventually("the dialog to close", || async {
        (session.window_handles().await == [calendar.clone()]).then_some(())
    })
    .await;
    session.end().await;
}

#[test]
fn invalid_or_headless_requests_are_refused_before_starting() {
    let instance = AppHarness::new();
    for (args, expected) in [
        (
            &["--request-access", " ", "--scopes", "events:read"][..],
            "must not be empty",
        ),
        (
            &["--request-access", "x", "--scopes", "events:delete"],
            "unknown scope `events:delete`",
        ),
        (&["--request-access", "x"], "needs --scopes"),
        (
            &[
                "--headless",
                "--request-access",
                "x",
                "--scopes",
                "events:read",
            ],
            "headless mode",
        ),
    ] {
        let refused = almanac(&instance, args);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stderr.contains("Usage: almanac"), "{stderr}");
    }
    // Only the first-run marker the test instance writes itself is there.
    let written: Vec<_> = std::fs::read_dir(instance.data_home().join("almanac"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(written, ["autostart-asked"], "nothing started");
}
