//! The spec's validation order, header by header.

use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};

use crate::support::{Instance, STANDUP_PATH};

#[tokio::test]
async fn options_is_204_on_any_path_without_a_token() {
    let instance = Instance::start().await;
    for path in ["/api/v1/events", STANDUP_PATH, "/nowhere", "/"] {
        let reply = instance.send(Method::OPTIONS, path, None, None).await;
        assert_eq!(reply.status, StatusCode::NO_CONTENT, "{path}");
        assert!(reply.text.is_empty());
        reply.assert_cors();
    }
}

#[tokio::test]
async fn a_valid_token_reads_events() {
    let instance = Instance::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    let reply = instance
        .send(Method::GET, "/api/v1/events", Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body["count"], 1);
    reply.assert_cors();
}
