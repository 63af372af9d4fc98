//! `GET /api/v1/changes`: the change feed ([`crate::changes`]), long-polled
//! (`?since=N&timeout=S`: answers as soon as there is an entry after `N`, or
//! after `S` seconds with none) or, with `Accept: text/event-stream`,
//! streamed as server-sent events (each entry one event, its id the SSE
//! `id`, so a reconnecting client's `Last-Event-ID` resumes it). Streams
//! and long-polls are bounded per token and in all ([`super::feed_slots`]),
//! and a stream ends after [`MAX_STREAM_LIFE`].

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::StreamExt;
use futures_util::stream::{self, Stream};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::RestState;
use super::auth::{Authorized, EventsRead};
use super::fallback::method_not_allowed;
use super::feed_slots::{FeedSlot, FeedSlots};
use crate::api::AuthorizedApi;
use crate::api::changes::{ChangePage, MAX_WAIT};
use crate::changes::Change;
use crate::loopback_server::error::RestError;

/// How long one stream lasts before it ends and the client resumes (an
/// `EventSource` does so by itself, from the last id it saw).
pub const MAX_STREAM_LIFE: Duration = Duration::from_secs(30 * 60);

/// The change-feed route.
pub fn routes() -> Router<RestState> {
    Router::new().route("/api/v1/changes", get(changes).fallback(method_not_allowed))
}

/// The query string of `GET /changes`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChangesParams {
    /// The last entry already seen (`last` of the previous answer). Absent:
    /// start from now (the answer holds no entries, only `last`).
    since: Option<String>,
    /// Seconds to wait for an entry when there is none yet, 0 to 60
    /// (default 0: answer at once).
    timeout: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for ChangesParams {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Query(params) = Query::<ChangesParams>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| RestError::bad_request("query string", rejection.body_text()))?;
        Ok(params)
    }
}

/// `GET /changes`' answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChangesAnswer {
    success: bool,
    /// The entries after `since` this token may see, oldest first.
    changes: Vec<Change>,
    /// The newest entry's id: `since` for the next request.
    last: u64,
}

impl From<ChangePage> for ChangesAnswer {
    fn from(page: ChangePage) -> Self {
        Self {
            success: true,
            changes: page.changes,
            last: page.last,
        }
    }
}

/// Follows the change feed.
///
/// Entries: `event.created`, `event.updated`, `event.deleted` (with the
/// calendar and event id) and `calendar.status` (seen only by tokens with
/// `providers:read`). Ids rise by exactly one, so a gap is an entry missed
/// (or one the token may not see). With `Accept: text/event-stream` the
/// answer is a stream of server-sent events instead, from `since` (or
/// `Last-Event-ID`) on.
#[utoipa::path(
    get, path = "/api/v1/changes", operation_id = "listChanges", tag = "events",
    params(ChangesParams),
    responses(
        (status = 200, description = "The entries after `since`", body = ChangesAnswer),
        (status = 400, description = "`since` or `timeout` is malformed", body = super::ErrorBody),
        (status = 410, description = "`since` is older than the kept history, or from before \
            Almanac restarted; the `Almanac-Changes-Current` header (and the message) give the \
            id to follow on from", body = super::ErrorBody),
        (status = 429, description = "This token already follows the feed 4 times at once (a \
            stream or a waiting long-poll each); `Retry-After` says when to try again",
            body = super::ErrorBody),
        (status = 503, description = "The feed is followed as many times at once as it serves, \
            for all tokens; `Retry-After` says when to try again", body = super::ErrorBody),
    ),
)]
pub async fn changes(
    Authorized(api, ..): Authorized<EventsRead>,
    State(slots): State<Arc<FeedSlots>>,
    params: ChangesParams,
    headers: HeaderMap,
) -> Result<Response, RestError> {
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let since = number("since", params.since.or(resume))?;
    let timeout = number("timeout", params.timeout)?.unwrap_or(0);
    if timeout > MAX_WAIT.as_secs() {
        return Err(RestError::bad_request(
            "timeout",
            format!("at most {} seconds", MAX_WAIT.as_secs()),
        ));
    }
    let since = match since {
        Some(since) => since,
        None => api.changes_cursor()?,
    };
    let streamed = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/event-stream"));
    if streamed {
        // Refuse a bad cursor with a status, before the stream starts.
        api.changes_since(since)?;
        let slot = slots.take(api.token_id())?;
        return Ok(Sse::new(stream_from(api, since, slot))
            .keep_alive(KeepAlive::default())
            .into_response());
    }
    // A long-poll holds a slot while it waits; an answer at once needs none.
    let _slot = match timeout {
        0 => None,
        _ => Some(slots.take(api.token_id())?),
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout);
    loop {
        let page = api.changes_since(since)?;
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if !page.changes.is_empty() || left.is_zero() {
            return Ok(Json(ChangesAnswer::from(page)).into_response());
        }
        // Entries this token may not see also wake it: look again.
        api.wait_for_changes(page.last.max(since), left).await?;
        if tokio::time::Instant::now() >= deadline {
            return Ok(Json(ChangesAnswer::from(api.changes_since(since)?)).into_response());
        }
    }
}

/// A parameter that must be a whole number, if present.
fn number(name: &str, value: Option<String>) -> Result<Option<u64>, RestError> {
    value
        .map(|v| {
            v.trim()
                .parse::<u64>()
                .map_err(|_| RestError::bad_request(name, format!("`{v}` is not a whole number")))
        })
        .transpose()
}

/// The entries after `since`, then each new one as it comes, until the
/// client goes, the token stops being valid, or the stream has lasted
/// [`MAX_STREAM_LIFE`] (the client then resumes from its `Last-Event-ID`,
/// and its token is checked anew). `slot` is held for as long.
fn stream_from(
    api: AuthorizedApi,
    since: u64,
    slot: FeedSlot,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let pages = stream::unfold((api, since, slot), |(api, mut since, slot)| async move {
        loop {
            let page: ChangePage = api.changes_since(since).ok()?;
            if !page.changes.is_empty() {
                let next = page.last;
                return Some((page.changes, (api, next, slot)));
            }
            // Entries this token may not see move its cursor on too, so
            // they are not read again at every wake.
            since = page.last.max(since);
            api.wait_for_changes(since, MAX_WAIT).await.ok()?;
        }
    });
    let pages = pages.take_until(tokio::time::sleep(MAX_STREAM_LIFE));
    pages.flat_map(|changes| {
        stream::iter(changes.into_iter().map(|change| {
            let data = serde_json::to_string(&change).unwrap_or_default();
            let kind = serde_json::to_value(change.about.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            Ok(SseEvent::default()
                .id(change.id.to_string())
                .event(kind)
                .data(data))
        }))
    })
}
