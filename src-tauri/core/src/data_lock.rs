//! The lock on an instance's data folder.
//!
//! A running instance keeps its tokens (and more) in memory and rewrites
//! their files from memory, so anything else editing those files under it is
//! lost at its next write, or worse, undone. The running app holds an
//! exclusive advisory lock on `<data>/almanac.lock` for its lifetime; the
//! command line takes the same lock before editing files and refuses when it
//! cannot. The lock belongs to the open file, so the OS drops it when the
//! process ends, however it ends: a crash never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use crate::paths::Paths;

/// An exclusive lock on a data folder, released when dropped.
#[derive(Debug)]
pub struct DataLock {
    path: PathBuf,
    // Held only for the lock it carries.
    _file: File,
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum DataLockError {
    /// Another process (a running Almanac) holds it.
    #[error("{} is locked by another process (a running Almanac)", .0.display())]
    Held(PathBuf),
    #[error("cannot lock {}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl DataLock {
    /// Takes the lock of the instance at `paths` without waiting, creating
    /// the data folder (0700) and the lock file (0600) if needed.
    pub fn acquire(paths: &Paths) -> Result<DataLock, DataLockError> {
        let path = paths.lock_file();
        let io = |source| DataLockError::Io {
            path: path.clone(),
            source,
        };
        crate::fsutil::create_private_dir(paths.data_dir()).map_err(io)?;
        let file = open(&path).map_err(io)?;
        // `flock(2)` on Unix, `LockFileEx` on Windows: tied to the open
        // file, so a second open of it, here or elsewhere, cannot take it.
        match file.try_lock() {
            Ok(()) => Ok(DataLock { path, _file: file }),
            Err(TryLockError::WouldBlock) => Err(DataLockError::Held(path)),
            Err(TryLockError::Error(e)) => Err(io(e)),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The lock file, opened for locking: private, and never through a link.
fn open(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let held = DataLock::acquire(&paths).unwrap();
        assert!(matches!(
            DataLock::acquire(&paths),
            Err(DataLockError::Held(path)) if path == paths.lock_file()
        ));
        drop(held);
        DataLock::acquire(&paths).expect("free again once dropped");
    }
}
