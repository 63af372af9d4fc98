//! Why a command failed, as an exit code a script can branch on.

use crate::api::ApiError;

/// The command line's exit codes (also in `--help` and docs/cli.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 1: anything else (a conflict, the vault unavailable, a disk error).
    Failed,
    /// 2: bad arguments, or a value Almanac refused as invalid.
    Usage,
    /// 3: no event with that id.
    NotFound,
    /// 4: no token, a refused token, a missing scope, or a token file others
    /// can read.
    NotAuthorized,
    /// 5: an instance runs but cannot be reached (its REST server is off, or
    /// it does not answer).
    Unreachable,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::NotFound => 3,
            Exit::NotAuthorized => 4,
            Exit::Unreachable => 5,
        }
    }
}

/// A failed command: its exit code and what to tell the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ClientError {
    pub exit: Exit,
    pub message: String,
}

impl ClientError {
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        Self {
            exit,
            message: message.into(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Exit::Usage, message)
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(Exit::Failed, message)
    }

    /// The exit a REST answer of `status` means.
    pub fn from_status(status: u16, message: impl Into<String>) -> Self {
        let exit = match status {
            400 | 413 | 422 => Exit::Usage,
            401 | 403 => Exit::NotAuthorized,
            404 => Exit::NotFound,
            _ => Exit::Failed,
        };
        Self::new(exit, message)
    }
}

impl From<ApiError> for ClientError {
    fn from(error: ApiError) -> Self {
        let exit = match &error {
            ApiError::MissingScope(_)
            | ApiError::SettingRefused(_)
            | ApiError::TokenNoLongerValid(_) => Exit::NotAuthorized,
            ApiError::NotFound(_) => Exit::NotFound,
            ApiError::BadRequest { .. }
            | ApiError::QueryTooLarge(_)
            | ApiError::ReadOnly(_)
            | ApiError::KeyReused(_) => Exit::Usage,
            ApiError::Conflict(_)
            | ApiError::UiUnavailable(_)
            | ApiError::VaultUnavailable(_)
            | ApiError::ChangesGone { .. }
            | ApiError::Internal(_) => Exit::Failed,
        };
        Self::new(exit, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Scope;

    #[test]
    fn statuses_and_api_errors_agree() {
        let pairs = [
            (ApiError::MissingScope(Scope::EventsWrite), 403),
            (ApiError::NotFound("x".into()), 404),
            (ApiError::bad_request("id", "x"), 400),
            (ApiError::Conflict("x".into()), 409),
        ];
        for (error, status) in pairs {
            assert_eq!(
                ClientError::from(error.clone()).exit,
                ClientError::from_status(status, "").exit,
                "{error:?}"
            );
        }
        assert_eq!(ClientError::from_status(404, "").exit.code(), 3);
    }
}
