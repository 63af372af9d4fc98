//! The spec's validation order: OPTIONS → 401 → 403 (token) → route → 403
//! (scope) → 404 / 405; the `Host` check; last-used; secrets never logged.

use std::sync::Arc;

use almanac_core::api::{CalendarPlugin, DeclineAll, HeadlessUi};
use almanac_core::calendar::Calendar;
use almanac_core::rest::{self, Listening, RestState};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{Settings, SettingsStore};
use almanac_core::tokens::{
    Expiry, MISSING_AUTHORIZATION, NewToken, REFUSED_TOKEN, Scope, TokenStore,
};
use almanac_testkit::{ManualClock, captured_logs, logs_text, paths_in, real_keyring};
use chrono::Duration;
use reqwest::header::{AUTHORIZATION, HOST};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::rest::support::{RestHarness, STANDUP_PATH};

#[tokio::test]
async fn options_is_204_on_any_path_without_a_token() {
    let instance = RestHarness::start().await;
    for path in ["/api/v1/events", STANDUP_PATH, "/nowhere", "/"] {
        let reply = instance.send(Method::OPTIONS, path, None, None).await;
        assert_eq!(reply.status, StatusCode::NO_CONTENT, "{path}");
        assert!(reply.text.is_empty());
        reply.assert_cors();
    }
}

#[tokio::test]
async fn no_bearer_header_is_401_before_anything_else() {
    let instance = RestHarness::start().await;
    let url = format!("{}/api/v1/events", instance.base);
    for header in [
        None,
        Some("Basic dXNlcjpwdw=="),
        Some("Bearer"),
        Some("ofc_pat_x"),
        Some(""),
    ] {
        let mut request = instance.client.get(&url);
        if let Some(value) = header {
            request = request.header(AUTHORIZATION, value);
        }
        let reply = crate::rest::support::Reply::read(request.send().await.unwrap()).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{header:?}");
        assert_eq!(reply.error_id(), "Unauthorized");
        assert_eq!(reply.body["message"], MISSING_AUTHORIZATION, "{header:?}");
        reply.assert_cors();
    }
    // Unknown paths and wrong methods are not revealed without a token.
    for (method, path) in [(Method::GET, "/nowhere"), (Method::PATCH, "/api/v1/events")] {
        let reply = instance.send(method, path, None, None).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{path}");
    }
}

#[tokio::test]
async fn unknown_and_revoked_tokens_are_the_same_403_with_the_reason_only_logged() {
    captured_logs();
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    let unknown = format!("{}x", token);
    for (method, path) in [(Method::GET, "/api/v1/events"), (Method::GET, "/nowhere")] {
        let reply = instance.send(method, path, Some(&unknown), None).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{path}");
        assert_eq!(reply.error_id(), "Forbidden");
        assert_eq!(reply.body["message"], REFUSED_TOKEN, "{path}");
        reply.assert_cors();
    }

    let reply = instance
        .send(Method::GET, "/api/v1/events", Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let id = instance.core.tokens.list()[0].record.id;
    let tokens = instance.core.tokens.clone();
    tokio::task::spawn_blocking(move || tokens.revoke(id).unwrap())
        .await
        .unwrap();
    let reply = instance
        .send(Method::GET, "/api/v1/events", Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.body["message"], REFUSED_TOKEN, "{reply:?}");
    let logs = logs_text();
    assert!(
        logs.contains(&format!("token_id={id}")) && logs.contains("revoked"),
        "the reason is in the log"
    );
    assert!(!logs.contains(&token), "the secret is not");
}

#[tokio::test]
async fn an_expired_token_is_403() {
    // Core runs on the system clock; build the same wiring on a clock the
    // test can move.
    let dir = tempfile::tempdir().unwrap();
    let paths = paths_in(dir.path());
    let settings = Arc::new(SettingsStore::open(&paths.settings_file()).unwrap());
    settings
        .replace(
            Actor::User,
            Settings {
                vault_path: dir.path().join("vault"),
                ..Settings::default()
            },
        )
        .unwrap();
    let calendar = Calendar::open(&settings.get(), &paths);
    let clock = ManualClock::new();
    let tokens =
        Arc::new(TokenStore::open(paths.tokens_file(), real_keyring(), clock.clone()).unwrap());
    let secret = tokens
        .create(NewToken {
            name: "expiring".into(),
            scopes: [Scope::EventsRead].into_iter().collect(),
            expiry: Expiry::Days30,
        })
        .unwrap()
        .secret;
    let plugin = Arc::new(CalendarPlugin::new(
        settings,
        calendar.clone(),
        tokens,
        Arc::new(HeadlessUi),
        Arc::new(DeclineAll),
    ));
    let state = RestState::new(plugin, calendar);
    let server = Listening::bind(0, move |port| rest::router(state, port))
        .await
        .unwrap();
    let url = format!("http://{}/api/v1/events", server.local_addr());
    let client = reqwest::Client::new();
    let get = || client.get(&url).bearer_auth(secret.expose()).send();

    assert_eq!(get().await.unwrap().status(), StatusCode::OK);
    clock.advance(Duration::days(30));
    let reply = crate::rest::support::Reply::read(get().await.unwrap()).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.body["message"], REFUSED_TOKEN, "{reply:?}");
}

