//! Typed extractors whose failures are [`RestError`]s.
//!
//! axum's own extractors answer bad input with `text/plain` bodies; these wrap
//! them so every rejection keeps the JSON error shape and names the field that
//! was wrong.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};

use crate::api::IdempotencyKey;
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::loopback_server::error::RestError;

/// A JSON request body deserialized into `T`.
///
/// An empty body reads as `{}`, so routes whose body is all optional
/// (`DELETE /events/:id`, revalidate) accept no body at all, while a missing
/// required member is reported by name. The `Content-Type` is not enforced:
/// the bearer token, not the content type, is what keeps browsers' simple
/// cross-origin requests out.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = RestError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(body_rejection)?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        parse_json(bytes).map(JsonBody)
    }
}

/// Deserializes `bytes`, which must hold one JSON object (every request body
/// of the API is one), naming the JSON path of the first problem.
fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, RestError> {
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return Err(RestError::bad_request("body", "must be a JSON object"));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let reason = inner.to_string();
        // serde reports a missing member at its parent; name the member itself.
        let field = match missing_field(&reason) {
            Some(name) if path == "." => name.to_string(),
            Some(name) => format!("{path}.{name}"),
            None if inner.is_syntax() || inner.is_eof() || path == "." => "body".to_string(),
            None => path,
        };
        RestError::bad_request(field, reason)
    })?;
    deserializer
        .end()
        .map_err(|e| RestError::bad_request("body", e.to_string()))?;
    Ok(value)
}

/// The member name in serde's "missing field `x`" message.
fn missing_field(reason: &str) -> Option<&str> {
    reason.strip_prefix("missing field `")?.split('`').next()
}

fn body_rejection(rejection: BytesRejection) -> RestError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        RestError::PayloadTooLarge
    } else {
        RestError::bad_request("body", rejection.body_text())
    }
}

/// Names that may follow an event id as a sub-resource
/// (`/events/{id}/<name>`). A raw multi-segment path ending in one of them
/// is never read as an id, so a sub-resource route can be added without
/// changing what any id path means.
pub const EVENT_SUB_RESOURCES: &[&str] = &["occurrences"];

/// The id of `/events/{id}`, percent-decoded.
///
/// An id travels as one path segment, percent-encoded
/// (`fullnote%3Aevents%2Fa.md`, from the `{id}` route). The raw form, whose
/// `/` are sent unencoded (`fullnote:events/a.md`), arrives through the
/// `{id}/{*rest}` route and is accepted unless its last segment, as sent, is
/// one of [`EVENT_SUB_RESOURCES`]: such a path answers `404` as an unknown
/// route.
/// Both forms reach the handler as `fullnote:events/a.md`.
#[derive(Debug)]
pub struct EventIdParam(pub String);

impl<S: Send + Sync> FromRequestParts<S> for EventIdParam {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(params) = Path::<Vec<(String, String)>>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| RestError::bad_request("id", rejection.body_text()))?;
        let mut params = params.into_iter().map(|(_, value)| value);
        let mut id = params.next().unwrap_or_default();
        if let Some(rest) = params.next() {
            // The last segment as sent, as the router matches routes: a
            // sub-resource name that is part of a segment (`a%2Foccurrences`)
            // does not end the path.
            let last = parts.uri.path().rsplit('/').next().unwrap_or_default();
            if EVENT_SUB_RESOURCES.contains(&last) {
                return Err(RestError::NotFound(format!(
                    "no route for {}",
                    parts.uri.path()
                )));
            }
            id = format!("{id}/{rest}");
        }
        if id.contains('\0') {
            return Err(RestError::bad_request("id", "must not contain NUL"));
        }
        Ok(EventIdParam(id))
    }
}

/// The `Idempotency-Key` header of a create, when one is sent
/// ([`crate::api::idempotency`]); a malformed one is a `400`.
#[derive(Debug)]
pub struct IdempotencyHeader(pub Option<IdempotencyKey>);

/// The header's name, as the OpenAPI document and errors give it.
pub const IDEMPOTENCY_HEADER: &str = "Idempotency-Key";

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyHeader {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let Some(value) = parts.headers.get(IDEMPOTENCY_HEADER) else {
            return Ok(IdempotencyHeader(None));
        };
        // Not visible ASCII: the key parser says what a key is.
        let text = value.to_str().unwrap_or("\0");
        let key = IdempotencyKey::parse(text, IDEMPOTENCY_HEADER)?;
        Ok(IdempotencyHeader(Some(key)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Create {
        calendar_id: String,
        event: Inner,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Inner {
        title: String,
        all_day: Option<bool>,
    }

    fn field_of(json: &str) -> String {
        match parse_json::<Create>(json.as_bytes()) {
            Err(RestError::BadRequest { field, .. }) => field,
            other => panic!("expected a bad request for {json}, got {other:?}"),
        }
    }

    #[test]
    fn names_the_missing_or_wrong_field() {
        assert_eq!(field_of(r#"{"event": {"title": "x"}}"#), "calendarId");
        assert_eq!(field_of(r#"{"calendarId": "c"}"#), "event");
        assert_eq!(
            field_of(r#"{"calendarId": "c", "event": {}}"#),
            "event.title"
        );
        assert_eq!(
            field_of(r#"{"calendarId": "c", "event": {"title": "x", "allDay": "yes"}}"#),
            "event.allDay"
        );
        assert_eq!(
            field_of(r#"{"calendarId": 5, "event": {"title": "x"}}"#),
            "calendarId"
        );
        assert_eq!(field_of("{"), "body");
        assert_eq!(field_of("[1]"), "body");
        assert_eq!(
            field_of(r#"{"calendarId": "c", "event": {"title": "x"}} x"#),
            "body"
        );
    }

    #[test]
    fn deep_nesting_is_a_bad_request_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(
            parse_json::<serde_json::Value>(deep.as_bytes()),
            Err(RestError::BadRequest { .. })
        ));
    }
}
