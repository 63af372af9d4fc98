//! The calendar REST server (spec section A): `http://127.0.0.1:<port>/api/v1`.
//!
//! A thin HTTP layer over the in-process API. Layers, outermost first — the
//! order is the spec's validation order:
//!
//! 1. `cors` headers on every response (errors and panics included), and
//!    `proof`, the instance's answer to a client's challenge (that this is
//!    the user's Almanac), on every response to a request that asks;
//! 2. a panic becomes a JSON `500` (last resort: no client input should panic);
//! 3. the `Host` check: `Host` must be a loopback name with our port (DNS
//!    rebinding);
//! 4. `cors::preflight`: `OPTIONS` → `204`, no token needed;
//! 5. `auth`: `401` without a Bearer header, `403` for an unknown, expired or
//!    revoked token;
//! 6. `limit`: `413` over 1 MiB;
//! 7. routing: the feature routers (`events`, `quick_add`, `calendars`, `history`, `ui`,
//!    `settings`, and `mcp`, the MCP server's `/mcp` when switched on), `404` for unknown paths, `405` + `Allow` for wrong methods.
//!    Each handler's first extractor, `auth::Authorized`, answers `403` for
//!    a missing scope before the query or body is looked at.
//!
//! The listener that follows the settings ([`RestServer`]), the `Host`
//! check and the JSON error shape ([`RestError`]) are shared with the
//! CalDAV server, below both, in `crate::loopback_server` (re-exported
//! here). `answers` keeps
//! serialized `GET /events` answers until the calendar changes;
//! the API's query slots (`crate::api::query_slots`, shared with MCP) run
//! the uncached ones off the async workers, a few at a time; [`openapi`] describes the whole API from these handlers.

mod answers;
mod auth;
mod calendars;
mod changes;
mod cors;
mod events;
mod extract;
mod fallback;
mod feed_slots;
mod history;
mod limit;
mod mcp;
mod mcp_sessions;
pub mod openapi;
mod params;
mod proof;
mod quick_add;
mod settings;
mod ui;

pub use crate::loopback_server::{
    BODY_LIMIT, ErrorBody, Listening, OwnPort, RestError, RestServer, ServerState, check_host,
};

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::middleware;
use serde::Serialize;
use utoipa::ToSchema;

use crate::api::CalendarPlugin;
use crate::api::query_slots::QuerySlots;
use crate::app::Core;
use crate::calendar::Calendar;
use answers::AnswerCache;
use feed_slots::FeedSlots;

/// What the handlers share: the plugin whose token check and API they use,
/// the calendar, whose display time zone reads range bounds, the cache of
/// event-list answers and the slots uncached queries run in.
#[derive(Clone)]
pub struct RestState {
    plugin: Arc<CalendarPlugin>,
    calendar: Calendar,
    answers: Arc<AnswerCache>,
    query_slots: Arc<QuerySlots>,
    /// The change-feed waits open, per token and in all.
    feed_slots: Arc<FeedSlots>,
    /// `/mcp`'s service, when this state serves a whole instance.
    mcp: Option<Arc<McpRoute>>,
    /// The instance's key, when this state serves a whole instance.
    proof: Option<Arc<crate::instance_proof::InstanceKey>>,
    /// The published calendars' syncs, when this state serves a whole
    /// instance (their status in `GET /calendars`, "sync now" in
    /// `POST /providers/revalidate`).
    publishing: Option<Publishing>,
}

/// An instance's published calendars, as the REST server reaches them.
#[derive(Clone)]
struct Publishing {
    publisher: Arc<crate::publish::Publisher>,
    now: crate::publish::worker::SyncNow,
}

/// The MCP server as `/mcp` serves it.
struct McpRoute {
    context: crate::mcp::McpContext,
    /// The sessions open, per token and in all.
    sessions: mcp_sessions::McpSessions,
    service: rmcp::transport::streamable_http_server::StreamableHttpService<
        crate::mcp::AlmanacMcp,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    >,
}

impl RestState {
    /// Serves `plugin`; `calendar` must be the one the plugin was built on.
    pub fn new(plugin: Arc<CalendarPlugin>, calendar: Calendar) -> Self {
        let answers = Arc::new(AnswerCache::new(calendar.subscribe()));
        Self {
            plugin,
            calendar,
            answers,
            query_slots: Arc::new(QuerySlots::new()),
            feed_slots: Arc::new(FeedSlots::default()),
            mcp: None,
            proof: None,
            publishing: None,
        }
    }
}

