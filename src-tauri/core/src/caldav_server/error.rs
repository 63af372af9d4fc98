//! How the CalDAV server refuses a request: the REST server's JSON error
//! shape (`{"error","message"}`) with the status CalDAV clients expect, plus
//! the `WWW-Authenticate` challenge on a `401` and the `DAV:error` body of a
//! failed precondition (RFC 4918 §16).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::api::ApiError;
use crate::loopback_server::{ErrorBody, RestError};

/// Why a CalDAV request failed.
#[derive(Debug)]
pub enum DavRefusal {
    /// No usable credentials: asks the client for them.
    Unauthorized(String),
    /// A method this path does not answer, with the ones it does.
    MethodNotAllowed {
        message: String,
        allow: &'static str,
    },
    /// Any status with a message.
    Status(StatusCode, String),
    /// A failed precondition: its XML element (`D:valid-sync-token`,
    /// `C:no-uid-conflict`, …) and why, for the log and the body.
    Precondition(StatusCode, &'static str, String),
    /// Too many requests at once: `503` with `Retry-After` (seconds).
    Busy { message: String, retry_after: u64 },
}

impl DavRefusal {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::Status(StatusCode::BAD_REQUEST, message.into())
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::Status(StatusCode::FORBIDDEN, message.into())
    }

    pub fn not_found(what: &str) -> Self {
        Self::Status(StatusCode::NOT_FOUND, format!("nothing at `{what}`"))
    }

    /// A body over `limit` bytes: `413`.
    pub fn body_too_large(limit: usize) -> Self {
        Self::Status(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request bodies of this method are limited to {limit} bytes"),
        )
    }

    pub fn precondition_failed(message: impl Into<String>) -> Self {
        Self::Status(StatusCode::PRECONDITION_FAILED, message.into())
    }
}

impl From<ApiError> for DavRefusal {
    fn from(error: ApiError) -> Self {
        let message = error.to_string();
        match error {
            // A client may not write a feed calendar: 403, as CalDAV has it.
            ApiError::ReadOnly(_) => Self::forbidden(message),
            other => {
                let status = RestError::from(other).into_response().status();
                Self::Status(status, message)
            }
        }
    }
}

impl IntoResponse for DavRefusal {
    fn into_response(self) -> Response {
        match self {
            DavRefusal::Unauthorized(message) => {
                let mut response = json(StatusCode::UNAUTHORIZED, message);
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(r#"Basic realm="Almanac CalDAV", charset="UTF-8""#),
                );
                response
            }
            DavRefusal::MethodNotAllowed { message, allow } => {
                let mut response = json(StatusCode::METHOD_NOT_ALLOWED, message);
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static(allow));
                response
            }
            DavRefusal::Status(status, message) => json(status, message),
            DavRefusal::Busy {
                message,
                retry_after,
            } => {
                let mut response = json(StatusCode::SERVICE_UNAVAILABLE, message);
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
                response
            }
            DavRefusal::Precondition(status, element, message) => {
                tracing::info!(%status, element, message, "CalDAV precondition failed");
                // The reason too, in the element SabreDAV servers use for
                // it, so a client (or its user) can see why.
                let message = quick_xml::escape::escape(message.as_str());
                let body = format!(
                    r#"<?xml version="1.0" encoding="utf-8"?><D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:s="http://sabredav.org/ns"><{element}/><s:message>{message}</s:message></D:error>"#
                );
                (
                    status,
                    [(header::CONTENT_TYPE, "application/xml; charset=utf-8")],
                    body,
                )
                    .into_response()
            }
        }
    }
}

fn json(status: StatusCode, message: String) -> Response {
    let body = ErrorBody {
        error: status.canonical_reason().unwrap_or("Error").to_string(),
        message,
    };
    (status, axum::Json(body)).into_response()
}
