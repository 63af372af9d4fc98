//! The outcome of presenting a secret.
//!
//! Callers outside the token layer (the in-process API's `with_token`, the REST
//! server's bearer check) treat everything but [`TokenCheck::Valid`] the same:
//! no API object, 403. The variants stay distinct so logs and diagnostics can
//! say *why*, naming the token but never its secret; the caller only ever sees
//! [`REFUSED_TOKEN`], so someone probing secrets learns nothing about which
//! tokens exist, expired or were revoked.

use std::sync::Arc;

use uuid::Uuid;

use crate::scopes::ScopeSet;

/// What every caller presenting a token that is not accepted is told
/// (invalid, expired, revoked, or the keyring is down). The Full Calendar
/// plugin's own local server answers its `403` with this text, so clients
/// written against it see the same.
pub const REFUSED_TOKEN: &str = "Invalid or expired API token.";

/// What a caller without a usable `Authorization` header is told (`401`), in
/// the Full Calendar plugin's words.
pub const MISSING_AUTHORIZATION: &str =
    "Missing or invalid Authorization header. Must be Bearer token.";

/// What a presented secret turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCheck {
    /// A live token: the caller may act with these scopes.
    Valid(Grant),
    /// No token has this secret.
    Invalid,
    /// The token exists but its lifetime is over.
    Expired { id: Uuid, name: Arc<str> },
    /// The token was revoked in settings.
    Revoked { id: Uuid, name: Arc<str> },
    /// Tokens could not be loaded from the OS keyring, so nothing is accepted.
    KeyringUnavailable { reason: Arc<str> },
}

impl TokenCheck {
    /// The grant, if the token may be used.
    pub fn grant(self) -> Option<Grant> {
        match self {
            TokenCheck::Valid(grant) => Some(grant),
            _ => None,
        }
    }

    /// A short machine-friendly name of the outcome, for log fields.
    pub fn kind(&self) -> &'static str {
        match self {
            TokenCheck::Valid(_) => "valid",
            TokenCheck::Invalid => "invalid",
            TokenCheck::Expired { .. } => "expired",
            TokenCheck::Revoked { .. } => "revoked",
            TokenCheck::KeyringUnavailable { .. } => "keyring-unavailable",
        }
    }
}

/// Who is acting, and with which scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub token_id: Uuid,
    pub token_name: Arc<str>,
    pub scopes: ScopeSet,
}
