//! `/api/v1/events`: query, create, read, update and delete events.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::answers::AnswerCache;
use super::auth::{Authorized, EventsRead, EventsWrite};
use super::extract::{EventIdParam, IdempotencyHeader, JsonBody};
use super::fallback::method_not_allowed;
use super::params::EventsParams;
use super::{RestState, Success, blocking};
use crate::api::query_slots::QuerySlots;
use crate::api::{EventOptions, TimedDetails, TimedEvent};
use crate::calendar::{Calendar, EventFields, JsonAnswer, SeriesLeftOut};
use crate::loopback_server::error::RestError;

/// The events routes.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route(
            "/api/v1/events",
            get(list).post(create).fallback(method_not_allowed),
        )
        // An id is one segment, percent-encoded; its raw form (unencoded
        // `/`) takes the second route. Sub-resources go between the two as
        // `/api/v1/events/{id}/<name>` (see `EVENT_SUB_RESOURCES`).
        .route("/api/v1/events/{id}", one_event())
        .route("/api/v1/events/{id}/{*rest}", one_event())
}

/// What `/events/{id}` serves, in either form of the id.
fn one_event() -> MethodRouter<RestState> {
    get(details)
        .put(update)
        .delete(delete)
        .fallback(method_not_allowed)
}

/// `GET /events`'s answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventsList {
    success: bool,
    /// The number of `events`.
    count: usize,
    /// Matching events, series expanded into occurrences, sorted by start,
    /// each with its times in UTC and in the display zone.
    events: Vec<TimedEvent>,
    /// Recurring series left out of `events`: each needs more than one
    /// series' share (100000) of the query's expansion steps. Absent when
    /// none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<SeriesLeftOut>,
}

impl EventsList {
    /// The answer's JSON around events already serialized: the shape is
    /// `EventsList`'s, with its empty `events` replaced by `answer.events`.
    fn written(answer: JsonAnswer) -> Bytes {
        let shell = EventsList {
            success: true,
            count: answer.count,
            events: Vec::new(),
            warnings: answer.left_out,
        };
        // Holds a bool, a number and plain structs of strings: always
        // serializes.
        let shell = serde_json::to_vec(&shell).expect("an event list serializes");
        // `success` and `count` come first, so the first match is the field.
        const EMPTY: &[u8] = b"\"events\":[]";
        let at = shell
            .windows(EMPTY.len())
            .position(|w| w == EMPTY)
            .expect("an event list has `events`")
            + EMPTY.len()
            - 2;
        let mut out = Vec::with_capacity(shell.len() + answer.events.len());
        out.extend_from_slice(&shell[..at]);
        out.extend_from_slice(&answer.events);
        out.extend_from_slice(&shell[at + 2..]);
        Bytes::from(out)
    }
}

/// Lists cached events matching the filters.
///
/// A range `[start, end]` matches events that overlap it (bounds inclusive);
/// recurring series are expanded into their occurrences inside the range.
/// Answers for a closed range are kept until the calendar changes.
///
/// An answer holds at most 10000 events, and expanding the range's series
/// may take at most 200000 steps (candidate dates): past either, the query
/// stops at once and answers `400` naming the limit; narrow `start`/`end` or
/// filter by `calendar`. One recurring series that alone needs more than
/// 100000 steps (a rule repeating every second from years before the range)
/// is left out and named in `warnings`; the rest still answers. Uncached
/// queries run a few at a time; one that cannot start within 10 s answers
/// `503`.
#[utoipa::path(
    get, path = "/api/v1/events", operation_id = "listEvents", tag = "events",
    params(EventsParams),
    responses(
        (status = 200, description = "The matching events", body = EventsList),
        (status = 400, description = "A parameter is malformed, or the range holds more than \
            10000 events or takes more than 200000 expansion steps (the message names the limit)",
            body = super::ErrorBody),
        (status = 503, description = "Too many uncached queries are waiting; retry later",
            body = super::ErrorBody),
    ),
)]
pub async fn list(
    Authorized(api, ..): Authorized<EventsRead>,
    State(calendar): State<Calendar>,
    State(answers): State<Arc<AnswerCache>>,
    State(slots): State<Arc<QuerySlots>>,
    params: EventsParams,
) -> Result<Response, RestError> {
    let filter = params.into_filter(calendar.display_timezone())?;
    let generation = answers.generation();
    let answer = match answers.get(&filter, generation) {
        Some(answer) => answer,
        None => {
            // Off the async workers, which the reminder daemon shares (see
            // `crate::api::query_slots`).
            let query = filter.clone();
            let token = api.token_id();
            let answer = slots
                .run(token, move || {
                    api.get_events_json(&query).map(EventsList::written)
                })
                .await??;
            answers.put(&filter, generation, answer.clone());
            answer
        }
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], answer).into_response())
}

/// `POST /events`'s body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateEvent {
    /// The calendar source to write to (`GET /calendars` lists them).
    calendar_id: String,
    event: EventFields,
    options: Option<EventOptions>,
}

/// The answer to a create or an update: `result` is the spec's flag; `event`
/// is the event as now stored, with its (possibly new) `id` and its times.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventWritten {
    success: bool,
    result: bool,
    event: TimedEvent,
}

impl EventWritten {
    pub(super) fn new(event: TimedEvent) -> Self {
        Self {
            success: true,
            result: true,
            event,
        }
    }
}

