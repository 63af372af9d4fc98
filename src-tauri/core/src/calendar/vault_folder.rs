//! Creating a note through opened folder handles.
//!
//! Checking a folder and then writing to its path leaves a window in which
//! whoever can write into the vault (a sync client, another user of a shared
//! folder) swaps the folder for a symlink, and the note lands wherever that
//! points. Here each folder from the vault root down is made and opened
//! *relative to the handle of its parent*, with `O_NOFOLLOW`: a symlink at
//! any step fails the open instead of being followed, and the note is created
//! in the very folder that was opened, whatever its path names by then.
//!
//! The note itself is created as `fsutil::atomic_create_new` does: its bytes
//! go to an exclusive temporary file first, made durable, then linked under
//! its name without replacing anything, so a crash never leaves half a note.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::io::Errno;

/// Why a note could not be created.
#[derive(Debug)]
pub enum CreateError {
    /// A folder on the way is a symlink (or not a folder).
    NotAFolder,
    /// Something already has the note's name.
    Exists,
    Io(io::Error),
}

impl From<Errno> for CreateError {
    fn from(errno: Errno) -> Self {
        match errno {
            // O_NOFOLLOW on a symlink, or O_DIRECTORY on something else.
            Errno::LOOP | Errno::NOTDIR => CreateError::NotAFolder,
            Errno::EXIST => CreateError::Exists,
            other => CreateError::Io(other.into()),
        }
    }
}

impl From<io::Error> for CreateError {
    fn from(error: io::Error) -> Self {
        CreateError::Io(error)
    }
}

/// A folder of the vault, held open.
#[derive(Debug)]
pub struct VaultFolder(OwnedFd);

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl VaultFolder {
    /// Opens `folders` under `root` (the canonical vault root), creating the
    /// missing ones; no step follows a symlink.
    pub fn open(root: &Path, folders: &[&OsStr]) -> Result<VaultFolder, CreateError> {
        let mut dir = rustix::fs::openat(CWD, root, DIR_FLAGS, Mode::empty())?;
        for folder in folders {
            match rustix::fs::mkdirat(&dir, *folder, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            dir = rustix::fs::openat(&dir, *folder, DIR_FLAGS, Mode::empty())?;
        }
        Ok(VaultFolder(dir))
    }

    /// Creates the file `name` in this folder with `contents`; never
    /// replaces anything, never follows a symlink. New notes get the user's
    /// usual mode (0666 narrowed by their umask), like any file they make.
    pub fn create_new(&self, name: &OsStr, contents: &[u8]) -> Result<(), CreateError> {
        // A dot-prefixed name keeps the watcher and scans from taking it for
        // a note.
        let staged = format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            uuid::Uuid::new_v4().simple()
        );
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.0, &staged, flags, Mode::from_raw_mode(0o666))?;
        let mut file = std::fs::File::from(fd);
        let linked = file
            .write_all(contents)
            .and_then(|()| file.sync_all())
            .map_err(CreateError::from)
            .and_then(|()| {
                rustix::fs::linkat(&self.0, &staged, &self.0, name, AtFlags::empty())
                    .map_err(CreateError::from)
            });
        let _ = rustix::fs::unlinkat(&self.0, &staged, AtFlags::empty());
        linked?;
        rustix::fs::fsync(&self.0)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlinked_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (vault, outside) = (dir.path().join("vault"), dir.path().join("outside"));
        std::fs::create_dir_all(&vault).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, vault.join("events")).unwrap();
        let opened = VaultFolder::open(&vault, &[OsStr::new("events"), OsStr::new("sub")]);
        assert!(matches!(opened, Err(CreateError::NotAFolder)), "{opened:?}");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }

    /// The race itself: the folder is checked (opened), then swapped for a
    /// symlink before the note is written. The note still lands in the
    /// folder that was opened, and nothing reaches the symlink's target.
    #[test]
    fn a_folder_swapped_for_a_symlink_after_the_check_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (vault, outside) = (dir.path().join("vault"), dir.path().join("outside"));
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(vault.join("events")).unwrap();
        let folder = VaultFolder::open(&vault, &[OsStr::new("events")]).unwrap();

        std::fs::rename(vault.join("events"), vault.join("moved")).unwrap();
        std::os::unix::fs::symlink(&outside, vault.join("events")).unwrap();
        folder.create_new(OsStr::new("a.md"), b"note").unwrap();

        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "escaped");
        assert_eq!(std::fs::read(vault.join("moved/a.md")).unwrap(), b"note");
        let names: Vec<_> = std::fs::read_dir(vault.join("moved"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.md"], "no temporary file left");
    }

    #[test]
    fn an_existing_name_or_symlink_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.md");
        std::fs::write(dir.path().join("a.md"), b"old").unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("b.md")).unwrap();
        let folder = VaultFolder::open(dir.path(), &[]).unwrap();
        for name in ["a.md", "b.md"] {
            let created = folder.create_new(OsStr::new(name), b"new");
            assert!(matches!(created, Err(CreateError::Exists)), "{name}");
        }
        assert_eq!(std::fs::read(dir.path().join("a.md")).unwrap(), b"old");
        assert!(!outside.exists());
    }
}
