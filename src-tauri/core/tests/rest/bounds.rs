//! The cost ceiling of `GET /events`: past 10000 events an answer is refused
//! with a `400` naming the limit (as soon as the limit is exceeded, never
//! after expanding everything); at the limit it is answered whole.

use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};

use crate::rest::support::RestHarness;

/// Writes `count` open-ended daily series starting on `first_day` (half
/// `rrule`, half weekly on every day) and reads them into the cache.
fn daily_series(instance: &RestHarness, count: usize, first_day: &str) {
    for n in 0..count {
        let path = instance.vault().join(format!("events/Series {n}.md"));
        let timing = if n % 2 == 0 {
            format!("type: rrule\nrrule: FREQ=DAILY\nstartDate: {first_day}")
        } else {
            format!("type: recurring\ndaysOfWeek: [U, M, T, W, R, F, S]\nstartRecur: {first_day}")
        };
        let note = format!(
            "---\ntitle: Series {n}\n{timing}\nallDay: false\n\
             startTime: \"08:00\"\nendTime: \"08:30\"\n---\n"
        );
        std::fs::write(&path, note).unwrap();
        instance.core.calendar.refresh_path(&path);
    }
    let stats = instance.core.calendar.stats();
    assert_eq!(stats.events, count + 1, "the series and the Standup note");
}

async fn events(instance: &RestHarness, token: &str, range: &str) -> crate::rest::support::Reply {
    instance
        .send(
            Method::GET,
            &format!("/api/v1/events?{range}"),
            Some(token),
            None,
        )
        .await
}

#[tokio::test]
async fn a_thousand_years_of_150_open_series_is_refused_naming_the_limit() {
    // Series are indexed four weeks at a time over what is asked: a range
    // past 300 years is refused before any expansion, naming that limit.
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    daily_series(&instance, 150, "2000-01-01");

    let reply = events(&instance, &token, "start=1500-01-01&end=2999-12-31").await;
    assert_eq!(
        reply.status,
        StatusCode::BAD_REQUEST,
        "{}",
        &reply.text[..200.min(reply.text.len())]
    );
    assert_eq!(reply.error_id(), "Bad Request");
    let message = reply.body["message"].as_str().unwrap();
    assert!(message.contains("more than 300 years"), "{message}");
    assert!(message.contains("limit 300 years"), "{message}");
    reply.assert_cors();

    // A century of the same vault holds far more events than an answer.
    let reply = events(&instance, &token, "start=2000-01-01&end=2099-12-31").await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let message = reply.body["message"].as_str().unwrap();
    assert!(message.contains("limit 10000"), "{message}");

    // A narrow range of the same vault is answered.
    let reply = events(&instance, &token, "start=2024-03-01&end=2024-03-01").await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body["count"], 150);
}

#[tokio::test]
async fn a_range_at_the_limit_is_answered_whole_and_one_day_more_is_refused() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::EventsRead]).await;
    // 10 series × 1000 days (2030-01-01 … 2032-09-26) = 10000 events.
    daily_series(&instance, 10, "2030-01-01");

    let reply = events(&instance, &token, "start=2030-01-01&end=2032-09-26").await;
    assert_eq!(
        reply.status,
        StatusCode::OK,
        "{}",
        &reply.text[..200.min(reply.text.len())]
    );
    assert_eq!(reply.body["count"], 10_000);
    let events_listed = reply.body["events"].as_array().unwrap();
    assert_eq!(events_listed.len(), 10_000);
    assert_eq!(events_listed[0]["date"], "2030-01-01");
    assert_eq!(events_listed[9_999]["date"], "2032-09-26");

    let reply = events(&instance, &token, "start=2030-01-01&end=2032-09-27").await;
    assert_eq!(
        reply.status,
        StatusCode::BAD_REQUEST,
        "{}",
        &reply.text[..200.min(reply.text.len())]
    );
    assert!(
        reply.body["message"]
            .as_str()
            .unwrap()
            .contains("limit 10000"),
        "{reply:?}"
    );
    // Filtering by text brings it back under the limit.
    let reply = events(
        &instance,
        &token,
        "start=2030-01-01&end=2032-09-27&query=series%201",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["count"], 1001);
}
