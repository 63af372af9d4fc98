//! `docs/openapi.json` is the document the code generates, and it describes
//! exactly the routes the server serves.

use std::path::PathBuf;

use almanac_core::rest::openapi;
use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::support::{Instance, STANDUP_PATH};

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

#[test]
fn the_committed_document_matches_the_code() {
    let generated = openapi::json();
    let path = committed_path();
    if std::env::var_os("ALMANAC_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/openapi.json is out of date with the code; regenerate it with \
         `ALMANAC_BLESS=1 scripts/session.sh cargo test -p almanac-core --test rest openapi` \
         and review the diff"
    );
}

#[tokio::test]
async fn every_documented_operation_is_served_and_nothing_else() {
    let document: Value = serde_json::from_str(&openapi::json()).unwrap();
    assert_eq!(document["openapi"], "3.1.0");
    let instance = Instance::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    let mut operations = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        let concrete = path.replace("/api/v1/events/{id}", STANDUP_PATH);
        for method in ["get", "post", "put", "delete"] {
            let Some(operation) = item.get(method) else {
                // Not documented: the server must refuse it too.
                let reply = instance
                    .send(
                        method.to_uppercase().parse().unwrap(),
                        &concrete,
                        Some(&token),
                        None,
                    )
                    .await;
                assert_eq!(
                    reply.status,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {path}"
                );
                continue;
            };
            operations += 1;
            assert!(
                operation["security"][0]["bearer"][0].is_string(),
                "{method} {path}: no scope"
            );
            // Reached (any answer but "no such route"); DELETE last so the
            // note exists for the others.
            if method != "delete" {
                let reply = instance
                    .send(
                        method.to_uppercase().parse::<Method>().unwrap(),
                        &concrete,
                        Some(&token),
                        None,
                    )
                    .await;
                assert!(
                    ![StatusCode::NOT_FOUND, StatusCode::METHOD_NOT_ALLOWED]
                        .contains(&reply.status)
                        || reply.body["message"]
                            .as_str()
                            .is_some_and(|m| !m.starts_with("no route")),
                    "{method} {path}: {reply:?}"
                );
            }
        }
    }
    assert_eq!(operations, 12);
    let reply = instance
        .send(Method::DELETE, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}
