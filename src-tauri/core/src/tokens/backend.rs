//! Which store keeps an instance's token secrets: the OS keyring, or — on a
//! machine that has none — a file of their SHA-256 hashes.
//!
//! The hash file is used once it exists, and it comes into being only when a
//! token is minted while no keyring answers (`almanac token create` on a
//! headless server). A keyring that is merely late or locked at start is not
//! replaced: with no hash file the instance waits for it as before (see
//! [`super::keyring_retry`]), so tokens minted into a keyring never silently
//! move out of it.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use super::hash_file_store::HashFileStore;
use super::keyring_store::KeyringSecretStore;
use super::secret_store::{SecretStore, SecretStoreError};
use crate::paths::Paths;

/// Where token secrets live, as `/doctor` and the log report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "store", rename_all = "camelCase")]
pub enum SecretBackend {
    /// Secret Service, Keychain or Credential Manager.
    OsKeyring,
    /// Only each token's SHA-256, in a 0600 file.
    #[serde(rename_all = "camelCase")]
    HashFile { path: PathBuf },
}

/// The chosen store and what it is.
pub struct SecretsInUse {
    pub store: Arc<dyn SecretStore>,
    pub backend: SecretBackend,
}

impl SecretsInUse {
    /// The store an instance at `paths` starts with: its hash file if it has
    /// one, the OS keyring otherwise.
    pub fn at_start(paths: &Paths) -> Self {
        let file = paths.token_hashes_file();
        if file.exists() {
            tracing::warn!(
                file = %file.display(),
                "no OS keyring in use: token secrets are not stored; only their SHA-256 is, in this file (mode 0600)"
            );
            Self::hash_file(file)
        } else {
            Self {
                store: Arc::new(KeyringSecretStore::new()),
                backend: SecretBackend::OsKeyring,
            }
        }
    }

    /// The store a new token goes to: as [`SecretsInUse::at_start`], except
    /// that with no hash file and no keyring answering, the hash file is
    /// started (`fallback_reason` says why). Blocks on the keyring.
    pub fn for_minting(paths: &Paths) -> (Self, Option<SecretStoreError>) {
        let chosen = Self::at_start(paths);
        if chosen.backend != SecretBackend::OsKeyring {
            return (chosen, None);
        }
        match chosen.store.probe() {
            Err(unavailable @ SecretStoreError::Unavailable(_)) => {
                tracing::warn!(reason = %unavailable,
                    file = %paths.token_hashes_file().display(),
                    "no OS keyring answers: keeping only token SHA-256 hashes in a 0600 file");
                (
                    Self::hash_file(paths.token_hashes_file()),
                    Some(unavailable),
                )
            }
            _ => (chosen, None),
        }
    }

    fn hash_file(path: PathBuf) -> Self {
        Self {
            store: Arc::new(HashFileStore::new(&path)),
            backend: SecretBackend::HashFile { path },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_hash_file_is_used_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        assert_eq!(
            SecretsInUse::at_start(&paths).backend,
            SecretBackend::OsKeyring
        );
        std::fs::create_dir_all(paths.data_dir()).unwrap();
        std::fs::write(paths.token_hashes_file(), r#"{"version":1,"hashes":{}}"#).unwrap();
        let chosen = SecretsInUse::at_start(&paths);
        let backend = serde_json::to_value(&chosen.backend).unwrap();
        assert_eq!(backend["store"], "hashFile");
        assert_eq!(
            backend["path"],
            paths.token_hashes_file().display().to_string()
        );
        chosen.store.probe().unwrap();
    }
}
