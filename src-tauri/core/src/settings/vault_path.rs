//! Which folders may become the vault when the setting is changed through
//! the API (a token, or the desktop UI).
//!
//! Almanac creates, rewrites and deletes notes under the vault, so pointing
//! it at `/`, at the home folder itself or at a system folder would put files
//! it never made within reach of every event write. The vault must be an
//! existing directory, and its canonical path (symlinks resolved) must not be:
//!
//! - `/`, the user's home folder, or a folder that only holds others
//!   ([`PARENTS_ONLY`]: `/home`, `/tmp`, `/mnt`, …) — their subfolders are fine;
//! - a system folder or anything inside one ([`SYSTEM_DIRS`]: `/etc`, `/usr`,
//!   `/var`, …), unless it lies inside the home folder (Fedora Silverblue
//!   keeps homes under `/var/home`).
//!
//! The settings file itself is not held to these rules when it is loaded:
//! what the user wrote there is theirs, and a vault that cannot be opened must
//! not stop the app from starting.

use std::path::{Path, PathBuf};

use super::SettingsError;

/// Folders refused as the vault themselves; their subfolders are allowed.
pub const PARENTS_ONLY: &[&str] = &["/", "/home", "/Users", "/tmp", "/mnt", "/media", "/Volumes"];

/// System folders: refused, and so is everything inside them.
pub const SYSTEM_DIRS: &[&str] = &[
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/boot",
    "/dev",
    "/proc",
    "/sys",
    "/var",
    "/run",
    "/opt",
    "/srv",
    "/root",
    "/snap",
    "/nix",
    "/System",
    "/Library",
    "/Applications",
    "/private",
];

/// Checks `path` as a new vault. The error names `vaultPath`.
pub fn check_vault_path(path: &Path) -> Result<(), SettingsError> {
    check_against(path, dirs::home_dir().as_deref())
}

fn check_against(path: &Path, home: Option<&Path>) -> Result<(), SettingsError> {
    let refuse = |reason: String| SettingsError::Invalid {
        key: "vaultPath".into(),
        reason,
    };
    let shown = path.display();
    if !path.is_absolute() {
        return Err(refuse(format!("`{shown}` is not an absolute path")));
    }
    let canonical = path
        .canonicalize()
        .map_err(|e| refuse(format!("`{shown}` cannot be opened: {e}")))?;
    if !canonical.is_dir() {
        return Err(refuse(format!("`{shown}` is not a directory")));
    }
    let home = home.and_then(|h| h.canonicalize().ok());
    if home.as_deref() == Some(canonical.as_path()) {
        return Err(refuse(format!(
            "`{shown}` is the home folder itself; pick a folder inside it"
        )));
    }
    if canonicals(PARENTS_ONLY).any(|dir| dir == canonical) {
        return Err(refuse(format!(
            "`{shown}` holds other folders; pick a folder inside it"
        )));
    }
    let in_home = home.is_some_and(|home| canonical.starts_with(home));
    if !in_home && let Some(dir) = canonicals(SYSTEM_DIRS).find(|dir| canonical.starts_with(dir)) {
        return Err(refuse(format!(
            "`{shown}` is inside the system folder `{}`",
            dir.display()
        )));
    }
    Ok(())
}

/// The listed folders that exist here, canonical (on macOS `/etc` is
/// `/private/etc`, so comparing canonical paths catches both spellings).
fn canonicals(dirs: &'static [&'static str]) -> impl Iterator<Item = PathBuf> {
    dirs.iter()
        .filter_map(|dir| Path::new(dir).canonicalize().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(path: &Path, home: &Path) -> String {
        check_against(path, Some(home)).unwrap_err().to_string()
    }

    #[test]
    fn system_and_parent_folders_are_refused() {
        let home = tempfile::tempdir().unwrap();
        for dir in ["/", "/etc", "/usr/share", "/var/lib", "/proc/self", "/tmp"] {
            let path = Path::new(dir);
            if path.exists() {
                let message = reason(path, home.path());
                assert!(message.contains("vaultPath"), "{dir}: {message}");
            }
        }
        assert!(reason(home.path(), home.path()).contains("home folder"));
    }

    #[test]
    fn a_vault_must_be_an_existing_absolute_directory() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("note.md");
        std::fs::write(&file, "x").unwrap();
        assert!(reason(&file, home.path()).contains("not a directory"));
        assert!(reason(&home.path().join("missing"), home.path()).contains("cannot be opened"));
        assert!(reason(Path::new("relative/vault"), home.path()).contains("absolute"));
        let vault = home.path().join("Notes");
        std::fs::create_dir(&vault).unwrap();
        check_against(&vault, Some(home.path())).unwrap();
    }

    #[test]
    fn a_symlink_is_judged_by_its_target() {
        let home = tempfile::tempdir().unwrap();
        let link = home.path().join("innocent");
        std::os::unix::fs::symlink("/etc", &link).unwrap();
        assert!(reason(&link, home.path()).contains("system folder"));
    }

    #[test]
    fn folders_inside_home_are_fine_even_under_a_system_folder() {
        // A home under /var (Fedora Silverblue): its vaults are allowed.
        let Some(var_dir) = ["/var/tmp", "/var"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.is_dir())
        else {
            return;
        };
        let home = tempfile::tempdir_in(var_dir);
        let Ok(home) = home else { return };
        let vault = home.path().join("Notes");
        std::fs::create_dir(&vault).unwrap();
        check_against(&vault, Some(home.path())).unwrap();
        assert!(check_against(&vault, None).is_err());
    }
}
