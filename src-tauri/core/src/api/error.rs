//! The in-process API's one error type. Each variant's comment names the
//! REST status it becomes; `loopback_server::error` holds that mapping and the error
//! body's `error` field (the status's reason phrase).

use crate::calendar::CalendarError;
use crate::settings::SettingsError;
use crate::settings::class::Refusal;
use crate::tokens::{REFUSED_TOKEN, Scope};

/// Why an API call was refused or failed. A refused call changed nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// The token does not carry the scope this operation requires. → 403
    #[error("this token lacks the `{0}` scope")]
    MissingScope(Scope),
    /// The token may not change this setting (see [`crate::settings::class`]).
    /// → 403
    #[error("{0}")]
    SettingRefused(Refusal),
    /// The token was revoked or expired after this API object was issued;
    /// the field is why, for the log (callers see [`REFUSED_TOKEN`]). → 403
    #[error("{}", REFUSED_TOKEN)]
    TokenNoLongerValid(&'static str),
    /// No such event. → 404
    #[error("{0}")]
    NotFound(String),
    /// A field of the request is missing, malformed or inconsistent. → 400
    #[error("invalid `{field}`: {reason}")]
    BadRequest { field: String, reason: String },
    /// The query would cost more than its ceiling; the message names the
    /// limit. → 400
    #[error("{0}")]
    QueryTooLarge(String),
    /// The event belongs to a read-only calendar. → 400
    #[error("calendar `{0}` is read-only")]
    ReadOnly(String),
    /// The change would overwrite something that exists. → 409
    #[error("{0}")]
    Conflict(String),
    /// An idempotency key sent again with a different request
    /// ([`super::idempotency`]). → 422
    #[error("{0}")]
    KeyReused(String),
    /// No user interface is attached (headless mode) or it cannot do this. → 503
    #[error("the calendar UI is unavailable: {0}")]
    UiUnavailable(String),
    /// The vault cannot be used right now; `GET /calendars` says why. → 503
    #[error("{0}")]
    VaultUnavailable(String),
    /// A change-feed cursor older than the kept history, or from before a
    /// restart (ids start again with each run). → 410
    #[error(
        "the change feed no longer holds what followed that id (it keeps the last {} \
         entries, and starts again at each start of Almanac): read from {current}",
        crate::changes::HISTORY
    )]
    ChangesGone { current: u64 },
    /// An unexpected failure (disk, keyring). → 500
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    pub fn bad_request(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::BadRequest {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl From<CalendarError> for ApiError {
    fn from(error: CalendarError) -> Self {
        match error {
            CalendarError::NotFound(_) => Self::NotFound(error.to_string()),
            CalendarError::ReadOnly(calendar) => Self::ReadOnly(calendar),
            CalendarError::InvalidInput { field, reason } => Self::BadRequest { field, reason },
            CalendarError::Conflict(message) => Self::Conflict(message),
            CalendarError::QueryTooLarge(message) => Self::QueryTooLarge(message),
            CalendarError::PathEscape(_) => Self::bad_request("id", error.to_string()),
            CalendarError::VaultUnavailable(_) => Self::VaultUnavailable(error.to_string()),
            CalendarError::Io { .. } => Self::Internal(error.to_string()),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        Self::SettingRefused(refusal)
    }
}

impl From<SettingsError> for ApiError {
    fn from(error: SettingsError) -> Self {
        match error {
            SettingsError::NotAnObject => Self::bad_request("settings", error.to_string()),
            SettingsError::UnknownKey(key) => Self::bad_request(key, "unknown setting"),
            SettingsError::Invalid { key, reason } => Self::BadRequest { field: key, reason },
            SettingsError::Refused(refusal) => Self::SettingRefused(refusal),
            SettingsError::Io { .. } => Self::Internal(error.to_string()),
        }
    }
}
