//! Where token secrets are kept: a small trait, so the token logic can be unit
//! tested without a desktop session. The real implementations are the OS
//! keyring ([`super::KeyringSecretStore`]) and, on machines without one, a file
//! of SHA-256 hashes ([`super::HashFileStore`]); [`MemorySecretStore`] exists
//! for unit tests.

use uuid::Uuid;

use super::secret::{Secret, SecretHash};

/// Why the secret store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretStoreError {
    /// The store cannot be reached at all (no Secret Service on the bus, keyring
    /// locked, unsupported platform). Token checks are refused until it answers.
    #[error("the OS keyring is unavailable: {0}")]
    Unavailable(String),
    /// The store answered but the operation failed.
    #[error("the OS keyring refused the operation: {0}")]
    Failed(String),
}

/// Secrets keyed by token id. Implementations block (D-Bus round trips), so
/// async callers use `spawn_blocking`; token *checks* never come here.
pub trait SecretStore: Send + Sync {
    /// Succeeds when the store is reachable and usable.
    fn probe(&self) -> Result<(), SecretStoreError>;
    /// The SHA-256 of token `id`'s secret (all a check needs), or `None` when
    /// the store has none for it.
    fn hash(&self, id: Uuid) -> Result<Option<SecretHash>, SecretStoreError>;
    /// Stores (or replaces) the secret of token `id`. `label` is the human name
    /// keyring managers show for the entry.
    fn set(&self, id: Uuid, label: &str, secret: &Secret) -> Result<(), SecretStoreError>;
    /// Removes the secret of token `id`; removing a missing one succeeds.
    fn delete(&self, id: Uuid) -> Result<(), SecretStoreError>;
}

#[cfg(test)]
pub(crate) use memory::MemorySecretStore;

#[cfg(test)]
mod memory {
    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// An in-memory store for unit tests; `unavailable` simulates a keyring
    /// that cannot be reached (and can come up later).
    #[derive(Default)]
    pub(crate) struct MemorySecretStore {
        pub(crate) secrets: Mutex<HashMap<Uuid, Secret>>,
        pub(crate) unavailable: AtomicBool,
    }

    impl MemorySecretStore {
        fn check(&self) -> Result<(), SecretStoreError> {
            if self.unavailable.load(Ordering::SeqCst) {
                Err(SecretStoreError::Unavailable("simulated".into()))
            } else {
                Ok(())
            }
        }
    }

    impl SecretStore for MemorySecretStore {
        fn probe(&self) -> Result<(), SecretStoreError> {
            self.check()
        }
        fn hash(&self, id: Uuid) -> Result<Option<SecretHash>, SecretStoreError> {
            self.check()?;
            Ok(self.secrets.lock().unwrap().get(&id).map(Secret::hash))
        }
        fn set(&self, id: Uuid, _label: &str, secret: &Secret) -> Result<(), SecretStoreError> {
            self.check()?;
            self.secrets.lock().unwrap().insert(id, secret.clone());
            Ok(())
        }
        fn delete(&self, id: Uuid) -> Result<(), SecretStoreError> {
            self.check()?;
            self.secrets.lock().unwrap().remove(&id);
            Ok(())
        }
    }
}
