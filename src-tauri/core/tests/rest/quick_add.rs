//! `POST /api/v1/events/quick`: every row of docs/quick-add.md's phrase
//! table posted as a dry run answers its event and writes nothing; posted
//! for real, each is created; refused lines answer `400` naming `text`.

use std::path::Path;
use std::sync::Arc;

use almanac_core::api::HeadlessUi;
use almanac_core::settings::{CalendarSource, KindSettings};
use almanac_core::tokens::Scope;
use almanac_testkit::quick_add_table::{Table, shown, table};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::rest::support::RestHarness;

const PATH: &str = "/api/v1/events/quick";

/// An instance with the calendars the table names, in its display zone.
async fn instance_for(table: &Table) -> RestHarness {
    let calendars = table.calendars.clone();
    let instance = RestHarness::start_with(Arc::new(HeadlessUi), move |settings| {
        for (id, name) in calendars {
            settings.calendar_sources.push(CalendarSource {
                id: id.clone(),
                name,
                color: "#00aa00".into(),
                kind: KindSettings::FullNote { directory: id },
                order: None,
                components: None,
            });
        }
    })
    .await;
    instance
        .settings_as_user(json!({ "displayTimezone": table.zone }))
        .await
        .unwrap();
    instance
}

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The calendar the row's event goes to: the one it names, else the first
/// writable one (`local`).
fn calendar_of(named: &str) -> &str {
    if named == "—" { "local" } else { named }
}

#[tokio::test]
async fn every_row_of_the_phrase_table_answers_its_event_in_a_dry_run() {
    let table = table();
    let instance = instance_for(&table).await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let before = files(&instance.vault());
    let mut wrong = Vec::new();
    for row in &table.rows {
        let body = json!({ "text": row.phrase, "dryRun": true, "now": table.now });
        let reply = instance
            .send(Method::POST, PATH, Some(&token), Some(body))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}: {reply:?}", row.phrase);
        assert_eq!(reply.body["success"], true);
        let calendar = reply.body["calendarId"].as_str().unwrap();
        assert_eq!(calendar, calendar_of(&row.shown.calendar), "{}", row.phrase);
        let named = (row.shown.calendar != "—").then_some(calendar);
        let got = shown(&reply.body["event"], named);
        if got != row.shown {
            wrong.push(format!(
                "{:?}\n  doc: {:?}\n  got: {got:?}",
                row.phrase, row.shown
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(files(&instance.vault()), before, "a dry run writes nothing");
}

#[tokio::test]
async fn every_row_of_the_phrase_table_is_created_as_read() {
    let table = table();
    let instance = instance_for(&table).await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    for row in &table.rows {
        let body = json!({ "text": row.phrase, "now": table.now });
        let reply = instance
            .send(Method::POST, PATH, Some(&token), Some(body))
            .await;
        assert_eq!(
            reply.status,
            StatusCode::CREATED,
            "{}: {reply:?}",
            row.phrase
        );
        let event = &reply.body["event"];
        let calendar = calendar_of(&row.shown.calendar);
        assert_eq!(event["calendarId"], calendar, "{}", row.phrase);
        let named = (row.shown.calendar != "—").then_some(calendar);
        assert_eq!(shown(event, named), row.shown, "{}: {event}", row.phrase);
        // The note is in that calendar's folder.
        let path = event["filePath"].as_str().unwrap_or_default();
        let folder = if calendar == "local" {
            "events"
        } else {
            calendar
        };
        assert!(
            path.starts_with(&format!("{folder}/")) && instance.vault().join(path).is_file(),
            "{}: {event}",
            row.phrase
        );
    }
}

#[tokio::test]
async fn refused_lines_answer_400_naming_text_and_write_nothing() {
    let table = table();
    let instance = instance_for(&table).await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    let before = files(&instance.vault());
    for refusal in &table.refusals {
        for dry_run in [true, false] {
            let body = json!({ "text": refusal.phrase, "now": table.now, "dryRun": dry_run });
            let reply = instance
                .send(Method::POST, PATH, Some(&token), Some(body))
                .await;
            assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
            assert_eq!(reply.error_id(), "Bad Request");
            let message = reply.body["message"].as_str().unwrap();
            assert!(message.contains("`text`"), "{message}");
            assert!(message.contains(&refusal.message_part), "{message}");
        }
    }
    for (body, field) in [
        (
            json!({ "text": "Lunch tomorrow", "now": "tomorrow" }),
            "`now`",
        ),
        (json!({ "text": "Lunch tomorrow", "when": "now" }), "when"),
        (json!({ "dryRun": true }), "text"),
        (
            json!({ "text": "Lunch tomorrow", "calendarId": "nope" }),
            "nope",
        ),
        (
            json!({ "text": "Lunch tomorrow", "calendarId": "holidays" }),
            "read-only",
        ),
        (
            json!({ "text": "x".repeat(1001) + " tomorrow" }),
            "1000 characters",
        ),
    ] {
        let reply = instance
            .send(Method::POST, PATH, Some(&token), Some(body.clone()))
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {reply:?}");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(field), "{body}: {message}");
    }
    assert_eq!(files(&instance.vault()), before);
}

#[tokio::test]
async fn the_line_is_read_in_the_display_zone_at_the_current_time() {
    let table = table();
    let instance = instance_for(&table).await;
    let token = instance.token(&[Scope::EventsWrite]).await;
    // Without `now`, "today" is today in the display zone.
    let zone: chrono_tz::Tz = table.zone.parse().unwrap();
    let body = json!({ "text": "Review today", "dryRun": true });
    let before = chrono::Utc::now().with_timezone(&zone).date_naive();
    let reply = instance
        .send(Method::POST, PATH, Some(&token), Some(body))
        .await;
    let after = chrono::Utc::now().with_timezone(&zone).date_naive();
    let date = reply.body["event"]["date"].as_str().unwrap().to_string();
    assert!(
        [before.to_string(), after.to_string()].contains(&date),
        "{reply:?}"
    );
    // A body `calendarId` is used when the line names none, not over it.
    for (text, chosen, expected) in [
        ("Review tomorrow", "personal", "personal"),
        ("Review tomorrow in Work", "personal", "work"),
    ] {
        let body = json!({ "text": text, "calendarId": chosen, "dryRun": true });
        let reply = instance
            .send(Method::POST, PATH, Some(&token), Some(body))
            .await;
        assert_eq!(reply.body["calendarId"], expected, "{text}: {reply:?}");
    }
}

#[tokio::test]
async fn quick_add_needs_events_write_even_for_a_dry_run() {
    let table = table();
    let instance = instance_for(&table).await;
    let before = files(&instance.vault());
    for scopes in [
        &[Scope::EventsRead][..],
        &[Scope::EventsRead, Scope::ProvidersRead][..],
    ] {
        let token = instance.token(scopes).await;
        for dry_run in [true, false] {
            let body = json!({ "text": "Lunch tomorrow 12:30", "dryRun": dry_run });
            let reply = instance
                .send(Method::POST, PATH, Some(&token), Some(body))
                .await;
            assert_eq!(reply.status, StatusCode::FORBIDDEN, "{reply:?}");
            assert!(reply.text.contains("events:write"), "{reply:?}");
        }
    }
    assert_eq!(files(&instance.vault()), before);
    let token = instance.token(&[Scope::EventsWrite]).await;
    let reply = instance.send(Method::GET, PATH, Some(&token), None).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(reply.headers["allow"], "POST");
    let _: Value = reply.body;
}
