//! Event ids in paths: one percent-encoded segment, the raw form where it is
//! unambiguous, and room for sub-resources after an id.

use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};

use crate::rest::support::{RestHarness, STANDUP_ID, STANDUP_PATH};

#[tokio::test]
async fn encoded_and_raw_ids_name_the_same_event_for_every_method() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    // Fully encoded (one segment), and raw with only the space encoded.
    let raw = "/api/v1/events/fullnote:events/2026-01-05%20Standup.md";
    for path in [STANDUP_PATH, raw] {
        let reply = instance.send(Method::GET, path, Some(&token), None).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}: {reply:?}");
        assert_eq!(reply.body["details"]["event"]["id"], STANDUP_ID);
    }
    let body = serde_json::json!({"event": {"endTime": "09:30"}});
    let reply = instance
        .send(Method::PUT, STANDUP_PATH, Some(&token), Some(body))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let reply = instance.send(Method::GET, raw, Some(&token), None).await;
    assert_eq!(reply.body["details"]["event"]["endTime"], "09:30");
    let reply = instance.send(Method::DELETE, raw, Some(&token), None).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let reply = instance
        .send(Method::GET, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
}

#[tokio::test]
async fn a_sub_resource_shaped_path_is_not_read_as_an_id() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    let no_route = [
        // An encoded id followed by a sub-resource name.
        format!("{STANDUP_PATH}/occurrences"),
        // A raw id followed by one: the last segment is not part of the id.
        "/api/v1/events/fullnote:events/2026-01-05%20Standup.md/occurrences".to_string(),
        "/api/v1/events/fullnote:events/occurrences".to_string(),
    ];
    for path in &no_route {
        for method in [Method::GET, Method::PUT, Method::DELETE] {
            let reply = instance
                .send(method.clone(), path, Some(&token), None)
                .await;
            assert_eq!(
                reply.status,
                StatusCode::NOT_FOUND,
                "{method} {path}: {reply:?}"
            );
            assert_eq!(reply.error_id(), "Not Found");
            let message = reply.body["message"].as_str().unwrap();
            assert!(message.starts_with("no route for "), "{path}: {message}");
        }
    }
    // The same name inside an encoded segment is part of the id: an id
    // that names no event, not a missing route.
    for path in [
        "/api/v1/events/fullnote%3Aevents%2Foccurrences",
        "/api/v1/events/fullnote:events/a%2Foccurrences",
    ] {
        let reply = instance.send(Method::GET, path, Some(&token), None).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains("occurrences`"), "{path}: {message}");
        assert!(!message.starts_with("no route"), "{path}: {message}");
    }
    // The note is untouched by all of the above.
    let reply = instance
        .send(Method::GET, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
}
