//! `Idempotency-Key` on `POST /events` and `POST /events/quick`: a retry
//! (after a lost answer, or while the first is still running) creates one
//! note and answers the first's event; the same key for another request is
//! `422`; a malformed key is `400` and writes nothing.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::support::RestHarness;
use almanac_core::tokens::Scope;

fn lunch(title: &str) -> Value {
    json!({
        "calendarId": "local",
        "event": { "title": title, "date": "2026-03-04", "startTime": "12:00",
                   "endTime": "13:00", "allDay": false },
    })
}

/// Sends `body` to `path` with `key` as the `Idempotency-Key`.
async fn post_keyed(
    instance: &RestHarness,
    token: &str,
    path: &str,
    key: &str,
    body: &Value,
) -> (StatusCode, Value) {
    let response = instance
        .client
        .post(format!("{}{path}", instance.base))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn notes(instance: &RestHarness) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(instance.vault().join("events"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn a_create_retried_with_its_key_makes_one_note_even_while_the_first_runs() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let before = notes(&instance);
    let body = lunch("Lunch with Ada");

    // Eight at once with one key (retries racing the first), then one late.
    let racing = (0..8).map(|_| post_keyed(&instance, &token, "/api/v1/events", "k-1", &body));
    let answers = futures_util::future::join_all(racing).await;
    let late = post_keyed(&instance, &token, "/api/v1/events", "k-1", &body).await;
    for (status, answer) in answers.iter().chain([&late]) {
        assert_eq!(*status, StatusCode::CREATED, "{answer}");
        assert_eq!(answer["event"]["id"], late.1["event"]["id"], "{answer}");
    }
    assert_eq!(
        notes(&instance).len(),
        before.len() + 1,
        "{:?}",
        notes(&instance)
    );

    // The same key for another event is refused; a new key makes a new note
    // (the name taken, so a 409 says so: nothing was lost to the key).
    let (status, answer) =
        post_keyed(&instance, &token, "/api/v1/events", "k-1", &lunch("Dinner")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("different request")
    );
    let (status, _) = post_keyed(&instance, &token, "/api/v1/events", "k-2", &body).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(notes(&instance).len(), before.len() + 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn quick_add_with_a_key_creates_once_and_a_bad_key_writes_nothing() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let before = notes(&instance);
    let line = json!({ "text": "Call Bo tomorrow 15:00" });
    let first = post_keyed(&instance, &token, "/api/v1/events/quick", "q-1", &line).await;
    let again = post_keyed(&instance, &token, "/api/v1/events/quick", "q-1", &line).await;
    assert_eq!(first.0, StatusCode::CREATED, "{}", first.1);
    assert_eq!(again.0, StatusCode::CREATED, "{}", again.1);
    assert_eq!(first.1["event"]["id"], again.1["event"]["id"]);
    assert_eq!(notes(&instance).len(), before.len() + 1);

    for bad in ["has space", &"k".repeat(256)] {
        let (status, answer) =
            post_keyed(&instance, &token, "/api/v1/events", bad, &lunch("Tea")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .contains("Idempotency-Key")
        );
    }
    assert_eq!(notes(&instance).len(), before.len() + 1);
}
