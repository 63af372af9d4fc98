//! `POST /api/v1/events/quick`: one line ("Lunch with Ada tomorrow 12:30")
//! read as a new event by the quick-add grammar (docs/quick-add.md), and
//! created, or with `dryRun` only read.

use axum::Json;
use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Authorized, EventsWrite};
use super::events::EventWritten;
use super::extract::{IdempotencyHeader, JsonBody};
use super::fallback::method_not_allowed;
use super::{RestState, blocking};
use crate::api::TimedEvent;
use crate::calendar::EventFields;
use crate::loopback_server::error::RestError;

pub fn routes() -> Router<RestState> {
    Router::new().route(
        "/api/v1/events/quick",
        post(quick_add).fallback(method_not_allowed),
    )
}

/// `POST /events/quick`'s body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuickAddBody {
    /// The line, e.g. `Lunch with Ada tomorrow 12:30` (at most 1000
    /// characters).
    #[schema(example = "Lunch with Ada tomorrow 12:30")]
    text: String,
    /// The calendar when the line names none ("in Work"); without either,
    /// the first writable calendar (`GET /calendars` lists them).
    calendar_id: Option<String>,
    /// Only read the line: answer the event it describes, write nothing.
    #[serde(default)]
    dry_run: bool,
    /// The moment relative phrases ("tomorrow", "in 2 hours") count from,
    /// RFC 3339; the current time when absent.
    #[schema(example = "2026-10-23T12:00:00+02:00")]
    now: Option<String>,
}

/// A dry run's answer: the event the line describes, in `POST /events`'s
/// body shape (the fields the line gave: always `title`, `type` and
/// `allDay`; wall times in the display zone, no `timezone`), and the
/// calendar it would go to.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuickAddRead {
    success: bool,
    calendar_id: String,
    event: EventFields,
}

/// Creates an event from one line of text, read in the display time zone.
///
/// The grammar, with a table of phrases and the events they make, is in
/// docs/quick-add.md: times (`at 3pm`, `15:00`, `3-4pm`), days (`tomorrow`,
/// `next friday`, `on 12 Dec`, `2026-12-01`, `in 3 days`), ranges, `all
/// day`, repeats (`every Monday`, `every 2 weeks`) and `in <calendar
/// name>`. With `dryRun` the line is only read (`200`); otherwise the event
/// is created as `POST /events` creates it (`201`). A line that cannot be
/// read answers `400` naming `text` and saying why. Both need
/// `events:write`: a preview is of a write.
#[utoipa::path(
    post, path = "/api/v1/events/quick", operation_id = "quickAddEvent", tag = "events",
    request_body = QuickAddBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe: \
            the same key with the same line within 24 hours answers the first create's event \
            and creates nothing (a dry run needs none)")),
    responses(
        (status = 200, description = "Dry run: the event the line describes, not written", body = QuickAddRead),
        (status = 201, description = "Created", body = EventWritten),
        (status = 400, description = "The line cannot be read (field `text`), a bad `now`, or an unknown or read-only calendar", body = super::ErrorBody),
        (status = 409, description = "A note of that name exists", body = super::ErrorBody),
        (status = 422, description = "The `Idempotency-Key` was sent before with another request", body = super::ErrorBody),
        (status = 503, description = "The vault is unavailable (see `GET /calendars`)", body = super::ErrorBody),
    ),
)]
pub async fn quick_add(
    Authorized(api, ..): Authorized<EventsWrite>,
    IdempotencyHeader(key): IdempotencyHeader,
    JsonBody(body): JsonBody<QuickAddBody>,
) -> Result<Response, RestError> {
    let now = match &body.now {
        Some(now) => Some(
            DateTime::parse_from_rfc3339(now)
                .map_err(|e| {
                    RestError::bad_request("now", format!("`{now}` is not RFC 3339: {e}"))
                })?
                .with_timezone(&Utc),
        ),
        None => None,
    };
    let (added, zone) = blocking(move || {
        let calendar = body.calendar_id.as_deref();
        let added = api.quick_add_keyed(key.as_ref(), &body.text, calendar, now, body.dry_run)?;
        Ok((added, api.display_zone()))
    })
    .await?;
    Ok(match added.created {
        None => Json(QuickAddRead {
            success: true,
            calendar_id: added.read.calendar_id,
            event: added.read.fields,
        })
        .into_response(),
        Some(event) => {
            let event = TimedEvent::new(event, zone);
            (StatusCode::CREATED, Json(EventWritten::new(event))).into_response()
        }
    })
}