#[tokio::test]
async fn with_a_token_unknown_paths_are_404_and_wrong_methods_405() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    for path in [
        "/nowhere",
        "/api/v1",
        "/api/v1/events/",
        "/api/v2/events",
        "/api/v1/calendars/x",
    ] {
        let reply = instance.send(Method::GET, path, Some(&token), None).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(reply.error_id(), "Not Found");
        reply.assert_cors();
    }
    for (method, path, allow) in [
        (Method::PATCH, "/api/v1/events", "GET,HEAD,POST"),
        (Method::DELETE, "/api/v1/events", "GET,HEAD,POST"),
        (Method::POST, STANDUP_PATH, "GET,HEAD,PUT,DELETE"),
        (Method::GET, "/api/v1/ui/open-calendar", "POST"),
        (Method::POST, "/api/v1/settings", "GET,HEAD,PUT"),
    ] {
        let reply = instance
            .send(method.clone(), path, Some(&token), None)
            .await;
        assert_eq!(
            reply.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(reply.error_id(), "Method Not Allowed");
        assert_eq!(reply.headers["allow"], allow, "{method} {path}");
        reply.assert_cors();
    }
}

#[tokio::test]
async fn a_missing_scope_is_403_even_with_a_bad_body() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(&token),
            Some(json!({"nonsense": 1})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert!(
        reply.body["message"]
            .as_str()
            .unwrap()
            .contains("events:write")
    );
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    let reply = instance
        .client
        .get(format!("{}/api/v1/events", instance.base))
        .header(AUTHORIZATION, format!("bEaReR {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), StatusCode::OK);
}

#[tokio::test]
async fn foreign_host_headers_are_421_before_anything_else() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    let port = instance.server.local_addr().port();
    let url = format!("{}/api/v1/events", instance.base);
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "127.0.0.1".to_string(),
        format!("localhost.evil.example:{port}"),
    ] {
        for method in [Method::GET, Method::OPTIONS] {
            let reply = instance
                .client
                .request(method.clone(), &url)
                .header(HOST, &host)
                .bearer_auth(&token)
                .send()
                .await
                .unwrap();
            let reply = crate::rest::support::Reply::read(reply).await;
            assert_eq!(
                reply.status,
                StatusCode::MISDIRECTED_REQUEST,
                "{method} {host}"
            );
            assert_eq!(reply.error_id(), "Misdirected Request");
            reply.assert_cors();
        }
    }
    for host in [format!("localhost:{port}"), format!("[::1]:{port}")] {
        let reply = instance
            .client
            .get(&url)
            .header(HOST, &host)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), StatusCode::OK, "{host}");
    }
    // An absolute-form target names the authority too.
    let raw = instance
        .raw(&instance.raw_request(
            "GET",
            format!("http://evil.example:{port}/api/v1/events").as_bytes(),
            Some(&token),
            b"",
        ))
        .await;
    assert_eq!(raw.status, 421);
}

#[tokio::test]
async fn use_is_recorded_and_secrets_are_never_logged() {
    let logs = captured_logs();
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    assert!(instance.core.tokens.list()[0].record.last_used_at.is_none());
    let reply = instance
        .send(Method::GET, "/api/v1/events", Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(instance.core.tokens.list()[0].record.last_used_at.is_some());

    let wrong = format!("{token}wrong");
    instance
        .send(Method::GET, "/api/v1/settings", Some(&token), None)
        .await;
    instance
        .send(Method::GET, "/api/v1/events", Some(&wrong), None)
        .await;
    let _ = logs;
    let text = logs_text();
    assert!(!text.contains(&token), "a secret reached the logs");
    assert!(
        !text.contains("ofc_pat_"),
        "a secret prefix reached the logs"
    );
}
