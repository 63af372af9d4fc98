//! Crash-safe file writes.
//!
//! A reader (or a restart after `kill -9`) sees either the old file or the new
//! one, never a half-written mix: the bytes go to a temporary file in the same
//! directory, are fsynced, renamed over the target, and the directory is fsynced
//! so the rename itself is durable.
//!
//! The temporary file gets a random name and is created exclusively
//! (`O_CREAT | O_EXCL | O_NOFOLLOW`): in a synced or shared vault someone else
//! may write into the folder, and a symlink planted at a name we would use must
//! make the create fail (and retry under another name), never redirect our
//! bytes to wherever it points. The final step is a rename, which replaces the
//! directory entry itself and so never writes through a symlink either.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use tempfile::NamedTempFile;

use almanac_loopback::private_dir;

/// Atomically replaces (or creates) `path` with `contents`. A file that
/// exists keeps its permission bits exactly, and its owner and group where
/// this process may set them: an edit never widens who can read a note (a
/// 0600 note stays 0600), however the umask is set.
pub fn atomic_write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
    fs::create_dir_all(dir)?;
    let existing = fs::symlink_metadata(path).ok().filter(|m| m.is_file());
    // Staged no wider than the file it replaces, from its first byte.
    let mode = existing.as_ref().map_or(DEFAULT_MODE, kept_mode);
    let staged = staged(path, contents, mode)?;
    if let Some(existing) = &existing {
        keep_owner_and_mode(staged.as_file(), existing)?;
    }
    staged.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

#[cfg(unix)]
fn kept_mode(existing: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    existing.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn kept_mode(_existing: &fs::Metadata) -> u32 {
    DEFAULT_MODE
}

/// Gives the staged file the owner, group and mode of the one it replaces.
/// Only root may give a file to another user, and only a member of a group
/// may give it that group: what this process may not set stays its own
/// (never wider: the mode is the old file's). The mode is set last, since a
/// change of owner clears the set-id bits.
#[cfg(unix)]
fn keep_owner_and_mode(staged: &fs::File, existing: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
    let ours = staged.metadata()?;
    if ours.uid() != existing.uid() || ours.gid() != existing.gid() {
        let owner_and_group = fchown(staged, Some(existing.uid()), Some(existing.gid()));
        if owner_and_group.is_err() {
            let _ = fchown(staged, None, Some(existing.gid()));
        }
    }
    staged.set_permissions(fs::Permissions::from_mode(kept_mode(existing)))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(_staged: &fs::File, _existing: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// [`atomic_write`] for a file only its owner may read or write (mode 0600
/// from the moment it is created, so it is never readable by others), in a
/// folder created 0700 if missing. Everything Almanac keeps in its own config
/// and data folders is written this way; only vault notes are not.
pub fn atomic_write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    create_private_dir(parent_of(path))?;
    replace_with(path, contents, PRIVATE_FILE)
}

pub use private_dir::{PRIVATE_DIR, PRIVATE_FILE};

/// What `open(2)` gets for ordinary files; the umask narrows it.
const DEFAULT_MODE: u32 = 0o666;

fn replace_with(path: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
    let dir = parent_of(path);
    fs::create_dir_all(dir)?;
    let staged = staged(path, contents, mode)?;
    staged.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// Creates `path` with `contents`, failing with `AlreadyExists` if it exists.
/// The content is durable before the name appears, so a crash never leaves a
/// partial note, and the existence check is atomic (the file is linked in
/// without replacing anything).
pub fn atomic_create_new(path: &Path, contents: &[u8]) -> io::Result<()> {
    let staged = staged(path, contents, DEFAULT_MODE)?;
    staged.persist_noclobber(path).map_err(|e| e.error)?;
    sync_dir(parent_of(path))
}

fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// `contents` written and fsynced to a new temporary file next to `path`
/// (removed again if it is dropped unpersisted). A dot-prefixed name keeps the
/// file watcher and vault scans from mistaking it for a note.
fn staged(path: &Path, contents: &[u8], mode: u32) -> io::Result<NamedTempFile> {
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let prefix = format!(".{}.", file_name.to_string_lossy());
    let mut staged = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .make_in(parent_of(path), |name| {
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            exclusive_private(&mut options, mode).open(name)
        })?;
    staged.write_all(contents)?;
    staged.as_file().sync_all()?;
    Ok(staged)
}

/// Unix: `mode` (narrowed by the umask) and `O_NOFOLLOW`.
#[cfg(unix)]
fn exclusive_private(options: &mut OpenOptions, mode: u32) -> &mut OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    options.mode(mode).custom_flags(libc::O_NOFOLLOW)
}

/// Windows: `create_new` (CREATE_NEW) already fails on any existing name,
/// a symlink included, and the file inherits the ACL of its folder in the
/// user's profile, which only the user can read.
#[cfg(not(unix))]
fn exclusive_private(options: &mut OpenOptions, _mode: u32) -> &mut OpenOptions {
    options
}

/// Creates `dir` (and missing parents) as a folder only its owner can enter
/// (0700); an existing `dir` with a wider mode is narrowed. Parents that
/// already exist are left alone: they are the user's (`~/.config`, ...).
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    private_dir::create(dir)
}

/// Narrows every file under `root` to 0600 and every folder to 0700 (the
/// root included), never following a symlink and never entering `skip` (a
/// vault kept inside Almanac's folders keeps the user's modes). Files from
/// older versions, or written by a library that ignores our modes, are
/// tightened this way at start.
pub fn tighten_tree(root: &Path, skip: &[&Path]) -> io::Result<()> {
    private_dir::tighten(root, skip)
}

/// Fsyncs a directory so that renames and creations inside it are durable.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Windows cannot open a directory as a file to flush it; NTFS journals the
/// rename (MoveFileEx) itself.
#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces_without_leaving_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.json");
        atomic_write(&target, b"one").unwrap();
        atomic_write(&target, b"two").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "temp file left behind");
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode_exactly() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("note.md");
        for mode in [0o600, 0o640, 0o664, 0o400] {
            fs::write(&path, "old").unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            atomic_write(&path, b"new").unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), "new");
            let kept = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
            assert_eq!(kept, mode, "{mode:o} became {kept:o}");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        }
    }

    #[test]
    fn create_new_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("n.md");
        atomic_create_new(&target, b"x").unwrap();
        let err = atomic_create_new(&target, b"y").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&target).unwrap(), b"x");
    }
}
