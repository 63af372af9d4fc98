//! The hooks, in `webhooks.json` in the data folder (mode 0600, written
//! atomically). Not in the settings: no token can reach this file through
//! the API, so only the user (the settings window) sets a hook.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::hook::Hook;
use crate::fsutil::atomic_write_private;

/// The file's shape; `version` lets a later release change it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    version: u32,
    hooks: Vec<Hook>,
}

const VERSION: u32 = 1;

/// The hooks and the file they live in.
#[derive(Debug)]
pub struct HookStore {
    path: PathBuf,
    hooks: Vec<Hook>,
}

impl HookStore {
    /// The hooks in `path` (none when it does not exist). A file that cannot
    /// be read is an error, and is left as it is.
    pub fn open(path: &Path) -> Result<Self, String> {
        let hooks = match std::fs::read(path) {
            Ok(bytes) => {
                let file: File = serde_json::from_slice(&bytes)
                    .map_err(|e| format!("{} cannot be read: {e}", path.display()))?;
                if file.version != VERSION {
                    return Err(format!(
                        "{} is of version {}, this Almanac reads version {VERSION}",
                        path.display(),
                        file.version
                    ));
                }
                file.hooks
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("{} cannot be read: {e}", path.display())),
        };
        Ok(Self {
            path: path.to_path_buf(),
            hooks,
        })
    }

    /// No hooks, kept in `path` (a file that could not be read is never
    /// written over: see [`super::Webhooks::open`]).
    pub(super) fn empty(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            hooks: Vec::new(),
        }
    }

    pub fn hooks(&self) -> &[Hook] {
        &self.hooks
    }

    pub fn get(&self, id: Uuid) -> Option<&Hook> {
        self.hooks.iter().find(|h| h.id == id)
    }

    /// Applies `change` and writes the file; on a failed write the hooks in
    /// memory stay as they were, so memory and file agree.
    pub fn update<T>(&mut self, change: impl FnOnce(&mut Vec<Hook>) -> T) -> io::Result<T> {
        let mut hooks = self.hooks.clone();
        let answer = change(&mut hooks);
        let file = File {
            version: VERSION,
            hooks,
        };
        let text = serde_json::to_vec_pretty(&file).map_err(io::Error::other)?;
        atomic_write_private(&self.path, &text)?;
        self.hooks = file.hooks;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhooks::hook::NewHook;

    fn hook() -> Hook {
        NewHook {
            url: "http://127.0.0.1:1/".into(),
            events: vec!["event.created".into()],
        }
        .validated(chrono::Utc::now())
        .unwrap()
    }

    #[test]
    fn hooks_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("webhooks.json");
        let mut store = HookStore::open(&path).unwrap();
        let made = hook();
        store.update(|hooks| hooks.push(made.clone())).unwrap();
        let again = HookStore::open(&path).unwrap();
        assert_eq!(again.hooks(), [made]);
    }

    #[test]
    fn a_damaged_file_is_an_error_and_stays_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("webhooks.json");
        std::fs::write(&path, "{not json").unwrap();
        let error = HookStore::open(&path).unwrap_err();
        assert!(error.contains("cannot be read"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
    }
}
