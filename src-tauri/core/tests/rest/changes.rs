//! `GET /api/v1/changes`: a long-poll answers as soon as a note is edited on
//! disk; the same entries stream as server-sent events; a cursor from
//! before the history is 410 with the current id; entries follow the
//! token's scopes; bad parameters are 400 naming them.

use std::time::{Duration, Instant};

use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::rest::support::RestHarness;

/// The feed's current cursor, as a new follower learns it.
async fn cursor(app: &RestHarness, token: &str) -> u64 {
    let reply = app
        .send(Method::GET, "/api/v1/changes", Some(token), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(reply.body["changes"], Value::Array(vec![]));
    reply.body["last"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_poll_answers_when_a_note_is_edited_on_disk() {
    let app = RestHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let since = cursor(&app, &token).await;

    let polling = {
        let (client, url, token) = (
            app.client.clone(),
            format!("{}/api/v1/changes?since={since}&timeout=30", app.base),
            token.clone(),
        );
        tokio::spawn(async move {
            let answer = client.get(url).bearer_auth(token).send().await.unwrap();
            (
                answer.status(),
                answer.json::<Value>().await.unwrap(),
                Instant::now(),
            )
        })
    };
    // Give the poll time to be waiting, so it is the edit that answers it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let note = app.vault().join("events/2026-01-05 Standup.md");
    let text = std::fs::read_to_string(&note).unwrap();
    let edited = Instant::now();
    std::fs::write(
        &note,
        text.replace("title: Standup", "title: Standup moved"),
    )
    .unwrap();

    let (status, page, answered) = tokio::time::timeout(Duration::from_secs(20), polling)
        .await
        .expect("the poll answers")
        .unwrap();
    assert_eq!(status, StatusCode::OK);
    let changes = page["changes"].as_array().unwrap();
    assert_eq!(changes[0]["id"], since + 1, "{page}");
    assert_eq!(changes[0]["type"], "event.updated", "{page}");
    assert_eq!(changes[0]["calendarId"], "local");
    assert_eq!(
        changes[0]["eventId"],
        "fullnote:events/2026-01-05 Standup.md"
    );
    assert_eq!(page["last"], changes.last().unwrap()["id"]);
    println!(
        "edit on disk to long-poll answer: {} ms",
        answered.duration_since(edited).as_millis()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_stream_sends_the_same_entries_as_server_sent_events() {
    let app = RestHarness::start().await;
    let token = app.token(&[Scope::EventsRead, Scope::EventsWrite]).await;
    let since = cursor(&app, &token).await;
    let mut stream = app
        .client
        .get(format!("{}/api/v1/changes?since={since}", app.base))
        .bearer_auth(&token)
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let created = app
        .send(
            Method::POST,
            "/api/v1/events",
            Some(&token),
            Some(serde_json::json!({"calendarId": "local",
                "event": {"title": "Streamed", "date": "2026-02-01", "allDay": true}})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let mut text = String::new();
    let read = tokio::time::timeout(Duration::from_secs(20), async {
        while !text.contains("\n\n") {
            let chunk = stream
                .chunk()
                .await
                .unwrap()
                .expect("the stream stays open");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    });
    read.await.expect("an entry arrives");
    assert!(text.contains(&format!("id: {}\n", since + 1)), "{text}");
    assert!(text.contains("event: event.created\n"), "{text}");
    assert!(
        text.contains("\"eventId\":\"fullnote:events/2026-02-01 Streamed.md\""),
        "{text}"
    );

    // The long-poll of the same cursor answers with the same entry.
    let page = app
        .send(
            Method::GET,
            &format!("/api/v1/changes?since={since}"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(page.body["changes"][0]["type"], "event.created");
    assert_eq!(page.body["changes"][0]["id"], since + 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cursor_the_feed_cannot_answer_is_gone_with_the_current_id() {
    let app = RestHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let current = cursor(&app, &token).await;
    let gone = app
        .send(
            Method::GET,
            "/api/v1/changes?since=999999",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(gone.status, StatusCode::GONE, "{}", gone.text);
    assert_eq!(gone.error_id(), "Gone");
    assert_eq!(
        gone.headers["almanac-changes-current"].to_str().unwrap(),
        current.to_string()
    );
    assert!(
        gone.body["message"]
            .as_str()
            .unwrap()
            .ends_with(&format!("read from {current}")),
        "{}",
        gone.text
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn calendar_status_entries_need_providers_read() {
    let app = RestHarness::start().await;
    let events_only = app.token(&[Scope::EventsRead]).await;
    let with_providers = app.token(&[Scope::EventsRead, Scope::ProvidersRead]).await;
    let since = cursor(&app, &events_only).await;
    // Renaming a calendar changes its status.
    app.settings_as_user(serde_json::json!({"calendarSources": [
        {"id": "local", "name": "Renamed", "type": "local", "directory": "events"}
    ]}))
    .await
    .unwrap();
    let url = format!("/api/v1/changes?since={since}&timeout=20");
    let seen = app
        .send(Method::GET, &url, Some(&with_providers), None)
        .await;
    let changes = seen.body["changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c["type"] == "calendar.status" && c["calendarId"] == "local"),
        "{}",
        seen.text
    );
    let hidden = app
        .send(
            Method::GET,
            &format!("/api/v1/changes?since={since}"),
            Some(&events_only),
            None,
        )
        .await;
    assert!(
        hidden.body["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["type"] != "calendar.status"),
        "{}",
        hidden.text
    );
    assert_eq!(hidden.body["last"], seen.body["last"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_parameters_are_named() {
    let app = RestHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    for (query, field) in [
        ("since=soon", "since"),
        ("timeout=61", "timeout"),
        ("timeout=-1", "timeout"),
    ] {
        let reply = app
            .send(
                Method::GET,
                &format!("/api/v1/changes?{query}"),
                Some(&token),
                None,
            )
            .await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{query}: {}",
            reply.text
        );
        assert!(
            reply.body["message"].as_str().unwrap().contains(field),
            "{}",
            reply.text
        );
    }
}

/// A `GET /changes` stream from `token`.
async fn stream(app: &RestHarness, token: &str) -> reqwest::Response {
    app.client
        .get(format!("{}/api/v1/changes", app.base))
        .bearer_auth(token)
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap()
}

/// One read token cannot hold the change feed open for everyone: past its
/// four waits (streams or long-polls) each new one is a `429` with
/// `Retry-After`, however many it tries, while another token's stream and
/// its REST requests are served at once; a stream closed gives its wait back.
#[tokio::test(flavor = "multi_thread")]
async fn one_token_cannot_hold_the_feed_open_for_everyone() {
    let app = RestHarness::start().await;
    let greedy = app.token(&[Scope::EventsRead]).await;
    let other = app.token(&[Scope::EventsRead]).await;
    let mut held = Vec::new();
    for _ in 0..4 {
        let open = stream(&app, &greedy).await;
        assert_eq!(open.status(), StatusCode::OK);
        held.push(open);
    }
    for _ in 0..300 {
        let refused = stream(&app, &greedy).await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.headers()["retry-after"], "5");
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["error"], "Too Many Requests", "{body}");
    }
    let poll = app
        .send(
            Method::GET,
            "/api/v1/changes?timeout=5",
            Some(&greedy),
            None,
        )
        .await;
    assert_eq!(poll.status, StatusCode::TOO_MANY_REQUESTS, "{}", poll.text);

    // Everyone else is served, without waiting on the greedy token.
    let theirs = stream(&app, &other).await;
    assert_eq!(theirs.status(), StatusCode::OK);
    let listed = tokio::time::timeout(
        Duration::from_secs(10),
        app.send(
            Method::GET,
            "/api/v1/events?start=2026-01-01&end=2026-12-31",
            Some(&other),
            None,
        ),
    )
    .await
    .expect("another client's request is not held up");
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.text);

    drop(held.pop());
    almanac_testkit::eventually("a closed stream's wait to be given back", || async {
        let again = stream(&app, &greedy).await;
        (again.status() == StatusCode::OK).then_some(again)
    })
    .await;
}
