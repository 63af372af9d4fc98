//! Owner-only folders and files under Almanac's config and data folders.
//!
//! The ICS cache, the CalDAV copy and queue, settings, token metadata and
//! the reminder database hold private URLs, calendars, names and reminders;
//! on a shared machine nobody else may read them. Unix modes say so; on
//! Windows the folders live in the user's profile, whose ACL already admits
//! only the user, so there is nothing to do.

use std::io;
use std::path::Path;

/// The mode of every file in Almanac's own folders.
pub const PRIVATE_FILE: u32 = 0o600;
/// The mode of every folder of Almanac's own.
pub const PRIVATE_DIR: u32 = 0o700;

/// Creates `dir` (and its missing parents) 0700, or narrows it to 0700 if
/// it exists.
#[cfg(unix)]
pub fn create(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(PRIVATE_DIR).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => narrow(dir),
        Err(e) => Err(e),
    }
}

/// Narrows `root` and everything under it (folders 0700, files 0600),
/// except the paths in `skip` and what is under them; symlinks are left
/// alone (never chmod through one).
#[cfg(unix)]
pub fn tighten(root: &Path, skip: &[&Path]) -> io::Result<()> {
    if skip.contains(&root) {
        return Ok(());
    }
    let metadata = match std::fs::symlink_metadata(root) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if metadata.is_dir() {
        narrow(root)?;
        for entry in std::fs::read_dir(root)? {
            tighten(&entry?.path(), skip)?;
        }
    } else if metadata.is_file() {
        narrow(root)?;
    }
    Ok(())
}

/// `path` narrowed: a folder to 0700, a file to 0600; anything else (a
/// symlink) is left as it is.
#[cfg(unix)]
fn narrow(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = std::fs::symlink_metadata(path)?;
    let wanted = if metadata.is_dir() {
        PRIVATE_DIR
    } else if metadata.is_file() {
        PRIVATE_FILE
    } else {
        // A symlink (a dotfiles manager linking the config folder, say):
        // never chmod through it; what it points to is the user's business.
        return Ok(());
    };
    if metadata.permissions().mode() & 0o777 != wanted {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(wanted))?;
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn create(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(not(unix))]
pub fn tighten(_root: &Path, _skip: &[&Path]) -> io::Result<()> {
    Ok(())
}
