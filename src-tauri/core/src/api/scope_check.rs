//! A scope check on its own, for callers that read something the
//! [`AuthorizedApi`] does not serve itself (the MCP server's upcoming
//! reminders come from the reminder set the core keeps), and the user's
//! confirmation of a destructive write.

use super::authorized::AuthorizedApi;
use super::consent::WriteConfirmation;
use super::error::ApiError;
use crate::tokens::Scope;

impl AuthorizedApi {
    /// The token is still valid and grants `scope` (the same check every
    /// API call makes first).
    pub fn require_scope(&self, scope: Scope) -> Result<(), ApiError> {
        self.require(scope).map(|_| ())
    }

    /// Asks the user, through the app's consent dialog, whether `action`
    /// (a destructive write this token wants to make) may go ahead; `None`
    /// when there is nobody to ask (headless) or the dialogs are rate-limited.
    /// Blocks until the user answers: call it off the async workers.
    pub fn confirm_write(&self, action: &str) -> Option<bool> {
        let confirmation = WriteConfirmation {
            token_name: self.grant.token_name.to_string(),
            action: action.to_string(),
        };
        self.plugin.confirm_write(&confirmation)
    }
}
