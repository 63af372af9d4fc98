//! The OS keyring as a [`SecretStore`], through the keyring ecosystem's
//! `keyring-core` API.
//!
//! On Linux and the BSDs the store is the Secret Service (gnome-keyring,
//! KWallet…) reached over D-Bus by the pure-Rust zbus client. Each secret is one
//! keyring item: service `almanac-pat`, user = the token's id, labelled with the
//! token's name so keyring managers show something meaningful.
//!
//! The connection is made on first use and dropped after a platform failure, so
//! a keyring that starts late or restarts is picked up by the next operation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use keyring_core::{CredentialStore, Entry, Error};
use uuid::Uuid;

use super::secret::Secret;
use super::secret_store::{SecretStore, SecretStoreError};

/// The keyring "service" all of Almanac's token secrets are filed under.
const SERVICE: &str = "almanac-pat";

/// Token secrets in the OS keyring.
#[derive(Default)]
pub struct KeyringSecretStore {
    connection: Mutex<Option<Arc<CredentialStore>>>,
}

impl KeyringSecretStore {
    /// A store that connects to the OS keyring when first used.
    pub fn new() -> Self {
        Self::default()
    }

    fn entry(&self, id: Uuid, label: Option<&str>) -> Result<Entry, SecretStoreError> {
        let store = self.connect()?;
        let user = id.to_string();
        let modifiers = label.map(|label| HashMap::from([("label", label)]));
        store
            .build(SERVICE, &user, modifiers.as_ref())
            .map_err(|e| self.classify(e))
    }

    fn connect(&self) -> Result<Arc<CredentialStore>, SecretStoreError> {
        let mut connection = self.connection.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(store) = connection.as_ref() {
            return Ok(store.clone());
        }
        let store = platform_store()?;
        *connection = Some(store.clone());
        Ok(store)
    }

    /// Maps a keyring error to ours; a platform failure also drops the
    /// connection so the next call reconnects.
    fn classify(&self, error: Error) -> SecretStoreError {
        match error {
            Error::PlatformFailure(_) | Error::NoStorageAccess(_) | Error::NoDefaultStore => {
                *self.connection.lock().unwrap_or_else(|p| p.into_inner()) = None;
                SecretStoreError::Unavailable(error.to_string())
            }
            other => SecretStoreError::Failed(other.to_string()),
        }
    }
}

#[cfg(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
))]
fn platform_store() -> Result<Arc<CredentialStore>, SecretStoreError> {
    let store = zbus_secret_service_keyring_store::Store::new()
        .map_err(|e| SecretStoreError::Unavailable(e.to_string()))?;
    Ok(store)
}

#[cfg(not(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
)))]
fn platform_store() -> Result<Arc<CredentialStore>, SecretStoreError> {
    Err(SecretStoreError::Unavailable(
        "Almanac has no keyring support for this platform yet".to_string(),
    ))
}

impl SecretStore for KeyringSecretStore {
    fn probe(&self) -> Result<(), SecretStoreError> {
        // Reading an id that cannot exist proves the service answers and is
        // unlocked, without creating anything.
        self.get(Uuid::nil()).map(drop)
    }

    fn get(&self, id: Uuid) -> Result<Option<Secret>, SecretStoreError> {
        match self.entry(id, None)?.get_password() {
            Ok(value) => Ok(Some(Secret::from_stored(value))),
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(self.classify(e)),
        }
    }

    fn set(&self, id: Uuid, label: &str, secret: &Secret) -> Result<(), SecretStoreError> {
        self.entry(id, Some(label))?
            .set_password(secret.expose())
            .map_err(|e| self.classify(e))
    }

    fn delete(&self, id: Uuid) -> Result<(), SecretStoreError> {
        match self.entry(id, None)?.delete_credential() {
            Ok(()) | Err(Error::NoEntry) => Ok(()),
            Err(e) => Err(self.classify(e)),
        }
    }
}
