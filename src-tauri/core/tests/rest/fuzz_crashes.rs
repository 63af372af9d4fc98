//! The REST bodies the fuzzers crashed the server with
//! (`fuzz/crashes/rest_body/`), sent over real HTTP: each is refused in the
//! spec's error shape, changes nothing, and the server still answers.

use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::rest::support::RestHarness;

/// A `rest_body` reproducer: the first byte picks the route (0: `POST
/// /api/v1/events`), the rest is the JSON body.
fn reproducer(name: &str) -> Value {
    let path = format!(
        "{}/../../fuzz/crashes/rest_body/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(bytes[0], 0, "a POST /api/v1/events input");
    serde_json::from_slice(&bytes[1..]).unwrap()
}

#[tokio::test]
async fn a_non_ascii_byday_is_refused_naming_the_rrule() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let notes = || {
        std::fs::read_dir(instance.vault().join("events"))
            .unwrap()
            .count()
    };
    let before = notes();
    let body = reproducer("rrule-byday-non-ascii");
    let reply = instance
        .send(Method::POST, "/api/v1/events", Some(&token), Some(body))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert_eq!(reply.error_id(), "Bad Request", "{reply:?}");
    let message = reply.body["message"].as_str().unwrap();
    assert!(
        message.contains("rrule") && message.contains("'ζ'"),
        "{message}"
    );
    assert_eq!(notes(), before, "nothing written");

    // Still answering.
    let reader = instance.token(&[Scope::EventsRead]).await;
    let listing = instance
        .send(
            Method::GET,
            "/api/v1/events?start=2026-01-01&end=2026-02-01",
            Some(&reader),
            None,
        )
        .await;
    assert_eq!(listing.status, StatusCode::OK, "{listing:?}");
}