/// Creates an event (a new note, or a line in a daily note).
///
/// An all-day event sends `title`, `date`, `endDate`, `allDay: true`; a timed
/// one `title`, `date`, `startTime`, `endTime`, `allDay: false`.
#[utoipa::path(
    post, path = "/api/v1/events", operation_id = "createEvent", tag = "events",
    request_body = CreateEvent,
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry safe: \
            the same key with the same request within 24 hours answers the first create's \
            event and creates nothing (1 to 255 visible ASCII characters; a UUID is a good \
            one)")),
    responses(
        (status = 201, description = "Created", body = EventWritten),
        (status = 400, description = "Invalid body or event, unknown or read-only calendar", body = super::ErrorBody),
        (status = 409, description = "A note of that name exists", body = super::ErrorBody),
        (status = 422, description = "The `Idempotency-Key` was sent before with another request", body = super::ErrorBody),
        (status = 503, description = "The vault is unavailable (see `GET /calendars`)", body = super::ErrorBody),
    ),
)]
pub async fn create(
    Authorized(api, ..): Authorized<EventsWrite>,
    IdempotencyHeader(key): IdempotencyHeader,
    JsonBody(body): JsonBody<CreateEvent>,
) -> Result<(StatusCode, Json<EventWritten>), RestError> {
    let options = body.options.unwrap_or_default();
    let event = blocking(move || {
        let event = api.create_event_keyed(key.as_ref(), &body.calendar_id, body.event, options)?;
        Ok(TimedEvent::new(event, api.display_zone()))
    })
    .await?;
    Ok((StatusCode::CREATED, Json(EventWritten::new(event))))
}

/// `GET /events/{id}`'s answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct DetailsFound {
    success: bool,
    details: TimedDetails,
}

/// One event, with the note and line it is written on.
#[utoipa::path(
    get, path = "/api/v1/events/{id}", operation_id = "getEvent", tag = "events",
    params(("id" = String, Path, description = "The event id, percent-encoded as one path \
            segment (`/` as `%2F`); the raw form with unencoded `/` is accepted unless its last \
            segment names a sub-resource (`occurrences`)",
            example = "fullnote:events/2026-01-05 Standup.md")),
    responses(
        (status = 200, description = "The event", body = DetailsFound),
        (status = 400, description = "The id is malformed or points outside the vault", body = super::ErrorBody),
        (status = 404, description = "No such event", body = super::ErrorBody),
    ),
)]
pub async fn details(
    Authorized(api, ..): Authorized<EventsRead>,
    EventIdParam(id): EventIdParam,
) -> Result<Json<DetailsFound>, RestError> {
    let details = api.get_event_details(&id)?;
    Ok(Json(DetailsFound {
        success: true,
        details: TimedDetails::new(details, api.display_zone()),
    }))
}

/// `PUT /events/{id}`'s body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateEvent {
    /// Moves the event to this calendar (its note, or item, goes along).
    #[serde(rename = "calendarId")]
    calendar_id: Option<String>,
    /// The fields to change: absent keeps, `null` removes, a value replaces.
    event: EventFields,
    options: Option<EventOptions>,
}

/// Updates an event, or with `calendarId` moves it to that calendar.
/// Renaming or moving it changes its id (see `event.id`).
#[utoipa::path(
    put, path = "/api/v1/events/{id}", operation_id = "updateEvent", tag = "events",
    params(("id" = String, Path, description = "The event id, percent-encoded")),
    request_body = UpdateEvent,
    responses(
        (status = 200, description = "Updated", body = EventWritten),
        (status = 400, description = "Invalid body or fields, a read-only calendar, or a move the target calendar cannot hold", body = super::ErrorBody),
        (status = 404, description = "No such event", body = super::ErrorBody),
        (status = 409, description = "The renamed or moved note exists", body = super::ErrorBody),
        (status = 503, description = "The vault is unavailable (see `GET /calendars`)", body = super::ErrorBody),
    ),
)]
pub async fn update(
    Authorized(api, ..): Authorized<EventsWrite>,
    EventIdParam(id): EventIdParam,
    JsonBody(body): JsonBody<UpdateEvent>,
) -> Result<Json<EventWritten>, RestError> {
    let options = body.options.unwrap_or_default();
    let event = blocking(move || {
        let event = match body.calendar_id {
            Some(calendar_id) => api.move_event(&id, &calendar_id, body.event, options),
            None => api.update_event(&id, body.event, options),
        }?;
        Ok(TimedEvent::new(event, api.display_zone()))
    })
    .await?;
    Ok(Json(EventWritten::new(event)))
}

/// `DELETE /events/{id}`'s (optional) body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteEvent {
    /// `instanceDate` (`YYYY-MM-DD`) suppresses only that occurrence of a
    /// series; `silent` skips the in-app notice.
    options: Option<EventOptions>,
}

/// Deletes an event, or suppresses one occurrence of a series.
#[utoipa::path(
    delete, path = "/api/v1/events/{id}", operation_id = "deleteEvent", tag = "events",
    params(("id" = String, Path, description = "The event id, percent-encoded")),
    request_body(content = Option<DeleteEvent>, description = "Optional"),
    responses(
        (status = 200, description = "Deleted", body = Success),
        (status = 400, description = "Invalid body, or a read-only calendar", body = super::ErrorBody),
        (status = 404, description = "No such event", body = super::ErrorBody),
        (status = 503, description = "The vault is unavailable (see `GET /calendars`)", body = super::ErrorBody),
    ),
)]
pub async fn delete(
    Authorized(api, ..): Authorized<EventsWrite>,
    EventIdParam(id): EventIdParam,
    JsonBody(body): JsonBody<DeleteEvent>,
) -> Result<Json<Success>, RestError> {
    let options = body.options.unwrap_or_default();
    blocking(move || api.delete_event(&id, options)).await?;
    Ok(Json(Success::new()))
}
