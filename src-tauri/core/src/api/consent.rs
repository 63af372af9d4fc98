//! Interactive access requests (`requestAccess`): a script asks for a token,
//! the user decides. The desktop shell shows a dialog; headless there is nobody
//! to ask, so [`DeclineAll`] declines (and says so in the log).

use serde::Serialize;

use crate::tokens::{Expiry, ScopeSet};

/// What a script asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessRequest {
    /// The name the token will get (already validated).
    pub name: String,
    /// Why the script wants access, in its own words, for the dialog.
    pub reason: String,
    pub scopes: ScopeSet,
}

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    /// Create the token, with the lifetime the user picked.
    Granted {
        expiry: Expiry,
    },
    Declined,
}

/// Asks the user about an [`AccessRequest`]. May block until they answer.
pub trait ConsentPrompt: Send + Sync {
    fn ask(&self, request: &AccessRequest) -> Consent;
}

/// The answer when no one can be asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclineAll;

impl ConsentPrompt for DeclineAll {
    fn ask(&self, request: &AccessRequest) -> Consent {
        tracing::info!(
            name = %request.name,
            "access request declined: no user interface to ask (headless mode)"
        );
        Consent::Declined
    }
}
