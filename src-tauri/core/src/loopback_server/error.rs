//! The REST layer's one error type and its JSON shape.
//!
//! Every failure a request can meet — a missing token, a bad body, an unknown
//! id, a panic — ends up as a [`RestError`], which renders as the spec's
//! `{"error": "<short id>", "message": "<why>"}` with the matching status. The
//! short id is the status's canonical reason phrase (`Not Found`, `Bad Request`,
//! ...), so clients can switch on either.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::ApiError;
use crate::api::query_slots::QueryRefused;
use crate::calendar::CalendarError;

/// The largest request body accepted, in bytes (1 MiB).
pub const BODY_LIMIT: usize = 1024 * 1024;

/// Why a request failed, one variant per status the server answers with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestError {
    /// No `Authorization: Bearer …` header.
    #[error("{0}")]
    Unauthorized(&'static str),
    /// The token is unknown, expired or revoked, or lacks the route's scope.
    #[error("{0}")]
    Forbidden(String),
    /// An unknown path or id.
    #[error("{0}")]
    NotFound(String),
    /// A known path asked with a method it does not serve.
    #[error("{method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    /// The body exceeds [`BODY_LIMIT`].
    #[error("request bodies are limited to {BODY_LIMIT} bytes")]
    PayloadTooLarge,
    /// The request is malformed, or the calendar refused it. `field` names
    /// the offending part (`event.date`, `isTask`, `body`, ...).
    #[error("invalid `{field}`: {reason}")]
    BadRequest { field: String, reason: String },
    /// The query would cost more than its ceiling; the message names the
    /// limit and what to narrow.
    #[error("{0}")]
    QueryTooLarge(String),
    /// The change collides with existing data (e.g. a note of that name).
    #[error("{0}")]
    Conflict(String),
    /// The request is well formed but cannot be carried out as asked (an
    /// idempotency key sent again with another request).
    #[error("{0}")]
    Unprocessable(String),
    /// The `Host` header names something other than this loopback server: a
    /// DNS-rebinding page, or a misconfigured proxy.
    #[error("Host `{0}` is not this server; use 127.0.0.1, localhost or [::1] with its port")]
    MisdirectedRequest(String),
    /// The operation needs a part of the app that is not running (the
    /// calendar window in headless mode).
    #[error("{0}")]
    Unavailable(String),
    /// This token holds as many of a bounded thing as it may (change-feed
    /// streams): `429` with `Retry-After` (seconds).
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    /// The server serves as many of a bounded thing as it will, for all
    /// tokens: `503` with `Retry-After` (seconds).
    #[error("{message}")]
    Busy { message: String, retry_after: u64 },
    /// A change-feed cursor the feed can no longer answer; `current` is
    /// where to follow on from.
    #[error("{message}")]
    Gone { message: String, current: u64 },
    /// A bug. The details go to the log, not to the client.
    #[error("unexpected error while handling the request")]
    Internal,
}

/// The `Retry-After` of a refusal past a bound ([`RestError::past_bound`]),
/// in seconds.
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// Whose bound a request is past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The token's own share: `429`.
    Token,
    /// What the server serves for all tokens together: `503`.
    All,
}

impl RestError {
    /// A refusal past a bound, with `Retry-After`. `what` says what is
    /// bounded and what the client can do; the message adds when to retry.
    pub fn past_bound(bound: Bound, what: impl std::fmt::Display) -> Self {
        let message = format!("{what}; retry in {RETRY_AFTER_SECONDS} s");
        let retry_after = RETRY_AFTER_SECONDS;
        match bound {
            Bound::Token => Self::TooManyRequests {
                message,
                retry_after,
            },
            Bound::All => Self::Busy {
                message,
                retry_after,
            },
        }
    }
}

/// The body of every error response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// Short identifier: the status's reason phrase, e.g. `Not Found`.
    #[schema(example = "Not Found")]
    pub error: String,
    /// Human-readable explanation.
    #[schema(example = "no event with id `fullnote:events/x.md`")]
    pub message: String,
}

impl RestError {
    /// Shorthand for a [`RestError::BadRequest`].
    pub fn bad_request(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::BadRequest {
            field: field.into(),
            reason: reason.into(),
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::BadRequest { .. } | Self::QueryTooLarge(_) => StatusCode::BAD_REQUEST,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::MisdirectedRequest(_) => StatusCode::MISDIRECTED_REQUEST,
            Self::Unavailable(_) | Self::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Gone { .. } => StatusCode::GONE,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The body this error renders as.
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: self
                .status()
                .canonical_reason()
                .unwrap_or("Error")
                .to_string(),
            message: self.to_string(),
        }
    }
}

