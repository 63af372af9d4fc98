//! `docs/openapi.json` is the document the code generates, and it describes
//! exactly the routes the server serves, each with the scope its handler
//! demands.

use std::path::PathBuf;

use almanac_core::rest::openapi;
use almanac_core::tokens::{SCOPES, Scope};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::rest::support::{RestHarness, STANDUP_PATH};

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
         `ALMANAC_BLESS=1 scripts/session.sh cargo nextest run -p almanac-core -E 'test(/^rest::openapi/)'` \
         and review the diff"
    );
}

#[tokio::test]
async fn every_documented_operation_is_served_and_nothing_else() {
    let document: Value = serde_json::from_str(&openapi::json()).unwrap();
    assert_eq!(document["openapi"], "3.1.0");
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    let mut operations = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        let concrete = concrete(path);
        for method in ["get", "post", "put", "delete"] {
            if item.get(method).is_none() {
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
            }
            operations += 1;
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
    assert_eq!(operations, documented_routes());
    let reply = instance
        .send(Method::DELETE, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

/// A documented path with its parameters filled in: the standing event, or
/// the local calendar.
fn concrete(path: &str) -> String {
    path.replace("/api/v1/events/{id}", STANDUP_PATH)
        .replace("{id}", "local")
}

/// The number of operations the scope table lists.
fn documented_routes() -> usize {
    SCOPES.iter().map(|info| info.routes.len()).sum()
}

/// The scope an operation's `security` names.
fn documented_scope(operation: &Value) -> Scope {
    let bearer = operation["security"][0]["bearer"].as_array().unwrap();
    assert_eq!(bearer.len(), 1, "one scope per route: {bearer:?}");
    bearer[0].as_str().unwrap().parse().unwrap()
}

/// Catches drift between the document and the handlers: a token holding
/// every scope but the documented one is refused, naming it, and a token
/// holding only the documented one is not.
#[tokio::test]
async fn each_operation_demands_exactly_its_documented_scope() {
    let document: Value = serde_json::from_str(&openapi::json()).unwrap();
    let instance = RestHarness::start().await;
    let mut operations = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        let concrete = concrete(path);
        // DELETE last, so the note exists for the others.
        for method in ["get", "post", "put", "delete"] {
            let Some(operation) = item.get(method) else {
                continue;
            };
            operations += 1;
            let scope = documented_scope(operation);
            assert_ne!(scope, Scope::SystemFullAccess, "{method} {path}");
            let others: Vec<Scope> = Scope::ALL
                .into_iter()
                .filter(|&other| other != scope && other != Scope::SystemFullAccess)
                .collect();
            let method: Method = method.to_uppercase().parse().unwrap();
            let what = format!("{method} {path} ({scope})");

            let all_but = instance.token(&others).await;
            let reply = instance
                .send(method.clone(), &concrete, Some(&all_but), None)
                .await;
            assert_eq!(reply.status, StatusCode::FORBIDDEN, "{what}: {reply:?}");
            let message = reply.body["message"].as_str().unwrap();
            assert!(message.contains(scope.as_str()), "{what}: {message}");

            let only = instance.token(&[scope]).await;
            let reply = instance.send(method, &concrete, Some(&only), None).await;
            assert_ne!(reply.status, StatusCode::FORBIDDEN, "{what}: {reply:?}");
        }
    }
    assert_eq!(operations, documented_routes());
}

/// The docs' scope tables name every scope, and `docs/rest.md` every route
/// next to the scope that guards it.
#[test]
fn the_docs_list_every_scope_with_its_routes() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let rest = std::fs::read_to_string(docs.join("rest.md")).unwrap();
    let tokens = std::fs::read_to_string(docs.join("tokens.md")).unwrap();
    for info in &SCOPES {
        let row_start = format!("| `{}` |", info.name);
        assert!(
            tokens.contains(&row_start),
            "tokens.md: no row for {}",
            info.name
        );
        let row = rest
            .lines()
            .find(|line| line.starts_with(&row_start))
            .unwrap_or_else(|| panic!("rest.md: no row for {}", info.name));
        for route in info.routes {
            let short = route.replacen("/api/v1", "", 1);
            assert!(
                row.contains(&format!("`{short}`")),
                "rest.md, {}: {short}",
                info.name
            );
        }
    }
}
