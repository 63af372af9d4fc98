//! Crash-safe file writes.
//!
//! A reader (or a restart after `kill -9`) sees either the old file or the new
//! one, never a half-written mix: the bytes go to a temporary file in the same
//! directory, are fsynced, renamed over the target, and the directory is fsynced
//! so the rename itself is durable.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Atomically replaces (or creates) `path` with `contents`.
pub fn atomic_write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    // A dot-prefixed temp name keeps the file watcher and vault scans from
    // mistaking it for a note.
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        file_name.to_string_lossy(),
        uuid_like()
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Creates `path` with `contents`, failing with `AlreadyExists` if it exists.
/// The content is durable before the name appears, so a crash never leaves a
/// partial note, and the existence check is atomic (a hard link never replaces).
pub fn atomic_create_new(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let staged = dir.join(format!(".almanac-new.{}.tmp", uuid_like()));
    atomic_write(&staged, contents)?;
    let linked = fs::hard_link(&staged, path);
    let _ = fs::remove_file(&staged);
    linked?;
    sync_dir(dir)
}

/// A name unique within this process, for staging files.
fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Fsyncs a directory so that renames and creations inside it are durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
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
