//! Confining every path the engine reads or writes to the vault.
//!
//! Ids carry vault-relative paths, so every id a client sends is checked
//! twice: lexically (no empty, absolute, `..`, `.`, hidden, NUL or backslash
//! components) and on disk (the canonical path, symlinks resolved, must stay
//! under the canonical vault root).

use std::path::{Component, Path, PathBuf};

use almanac_model::error::CalendarError;

/// Obsidian's trash folder at the vault's root.
pub const TRASH: &str = ".trash";

/// The vault root, canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vault {
    root: PathBuf,
}

impl Vault {
    /// Creates the vault folder if needed and canonicalizes it.
    pub fn open(path: &Path) -> Result<Vault, CalendarError> {
        // `create_dir_all` would only say "File exists" about a file here.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) {
            let not_a_folder = std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "this is a file, not a folder",
            );
            return Err(CalendarError::io(path, not_a_folder));
        }
        std::fs::create_dir_all(path).map_err(|e| CalendarError::io(path, e))?;
        let root = path
            .canonicalize()
            .map_err(|e| CalendarError::io(path, e))?;
        Ok(Vault { root })
    }

    /// The vault of a path that could not be opened: its root as configured.
    /// Nothing is read from or written to it (the engine checks first).
    pub fn unopened(path: &Path) -> Vault {
        Vault {
            root: path.to_path_buf(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` as a vault-relative `/`-separated path, if it is inside.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rel
            .components()
            .map(|c| match c {
                Component::Normal(p) => p.to_str(),
                _ => None,
            })
            .collect();
        Some(parts?.join("/"))
    }

    /// The absolute path of a vault-relative path, checked lexically. The
    /// one hidden folder allowed is [`TRASH`] as the first component:
    /// a note deleted from a phone is kept there, as Obsidian keeps its
    /// own, and an undo brings it back. It is never scanned, so no id of an
    /// event names a note in it.
    pub fn join(&self, rel: &str) -> Result<PathBuf, CalendarError> {
        let escape = || CalendarError::PathEscape(rel.replace('\0', "\\0"));
        if rel.is_empty() || rel.contains(['\0', '\\']) || rel.starts_with('/') {
            return Err(escape());
        }
        let path = Path::new(rel);
        for (index, component) in path.components().enumerate() {
            match component {
                Component::Normal(part) if !part.to_string_lossy().starts_with('.') => {}
                Component::Normal(part) if index == 0 && part == TRASH => {}
                _ => return Err(escape()),
            }
        }
        Ok(self.root.join(path))
    }

    /// Like [`Vault::join`], and the file must exist and resolve (through
    /// any symlinks) to a place inside the vault.
    pub fn existing(&self, rel: &str) -> Result<PathBuf, CalendarError> {
        let path = self.join(rel)?;
        let real = path.canonicalize().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CalendarError::NotFound(rel.to_string()),
            _ => CalendarError::io(&path, e),
        })?;
        if !real.starts_with(&self.root) {
            return Err(CalendarError::PathEscape(rel.to_string()));
        }
        Ok(path)
    }

    /// Creates the note `rel` with `contents`, and the folders it needs;
    /// never replaces anything (`Conflict`), and every folder must be a real
    /// folder inside the vault, not a symlink (`PathEscape`). On Unix the
    /// folders are opened one by one relative to their parent's handle, so
    /// swapping one for a symlink meanwhile cannot redirect the write (see
    /// [`super::vault_folder`]).
    pub fn create_new(&self, rel: &str, contents: &[u8]) -> Result<(), CalendarError> {
        let conflict = || CalendarError::Conflict(format!("a note named `{rel}` already exists"));
        #[cfg(unix)]
        {
            let path = self.join(rel)?;
            use super::vault_folder::{CreateError, VaultFolder};
            let rel_path = Path::new(rel);
            let (Some(name), Some(parent)) = (rel_path.file_name(), rel_path.parent()) else {
                return Err(CalendarError::PathEscape(rel.to_string()));
            };
            let folders: Vec<_> = parent.iter().collect();
            VaultFolder::open(&self.root, &folders)
                .and_then(|folder| folder.create_new(name, contents))
                .map_err(|e| match e {
                    CreateError::NotAFolder => CalendarError::PathEscape(rel.to_string()),
                    CreateError::Exists => conflict(),
                    CreateError::Io(e) => CalendarError::io(&path, e),
                })
        }
        #[cfg(not(unix))]
        {
            let path = self.new_file(rel)?;
            crate::fsutil::atomic_create_new(&path, contents).map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => conflict(),
                _ => CalendarError::io(&path, e),
            })
        }
    }

    /// Like [`Vault::join`] for a file to be created: its folder is created
    /// if needed and must resolve to a place inside the vault. (Checked, then
    /// written: used only where folder handles are not available.)
    #[cfg(not(unix))]
    pub fn new_file(&self, rel: &str) -> Result<PathBuf, CalendarError> {
        let path = self.join(rel)?;
        let parent = path.parent().unwrap_or(&self.root);
        // Check the deepest existing ancestor before creating anything, so a
        // symlinked folder cannot make us create folders outside the vault.
        let mut ancestor = parent;
        while !ancestor.exists() {
            ancestor = ancestor.parent().unwrap_or(&self.root);
        }
        for dir in [ancestor, parent] {
            if dir == parent {
                std::fs::create_dir_all(parent).map_err(|e| CalendarError::io(parent, e))?;
            }
            let real = dir.canonicalize().map_err(|e| CalendarError::io(dir, e))?;
            if !real.starts_with(&self.root) {
                return Err(CalendarError::PathEscape(rel.to_string()));
            }
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(CalendarError::PathEscape(rel.to_string()));
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        for bad in [
            "",
            "../x.md",
            "a/../../x.md",
            "/etc/passwd",
            "a\0b.md",
            "a\\..\\b.md",
            "./a.md",
            ".obsidian/x.md",
            "events/.trash/x.md",
            ".trash/../x.md",
            ".trash/.obsidian/x.md",
        ] {
            assert!(
                matches!(vault.join(bad), Err(CalendarError::PathEscape(_))),
                "{bad:?}"
            );
        }
        assert!(vault.join("events/2024-01-01 A.md").is_ok());
        // Obsidian's trash at the root, where a note deleted from a phone goes.
        assert!(vault.join(".trash/events/2024-01-01 A.md").is_ok());
    }
}
