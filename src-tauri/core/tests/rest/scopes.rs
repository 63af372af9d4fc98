//! The routes × scopes matrix (every route of the scope table, every scope): each route answers its success status
//! to a token holding exactly its scope or `system:full-access`, and 403
//! naming the missing scope to every other single-scope token.

use std::sync::Arc;

use almanac_core::tokens::{SCOPES, Scope};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::rest::support::{RecordingUi, RestHarness, STANDUP_PATH};

struct Route {
    method: Method,
    scope: Scope,
    success: StatusCode,
    /// The path and body for the `n`-th token, so writes never collide.
    request: fn(usize) -> (String, Option<Value>),
}

fn routes() -> Vec<Route> {
    use Scope::*;
    let route = |method, scope, success, request| Route {
        method,
        scope,
        success,
        request,
    };
    vec![
        route(Method::GET, EventsRead, StatusCode::OK, |_| {
            ("/api/v1/events".into(), None)
        }),
        route(Method::POST, EventsWrite, StatusCode::CREATED, |n| {
            let event =
                json!({"title": format!("Matrix {n}"), "date": "2026-02-01", "allDay": true});
            (
                "/api/v1/events".into(),
                Some(json!({"calendarId": "local", "event": event})),
            )
        }),
        route(Method::POST, EventsWrite, StatusCode::CREATED, |n| {
            (
                "/api/v1/events/quick".into(),
                Some(json!({"text": format!("Quick {n} on 2026-02-02 at 10:00")})),
            )
        }),
        route(Method::GET, EventsRead, StatusCode::OK, |_| {
            (STANDUP_PATH.into(), None)
        }),
        route(Method::GET, EventsRead, StatusCode::OK, |_| {
            ("/api/v1/changes".into(), None)
        }),
        route(Method::PUT, EventsWrite, StatusCode::OK, |_| {
            (
                STANDUP_PATH.into(),
                Some(json!({"event": {"endTime": "09:30"}})),
            )
        }),
        route(Method::DELETE, EventsWrite, StatusCode::OK, |n| {
            (
                format!("/api/v1/events/fullnote%3Aevents%2F2026-03-01%20Doomed%20{n}.md"),
                None,
            )
        }),
        route(Method::GET, EventsWrite, StatusCode::OK, |_| {
            ("/api/v1/history".into(), None)
        }),
        route(Method::POST, EventsWrite, StatusCode::OK, |_| {
            (
                "/api/v1/history/undo".into(),
                Some(json!({"token": "nobody", "since": "2020-01-01"})),
            )
        }),
        // The n-th token undoes the admin's create of "Undoable n" (the
        // history numbers changes from 1; the "Doomed" creates come first).
        route(Method::POST, EventsWrite, StatusCode::OK, |n| {
            (
                format!("/api/v1/history/{}/undo", Scope::ALL.len() + 1 + n),
                None,
            )
        }),
        route(Method::GET, ProvidersRead, StatusCode::OK, |_| {
            ("/api/v1/calendars".into(), None)
        }),
        route(Method::POST, ProvidersWrite, StatusCode::OK, |_| {
            (
                "/api/v1/providers/revalidate".into(),
                Some(json!({"force": true})),
            )
        }),
        route(Method::POST, UiOpenCalendar, StatusCode::OK, |_| {
            ("/api/v1/ui/open-calendar".into(), None)
        }),
        route(Method::POST, UiOpenSidebar, StatusCode::OK, |_| {
            ("/api/v1/ui/open-sidebar".into(), None)
        }),
        route(Method::POST, UiChangeView, StatusCode::OK, |_| {
            (
                "/api/v1/ui/change-view".into(),
                Some(json!({"viewName": "timeGridWeek"})),
            )
        }),
        route(Method::GET, SettingsRead, StatusCode::OK, |_| {
            ("/api/v1/settings".into(), None)
        }),
        route(Method::PUT, SettingsWrite, StatusCode::OK, |_| {
            (
                "/api/v1/settings".into(),
                Some(json!({"settings": {"firstDay": 1}})),
            )
        }),
    ]
}

#[tokio::test]
async fn every_route_against_every_scope() {
    let ui = Arc::new(RecordingUi::default());
    let instance = RestHarness::start_with_ui(ui.clone()).await;
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    // One deletable event per token, then one whose create it may undo.
    for n in 0..2 * Scope::ALL.len() {
        let title = match n.checked_sub(Scope::ALL.len()) {
            None => format!("Doomed {n}"),
            Some(n) => format!("Undoable {n}"),
        };
        let event = json!({"title": title, "date": "2026-03-01", "allDay": true});
        let reply = instance
            .send(
                Method::POST,
                "/api/v1/events",
                Some(&admin),
                Some(json!({"calendarId": "local", "event": event})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    }

    let routes = routes();
    let listed: usize = SCOPES.iter().map(|info| info.routes.len()).sum();
    assert_eq!(routes.len(), listed);
    let mut granted = vec![0; routes.len()];
    for (n, scope) in Scope::ALL.into_iter().enumerate() {
        let token = instance.token(&[scope]).await;
        for (r, route) in routes.iter().enumerate() {
            let (path, body) = (route.request)(n);
            let reply = instance
                .send(route.method.clone(), &path, Some(&token), body)
                .await;
            let what = format!("{} {path} with {scope}", route.method);
            reply.assert_cors();
            if scope == route.scope || scope == Scope::SystemFullAccess {
                granted[r] += 1;
                assert_eq!(reply.status, route.success, "{what}: {reply:?}");
                assert_eq!(reply.body["success"], true, "{what}");
            } else {
                assert_eq!(reply.status, StatusCode::FORBIDDEN, "{what}: {reply:?}");
                assert_eq!(reply.error_id(), "Forbidden");
                let message = reply.body["message"].as_str().unwrap();
                assert!(message.contains(route.scope.as_str()), "{what}: {message}");
            }
        }
    }
    assert!(granted.iter().all(|&n| n == 2), "{granted:?}");
    // The UI routes really reached the windows: twice each.
    assert_eq!(ui.calls().len(), 6, "{:?}", ui.calls());
}
