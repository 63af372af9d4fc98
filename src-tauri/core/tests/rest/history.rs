//! `/api/v1/history`: a change made over REST is listed with its token's
//! name and undone byte for byte; an undo over a newer edit is refused and
//! changes nothing; "everything token X did" undoes exactly its changes;
//! undoing an undo redoes; the journal never holds a token's secret.

use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::new_token;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::support::{RestHarness, STANDUP_PATH};
use crate::common::snapshot;

fn lunch(title: &str) -> Value {
    json!({
        "calendarId": "local",
        "event": { "title": title, "date": "2026-03-04", "startTime": "12:00",
                   "endTime": "13:00", "allDay": false },
    })
}

async fn history(instance: &RestHarness, token: &str, query: &str) -> Vec<Value> {
    let reply = instance
        .send(
            Method::GET,
            &format!("/api/v1/history{query}"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    reply.body["changes"].as_array().unwrap().clone()
}

async fn undo(instance: &RestHarness, token: &str, id: &Value) -> super::support::Reply {
    let path = format!("/api/v1/history/{id}/undo");
    instance.send(Method::POST, &path, Some(token), None).await
}

#[tokio::test(flavor = "multi_thread")]
async fn rest_changes_are_listed_with_their_token_and_undone_byte_for_byte() {
    let instance = RestHarness::start().await;
    let token = instance
        .token(&[Scope::EventsWrite, Scope::EventsRead])
        .await;
    let before = snapshot(&instance.vault());

    let edit = json!({"event": {"title": "Standup moved", "date": "2026-01-06"}});
    let reply = instance
        .send(Method::PUT, STANDUP_PATH, Some(&token), Some(edit))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let moved = reply.body["event"]["id"].as_str().unwrap().to_string();
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(&token),
            Some(lunch("Lunch")),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let path = format!("/api/v1/events/{}", urlencoding(&moved));
    let reply = instance
        .send(Method::DELETE, &path, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert!(
        !instance
            .vault()
            .join("events/2026-01-06 Standup moved.md")
            .exists()
    );

    let changes = history(&instance, &token, "").await;
    assert_eq!(changes.len(), 3, "{changes:?}");
    for change in &changes {
        assert_eq!(
            change["author"],
            json!({"kind": "token", "name": "rest test"})
        );
    }
    // Newest first: the delete, the create, the rename (a new note and the
    // old one removed).
    assert_eq!(
        changes[0]["files"],
        json!([{"path": "events/2026-01-06 Standup moved.md", "action": "deleted"}])
    );
    assert_eq!(changes[1]["files"][0]["action"], "created");
    assert_eq!(
        changes[2]["files"],
        json!([
            {"path": "events/2026-01-06 Standup moved.md", "action": "created"},
            {"path": "events/2026-01-05 Standup.md", "action": "deleted"},
        ])
    );
    // A page of one, then the next.
    let page = instance
        .send(Method::GET, "/api/v1/history?limit=1", Some(&token), None)
        .await;
    assert_eq!(page.body["changes"][0]["id"], changes[0]["id"]);
    let next = page.body["next"].as_u64().unwrap();
    let rest = history(&instance, &token, &format!("?before={next}")).await;
    assert_eq!(rest, changes[1..]);

    for change in &changes {
        let reply = undo(&instance, &token, &change["id"]).await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        assert_eq!(reply.body["change"]["undoes"], change["id"]);
    }
    assert_eq!(snapshot(&instance.vault()), before);
    // And the engine saw it: the Standup is back under its id.
    let reply = instance
        .send(Method::GET, STANDUP_PATH, Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_undo_over_a_newer_edit_is_refused_and_changes_nothing() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let edit = json!({"event": {"endTime": "09:45"}});
    let reply = instance
        .send(Method::PUT, STANDUP_PATH, Some(&token), Some(edit))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let note = instance.vault().join("events/2026-01-05 Standup.md");
    let mut text = std::fs::read_to_string(&note).unwrap();
    text.push_str("A line the user added by hand.\n");
    std::fs::write(&note, &text).unwrap();
    let before = snapshot(&instance.vault());

    let changes = history(&instance, &token, "").await;
    let reply = undo(&instance, &token, &changes[0]["id"]).await;
    assert_eq!(reply.status, StatusCode::CONFLICT, "{reply:?}");
    assert_eq!(reply.error_id(), "Conflict");
    let message = reply.body["message"].as_str().unwrap();
    assert!(
        message.contains("events/2026-01-05 Standup.md"),
        "{message}"
    );
    assert_eq!(snapshot(&instance.vault()), before);
    assert_eq!(
        history(&instance, &token, "").await.len(),
        1,
        "nothing recorded"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn everything_one_token_did_is_undone_and_nothing_else() {
    let instance = RestHarness::start().await;
    let assistant = new_token(
        &instance.core,
        "assistant",
        &[Scope::EventsWrite],
        Expiry::Never,
    )
    .await;
    let person = new_token(
        &instance.core,
        "person",
        &[Scope::EventsWrite],
        Expiry::Never,
    )
    .await;
    let before = snapshot(&instance.vault());

    let send = |token: &str, method: Method, path: &str, body: Value| {
        let (token, path) = (token.to_string(), path.to_string());
        let instance = &instance;
        async move {
            let reply = instance.send(method, &path, Some(&token), Some(body)).await;
            assert!(reply.status.is_success(), "{reply:?}");
        }
    };
    send(
        &assistant,
        Method::POST,
        "/api/v1/events",
        lunch("Assistant lunch"),
    )
    .await;
    send(
        &person,
        Method::POST,
        "/api/v1/events",
        lunch("Person lunch"),
    )
    .await;
    let edit = json!({"event": {"endTime": "09:45"}});
    send(&assistant, Method::PUT, STANDUP_PATH, edit).await;
    let after_person =
        std::fs::read(instance.vault().join("events/2026-03-04 Person lunch.md")).unwrap();

    let body = json!({"token": "assistant", "since": "2020-01-01"});
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/history/undo",
            Some(&person),
            Some(body),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(
        reply.body["undone"].as_array().unwrap().len(),
        2,
        "{reply:?}"
    );
    assert!(reply.body.get("refused").is_none(), "{reply:?}");

    let mut expected = before;
    expected.insert("events/2026-03-04 Person lunch.md".into(), after_person);
    assert_eq!(snapshot(&instance.vault()), expected);
    // The undos are the person's, who asked.
    let changes = history(&instance, &person, "?token=person").await;
    assert_eq!(changes.len(), 3, "{changes:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn undoing_an_undo_redoes() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(&token),
            Some(lunch("Lunch")),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let made = snapshot(&instance.vault());
    let created = history(&instance, &token, "").await[0]["id"].clone();

    let reply = undo(&instance, &token, &created).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert!(!instance.vault().join("events/2026-03-04 Lunch.md").exists());
    let reply = undo(&instance, &token, &reply.body["change"]["id"]).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(snapshot(&instance.vault()), made);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_and_malformed_ids_are_refused_in_the_error_shape() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let reply = undo(&instance, &token, &json!(4242)).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_eq!(reply.error_id(), "Not Found");
    let reply = instance
        .send(Method::POST, "/api/v1/history/x/undo", Some(&token), None)
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    let reply = instance
        .send(
            Method::GET,
            "/api/v1/history?since=soon",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert!(reply.body["message"].as_str().unwrap().contains("since"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_journal_never_holds_a_token_secret() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let reply = instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(&token),
            Some(lunch("Lunch")),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let changes = history(&instance, &token, "").await;
    let reply = undo(&instance, &token, &changes[0]["id"]).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");

    let journal = std::fs::read(instance.core.paths.history_file()).unwrap();
    assert!(!journal.is_empty());
    let secret = token.as_bytes();
    assert!(!journal.windows(secret.len()).any(|w| w == secret));
    // Nor its base64, in case it ended up in a file's bytes.
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
    let text = String::from_utf8_lossy(&journal);
    assert!(!text.contains(&encoded[..encoded.len() - 4]));
}

fn urlencoding(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, percent_encoding::NON_ALPHANUMERIC).to_string()
}