impl From<&Core> for RestState {
    /// The whole instance's API, `/mcp` included.
    fn from(core: &Core) -> Self {
        let base = Self::new(core.plugin().clone(), core.calendar.clone());
        // Tool calls take the same query threads as `GET /events`.
        let context = crate::mcp::McpContext {
            queries: Some(base.query_slots.clone()),
            ..crate::mcp::McpContext::from(core)
        };
        let service = crate::mcp::http_service(context.clone());
        Self {
            mcp: Some(Arc::new(McpRoute {
                context,
                sessions: Default::default(),
                service,
            })),
            proof: core.instance_key.clone(),
            publishing: Some(Publishing {
                publisher: core.publisher.clone(),
                now: core.publish_now.clone(),
            }),
            ..base
        }
    }
}

impl FromRef<RestState> for Arc<CalendarPlugin> {
    fn from_ref(state: &RestState) -> Self {
        state.plugin.clone()
    }
}

impl FromRef<RestState> for Arc<AnswerCache> {
    fn from_ref(state: &RestState) -> Self {
        state.answers.clone()
    }
}

impl FromRef<RestState> for Arc<QuerySlots> {
    fn from_ref(state: &RestState) -> Self {
        state.query_slots.clone()
    }
}

impl FromRef<RestState> for Arc<FeedSlots> {
    fn from_ref(state: &RestState) -> Self {
        state.feed_slots.clone()
    }
}

impl FromRef<RestState> for Calendar {
    fn from_ref(state: &RestState) -> Self {
        state.calendar.clone()
    }
}

/// The whole API for a server listening on `port` (see the module docs for
/// the layers).
pub fn router(state: RestState, port: u16) -> Router {
    Router::new()
        .merge(events::routes())
        .merge(quick_add::routes())
        .merge(calendars::routes())
        .merge(changes::routes())
        .merge(history::routes())
        .merge(ui::routes())
        .merge(settings::routes())
        .merge(mcp::routes())
        .fallback(fallback::not_found)
        .layer(limit::streaming())
        .layer(middleware::from_fn(limit::declared_length))
        .layer(middleware::from_fn_with_state(
            state.plugin.clone(),
            auth::authenticate,
        ))
        .layer(middleware::from_fn(cors::preflight))
        .layer(middleware::from_fn_with_state(OwnPort(port), check_host))
        .layer(PANIC_ANSWER.layer())
        .layer(middleware::from_fn_with_state(
            state.proof.clone(),
            proof::answer,
        ))
        .layer(middleware::map_response(cors::add_headers))
        .with_state(state)
}

impl RestServer {
    /// The REST server of `core`, following its settings.
    pub fn start(core: &Core) -> RestServer {
        let state = RestState::from(core);
        RestServer::spawn(core.settings.subscribe(), move |port| {
            router(state.clone(), port)
        })
    }
}

/// The answer of routes that return nothing else.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success {
    success: bool,
}

impl Success {
    fn new() -> Self {
        Self { success: true }
    }
}

/// Runs a blocking API call (a write: files and fsync) off the async workers.
/// A panic there escapes the catch-panic layer; it is logged and answered as
/// the JSON `500` here.
async fn blocking<T, F>(call: F) -> Result<T, RestError>
where
    F: FnOnce() -> Result<T, crate::api::ApiError> + Send + 'static,
    T: Send + 'static,
{
    match almanac_loopback::blocking(call).await {
        Ok(outcome) => outcome.map_err(RestError::from),
        Err(_logged) => Err(RestError::Internal),
    }
}

/// A panic is a bug: log it, answer the JSON `500`.
const PANIC_ANSWER: almanac_loopback::PanicAnswer = almanac_loopback::PanicAnswer {
    server: "REST",
    internal_error: || axum::response::IntoResponse::into_response(RestError::Internal),
};

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::to_bytes;

    #[tokio::test]
    async fn a_panic_becomes_the_json_500() {
        let response = PANIC_ANSWER.answer(Box::new("boom"));
        assert_eq!(response.status(), 500);
        let body = to_bytes(response.into_body(), 1024).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"], "Internal Server Error");
        assert!(!body["message"].as_str().unwrap().contains("boom"));
    }
}
