//! Personal access tokens (PATs): scopes, secrets, metadata and the one token
//! check every entry point uses.
//!
//! - the ten scopes of the contract and what each grants are
//!   [`crate::scopes`], re-exported here: they lie below the settings,
//!   which check against them, while the token store lies above the
//!   settings (it announces on the event bus, which carries them).
//! - [`secret`]: `ofc_pat_…` secrets, generated from a CSPRNG, never printed.
//! - [`record`]: what is stored about a token (no secret material).
//! - [`secret_store`] / [`keyring_store`]: where secrets live (the OS keyring).
//! - [`hash_file_store`]: only the secrets' hashes, for machines without one.
//! - [`backend`]: which of the two an instance uses.
//! - [`store`]: [`TokenStore`] — create, check, revoke, list.
//! - [`check`]: the outcome of a check; everything but `Valid` means "no access".
//! - [`last_used`]: the background task that writes last-used times in batches.
//! - [`keyring_retry`]: the background task that retries an unavailable keyring.
//! - [`expiry`]: the background task that announces a token reaching its expiry.

pub mod backend;
pub mod check;
pub mod expiry;
mod file;
pub mod hash_file_store;
pub mod keyring_retry;
pub mod keyring_store;
pub mod last_used;
pub mod record;
pub mod secret;
pub mod secret_store;
pub mod store;

use std::path::PathBuf;

use uuid::Uuid;

pub use crate::scopes::{SCOPES, Scope, ScopeInfo, ScopeSet, UnknownScope};
pub use backend::{SecretBackend, SecretsInUse};
pub use check::{Grant, MISSING_AUTHORIZATION, REFUSED_TOKEN, TokenCheck};
pub use expiry::spawn_expiry_announcer;
pub use hash_file_store::HashFileStore;
pub use keyring_retry::spawn_keyring_retry;
pub use keyring_store::KeyringSecretStore;
pub use last_used::{DEFAULT_DEBOUNCE, spawn_last_used_writer};
pub use record::{Expiry, TokenInfo, TokenRecord, TokenStatus};
pub use secret::{SECRET_PREFIX, Secret};
pub use secret_store::{SecretStore, SecretStoreError};
pub use store::{CreatedToken, KeyringStatus, NewToken, TokenStore};

/// Why a token operation was refused. Token *checks* do not fail; they return
/// a [`TokenCheck`].
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("invalid token name: {0}")]
    InvalidName(String),
    #[error("a token needs at least one scope")]
    NoScopes,
    #[error("no token with id {0}")]
    NotFound(Uuid),
    #[error("tokens are unavailable because the OS keyring is: {0}")]
    KeyringUnavailable(String),
    #[error(transparent)]
    Keyring(SecretStoreError),
    #[error("could not access token metadata at {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests;
