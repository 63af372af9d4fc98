//! The calendar engine's one error type.
//!
//! Each variant maps to one HTTP status in the REST layer (see
//! [`CalendarError::code`]): client mistakes are 400, unknown ids 404, a
//! duplicate note 409, and only real I/O failures are server errors.

use std::path::PathBuf;

/// Why a calendar operation was refused or failed. Nothing is changed on disk
/// or in the cache when an operation returns an error.
#[derive(Debug, thiserror::Error)]
pub enum CalendarError {
    /// No event (or calendar) with this id exists. → 404
    #[error("no event with id `{0}`")]
    NotFound(String),
    /// The event belongs to a read-only (ICS) calendar. → 400
    #[error("calendar `{0}` is read-only")]
    ReadOnly(String),
    /// A field of the request is missing, malformed or inconsistent. → 400
    #[error("invalid `{field}`: {reason}")]
    InvalidInput { field: String, reason: String },
    /// The note a create or move would write already exists. → 409
    #[error("{0}")]
    Conflict(String),
    /// A query would cost more than its ceiling (see [`super::query`]); the
    /// message names the limit. → 400
    #[error("{0}")]
    QueryTooLarge(String),
    /// An id or title would read or write outside the vault. → 400
    #[error("`{0}` points outside the vault")]
    PathEscape(String),
    /// The vault cannot be used right now (see
    /// [`VaultStatus`](super::status::VaultStatus)). → 503
    #[error("the vault is unavailable: {0}")]
    VaultUnavailable(String),
    /// The file system failed. → 500
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl CalendarError {
    /// A short, stable identifier for the REST error body's `error` field.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "not_found",
            Self::ReadOnly(_) => "read_only",
            Self::InvalidInput { .. } => "invalid_input",
            Self::Conflict(_) => "conflict",
            Self::QueryTooLarge(_) => "query_too_large",
            Self::PathEscape(_) => "path_escape",
            Self::VaultUnavailable(_) => "vault_unavailable",
            Self::Io { .. } => "io_error",
        }
    }

    /// Builds an [`CalendarError::InvalidInput`].
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidInput {
            field: field.into(),
            reason: reason.into(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
