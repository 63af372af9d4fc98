//! CalDAV passwords in the OS keyring: service `almanac-caldav`, user = the
//! source id. They are read when a request needs them and never written to
//! settings, logs or API answers.

use crate::tokens::{KeyringSecretStore, Secret, SecretStoreError};

/// The keyring "service" CalDAV passwords are filed under.
pub const SERVICE: &str = "almanac-caldav";

/// CalDAV passwords, by source id.
pub struct Passwords {
    keyring: KeyringSecretStore,
}

impl Default for Passwords {
    fn default() -> Self {
        Self {
            keyring: KeyringSecretStore::for_service(SERVICE),
        }
    }
}

impl Passwords {
    /// The password of source `source_id`, if one is stored.
    pub fn get(&self, source_id: &str) -> Result<Option<String>, SecretStoreError> {
        Ok(self
            .keyring
            .get_named(source_id)?
            .map(|secret| secret.expose().to_string()))
    }

    /// Stores (or replaces) the password of source `source_id`.
    pub fn set(&self, source_id: &str, password: &str) -> Result<(), SecretStoreError> {
        self.keyring.set_named(
            source_id,
            &format!("Almanac CalDAV calendar {source_id}"),
            &Secret::from_stored(password.to_string()),
        )
    }

    /// Forgets the password of source `source_id`.
    pub fn delete(&self, source_id: &str) -> Result<(), SecretStoreError> {
        self.keyring.delete_named(source_id)
    }
}
