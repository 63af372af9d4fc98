//! The secret store of a machine without an OS keyring (a headless server):
//! a file holding only each token's SHA-256, never a secret.
//!
//! A check needs nothing more than the hash, so tokens work as they do with a
//! keyring; what is lost is only what a keyring adds (encryption at rest under
//! the login password). The file is written atomically with mode 0600, and a
//! leaked copy still does not reveal a usable secret: SHA-256 of 256 random
//! bits cannot be reversed.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::secret::{Secret, SecretHash};
use super::secret_store::{SecretStore, SecretStoreError};
use crate::fsutil::atomic_write_private;

/// Token hashes in one JSON file: `{"version":1,"hashes":{"<id>":"<hex>"}}`.
pub struct HashFileStore {
    path: PathBuf,
    /// Serializes read-modify-write cycles within the process.
    writing: Mutex<()>,
}

#[derive(Default, Serialize, Deserialize)]
struct HashFile {
    version: u32,
    hashes: BTreeMap<Uuid, String>,
}

impl HashFileStore {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            writing: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn load(&self) -> Result<HashFile, SecretStoreError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| self.failed(format_args!("is not a token hash file: {e}"))),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(HashFile {
                version: 1,
                ..HashFile::default()
            }),
            Err(e) => Err(SecretStoreError::Unavailable(format!(
                "{}: {e}",
                self.path.display()
            ))),
        }
    }

    fn change(&self, edit: impl FnOnce(&mut HashFile)) -> Result<(), SecretStoreError> {
        let _writing = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.load()?;
        edit(&mut file);
        let json = serde_json::to_vec_pretty(&file).expect("a map of strings serializes");
        atomic_write_private(&self.path, &json).map_err(|e| self.failed(e))
    }

    fn failed(&self, why: impl std::fmt::Display) -> SecretStoreError {
        SecretStoreError::Failed(format!("{}: {why}", self.path.display()))
    }
}

impl SecretStore for HashFileStore {
    fn probe(&self) -> Result<(), SecretStoreError> {
        self.load().map(drop)
    }

    fn hash(&self, id: Uuid) -> Result<Option<SecretHash>, SecretStoreError> {
        let file = self.load()?;
        let Some(hex) = file.hashes.get(&id) else {
            return Ok(None);
        };
        from_hex(hex)
            .map(|bytes| Some(SecretHash(bytes)))
            .ok_or_else(|| self.failed(format_args!("the hash of token {id} is malformed")))
    }

    fn set(&self, id: Uuid, _label: &str, secret: &Secret) -> Result<(), SecretStoreError> {
        let hex = to_hex(&secret.hash().0);
        self.change(|file| {
            file.hashes.insert(id, hex);
        })
    }

    fn delete(&self, id: Uuid) -> Result<(), SecretStoreError> {
        self.change(|file| {
            file.hashes.remove(&id);
        })
    }
}

fn to_hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut bytes = [0u8; 32];
    for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn keeps_only_the_hash_in_a_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = HashFileStore::new(dir.path().join("token-hashes.json"));
        store.probe().expect("a missing file is an empty store");
        let (id, secret) = (Uuid::new_v4(), Secret::generate());
        store.set(id, "label", &secret).unwrap();

        let written = std::fs::read_to_string(store.path()).unwrap();
        assert!(!written.contains(secret.expose()), "{written}");
        assert!(written.contains(&to_hex(&secret.hash().0)));
        let mode = std::fs::metadata(store.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);

        // A second store over the same file (the next start) finds it.
        let reopened = HashFileStore::new(store.path());
        assert!(reopened.hash(id).unwrap() == Some(secret.hash()));
        reopened.delete(id).unwrap();
        assert!(store.hash(id).unwrap().is_none());
    }

    #[test]
    fn a_damaged_file_is_an_error_not_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token-hashes.json");
        std::fs::write(&path, "not json").unwrap();
        let store = HashFileStore::new(&path);
        assert!(matches!(store.probe(), Err(SecretStoreError::Failed(_))));
        let id = Uuid::new_v4();
        std::fs::write(
            &path,
            format!(r#"{{"version":1,"hashes":{{"{id}":"zz"}}}}"#),
        )
        .unwrap();
        assert!(store.hash(id).is_err());
        assert!(
            store.set(id, "x", &Secret::generate()).is_ok() && store.hash(id).unwrap().is_some()
        );
    }
}
