//! Full Calendar's recurring shapes and extra keys over HTTP: created,
//! expanded and served with the plugin's camelCase keys; bad values are a
//! 400 in the error shape and change nothing.

use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::rest::support::RestHarness;

#[tokio::test]
async fn shapes_and_extra_keys_round_trip_over_http() {
    let instance = RestHarness::start().await;
    let token = instance.token(&[Scope::SystemFullAccess]).await;
    let event = json!({
        "title": "Payday", "type": "recurring", "allDay": true,
        "repeatOn": {"week": -1, "weekday": 5},
        "startRecur": "2026-01-01", "endRecur": "2026-03-31",
        "notify": {"value": 60}, "alarms": [{"minutesBefore": 120, "action": "EMAIL"}],
        "endReminder": false, "location": "Bank", "uid": "pay-1",
        "display": "block", "subCategory": "Money"
    });
    let created = instance
        .send(
            Method::POST,
            "/api/v1/events",
            Some(&token),
            Some(json!({"calendarId": "local", "event": event})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{created:?}");

    let reply = instance
        .send(
            Method::GET,
            "/api/v1/events?start=2026-01-01&end=2026-12-31&query=payday",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let events = reply.body["events"].as_array().unwrap();
    let dates: Vec<&str> = events.iter().map(|e| e["date"].as_str().unwrap()).collect();
    // The last Fridays of January to March 2026.
    assert_eq!(dates, ["2026-01-30", "2026-02-27", "2026-03-27"]);
    let first = &events[0];
    for key in [
        "repeatOn",
        "notify",
        "endReminder",
        "location",
        "uid",
        "display",
        "subCategory",
    ] {
        assert_eq!(first[key], event[key], "{key}");
    }
    assert_eq!(
        first["alarms"],
        json!([{"minutesBefore": 120, "action": "EMAIL"}])
    );

    assert_eq!(first["id"], "fullnote:events/2026-01-01 Payday.md");
    let path = "/api/v1/events/fullnote%3Aevents%2F2026-01-01%20Payday.md";
    let before = crate::rest::hostile::snapshot(&instance);
    for bad in [
        json!({"dayOfMonth": 0}),
        json!({"month": 13, "dayOfMonth": 1}),
        json!({"repeatOn": {"week": 2}}),
        json!({"display": "sideways"}),
        json!({"notify": {"value": -1}}),
        json!({"alarms": [{"minutesBefore": 10080, "action": "SMS"}]}),
    ] {
        let reply = instance
            .send(Method::PUT, path, Some(&token), Some(json!({"event": bad})))
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}: {reply:?}");
        reply.error_id();
    }
    assert_eq!(
        crate::rest::hostile::snapshot(&instance),
        before,
        "a refused update changed the disk"
    );
}