impl From<ApiError> for RestError {
    fn from(error: ApiError) -> Self {
        match error {
            ApiError::MissingScope(_)
            | ApiError::SettingRefused(_)
            | ApiError::TokenNoLongerValid(_) => Self::Forbidden(error.to_string()),
            ApiError::NotFound(message) => Self::NotFound(message),
            ApiError::BadRequest { field, reason } => Self::BadRequest { field, reason },
            ApiError::QueryTooLarge(message) => Self::QueryTooLarge(message),
            ApiError::ReadOnly(_) => Self::bad_request("calendarId", error.to_string()),
            ApiError::Conflict(message) => Self::Conflict(message),
            ApiError::KeyReused(message) => Self::Unprocessable(message),
            ApiError::UiUnavailable(_) | ApiError::VaultUnavailable(_) => {
                Self::Unavailable(error.to_string())
            }
            ApiError::ChangesGone { current } => Self::Gone {
                message: error.to_string(),
                current,
            },
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "API call failed");
                Self::Internal
            }
        }
    }
}

/// An event query the query slots did not run: past the token's share is
/// past a bound (`429` with `Retry-After`), no thread free in time is
/// `503`.
impl From<QueryRefused> for RestError {
    fn from(refused: QueryRefused) -> Self {
        match refused {
            QueryRefused::TokenShare { .. } => Self::past_bound(Bound::Token, refused),
            QueryRefused::Busy { .. } => Self::Unavailable(refused.to_string()),
            QueryRefused::Failed => Self::Internal,
        }
    }
}

/// Range bounds are parsed here, with the engine's parser.
impl From<CalendarError> for RestError {
    fn from(error: CalendarError) -> Self {
        ApiError::from(error).into()
    }
}

/// The header of a `410` from `GET /changes`: the newest change's id, to
/// follow on from (also in the message).
pub const CHANGES_CURRENT_HEADER: &str = "almanac-changes-current";

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), Json(self.body())).into_response();
        match self {
            Self::Gone { current, .. } => {
                response
                    .headers_mut()
                    .insert(CHANGES_CURRENT_HEADER, current.into());
            }
            Self::TooManyRequests { retry_after, .. } | Self::Busy { retry_after, .. } => {
                let headers = response.headers_mut();
                headers.insert(header::RETRY_AFTER, retry_after.into());
                // A client refused past a bound waits before it asks again;
                // kept alive meanwhile, its connection would hold one of the
                // port's few hundred for the idle timeout (10 s). A token
                // opening 300 change-feed streams got 4 and held the rest of
                // the port with its refused connections: another client's
                // new connection waited 9.9 s in the listen backlog.
                headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            _ => {}
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_spec_reason_phrases() {
        let cases = [
            (RestError::Unauthorized("x"), "Unauthorized"),
            (RestError::Forbidden("x".into()), "Forbidden"),
            (RestError::NotFound("x".into()), "Not Found"),
            (RestError::bad_request("f", "r"), "Bad Request"),
            (RestError::Internal, "Internal Server Error"),
            (
                RestError::MethodNotAllowed {
                    method: "PATCH".into(),
                    path: "/".into(),
                },
                "Method Not Allowed",
            ),
            (RestError::PayloadTooLarge, "Payload Too Large"),
            (RestError::Conflict("x".into()), "Conflict"),
        ];
        for (error, id) in cases {
            assert_eq!(error.body().error, id);
        }
    }

    #[test]
    fn bad_request_names_the_field() {
        let message = RestError::bad_request("event.date", "expected YYYY-MM-DD")
            .body()
            .message;
        assert!(message.contains("`event.date`"), "{message}");
    }

    #[test]
    fn a_refusal_past_a_bound_says_when_to_retry_and_closes_the_connection() {
        for bound in [Bound::Token, Bound::All] {
            let response = RestError::past_bound(bound, "full").into_response();
            let headers = response.headers();
            assert_eq!(headers[header::RETRY_AFTER], "5");
            assert_eq!(headers[header::CONNECTION], "close");
        }
        // Other errors keep the connection.
        let response = RestError::NotFound("x".into()).into_response();
        assert!(response.headers().get(header::CONNECTION).is_none());
    }

    /// The query slots' refusals keep the answers REST gave them: `429`
    /// with `Retry-After` past the token's share, `503` when busy, `500`
    /// for a query that panicked.
    #[test]
    fn a_refused_query_is_429_503_or_500() {
        let share = RestError::from(QueryRefused::TokenShare { share: 2 });
        assert_eq!(share.status(), 429, "{share}");
        assert!(
            share
                .to_string()
                .starts_with("this token already has 2 event queries running"),
            "{share}"
        );
        let response = share.into_response();
        assert_eq!(response.headers()[header::RETRY_AFTER], "5");
        let busy = RestError::from(QueryRefused::Busy {
            waited: std::time::Duration::from_secs(10),
        });
        assert_eq!(busy.status(), 503, "{busy}");
        assert!(busy.to_string().contains("within 10 s"), "{busy}");
        assert_eq!(RestError::from(QueryRefused::Failed).status(), 500);
    }
}
