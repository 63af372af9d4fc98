//! The lock on an instance's data folder.
//!
//! A running instance keeps its tokens (and more) in memory and rewrites
//! their files from memory, so anything else editing those files under it is
//! lost at its next write, or worse, undone. So one engine, and only one,
//! works on a data folder: whoever opens it ([`crate::app::Core::open`]
//! takes a [`DataLock`], so none can open without one) holds an exclusive
//! advisory lock on `<data>/almanac.lock` for its lifetime. The lock belongs
//! to the open file, so the OS drops it when the process ends, however it
//! ends: a crash never leaves a stale lock behind.
//!
//! Who gets it:
//! - The app (desktop or headless) is the instance people run; it
//!   [takes it over](DataLock::take_over): when another process holds it, it
//!   asks that one to hand over and waits, rather than start a second engine.
//! - `almanac mcp` and the command line [take it](DataLock::acquire) only
//!   when it is free, and otherwise go through the running instance. A
//!   command line run is short, so the app just waits for it; `almanac mcp`
//!   serves for hours, so it watches for the app's
//!   [ask](DataLock::handover_asked), finishes what it is doing, lets go and
//!   then goes through the app.
//!
//! The ask is a lock too: the app holds `<data>/almanac.handover` while it
//! waits, and the holder sees it by failing to take that lock shared. Like
//! the main lock, it cannot go stale: a waiter that dies stops asking.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::paths::Paths;

/// How often a waiting app tries the lock again.
const RETRY: Duration = Duration::from_millis(100);

/// How often a holder that hands over looks for the ask: the app's start
/// waits this long at most on top of the holder's own wind-down.
pub const HANDOVER_CHECK: Duration = Duration::from_millis(200);

/// An exclusive lock on a data folder, released when dropped.
#[derive(Debug)]
pub struct DataLock {
    path: PathBuf,
    handover: PathBuf,
    // Held only for the lock it carries.
    _file: File,
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum DataLockError {
    /// Another process (a running Almanac) holds it.
    #[error("{} is locked by another process (a running Almanac)", .0.display())]
    Held(PathBuf),
    /// The app asked the holder to hand over, and it did not in time.
    #[error(
        "{path} is held by {holder}, which did not hand it over within {waited:?}; \
         stop it (Almanac never runs two engines on one data folder) and start again",
        path = .path.display()
    )]
    NotHandedOver {
        path: PathBuf,
        holder: String,
        waited: Duration,
    },
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
        let mut file = open(&path).map_err(io)?;
        // `flock(2)` on Unix, `LockFileEx` on Windows: tied to the open
        // file, so a second open of it, here or elsewhere, cannot take it.
        match file.try_lock() {
            Ok(()) => {
                // Who holds it, for the message of a process that waits.
                let _ = file
                    .set_len(0)
                    .and_then(|()| file.write_all(holder_line().as_bytes()));
                Ok(DataLock {
                    path,
                    handover: paths.handover_file(),
                    _file: file,
                })
            }
            Err(TryLockError::WouldBlock) => Err(DataLockError::Held(path)),
            Err(TryLockError::Error(e)) => Err(io(e)),
        }
    }

    /// Takes the lock for the app: when another process holds it, asks that
    /// one to hand over and waits up to `patience` for it. Blocks.
    pub fn take_over(paths: &Paths, patience: Duration) -> Result<DataLock, DataLockError> {
        match DataLock::acquire(paths) {
            Err(DataLockError::Held(_)) => {}
            taken_or_failed => return taken_or_failed,
        }
        let holder = holder_of(paths);
        tracing::info!(%holder, "the data folder is in use: asking it to hand over");
        // `None` when another waiter is asking already: then wait with it.
        let _asking = ask(paths);
        let since = Instant::now();
        loop {
            std::thread::sleep(RETRY);
            match DataLock::acquire(paths) {
                Err(DataLockError::Held(path)) if since.elapsed() >= patience => {
                    return Err(DataLockError::NotHandedOver {
                        path,
                        holder,
                        waited: patience,
                    });
                }
                Err(DataLockError::Held(_)) => {}
                taken_or_failed => {
                    tracing::info!(waited = ?since.elapsed(), "the data folder was handed over");
                    return taken_or_failed;
                }
            }
        }
    }

    /// Whether a starting app asks for the data folder
    /// ([`DataLock::take_over`]): a holder that can go through the app then
    /// finishes what it is doing and lets go.
    pub fn handover_asked(&self) -> bool {
        let Ok(file) = open_existing(&self.handover) else {
            return false;
        };
        matches!(file.try_lock_shared(), Err(TryLockError::WouldBlock))
    }

    /// Returns once [`DataLock::handover_asked`] holds.
    pub async fn until_handover_asked(&self) {
        let mut every = tokio::time::interval(HANDOVER_CHECK);
        while !self.handover_asked() {
            every.tick().await;
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// This process, as the lock file names it: "pid 4242 (almanac mcp)".
fn holder_line() -> String {
    let mut args = std::env::args_os();
    let program = args
        .next()
        .map(PathBuf::from)
        .and_then(|path| {
            path.file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    // Only the subcommand: later arguments may be anything.
    let command = args
        .next()
        .map(|arg| format!(" {}", arg.to_string_lossy()))
        .filter(|arg| arg.len() <= 32 && !arg.chars().any(char::is_control))
        .unwrap_or_default();
    format!("pid {} ({program}{command})\n", std::process::id())
}

/// Who holds the lock, as its file says.
fn holder_of(paths: &Paths) -> String {
    let mut said = String::new();
    let read =
        open_existing(&paths.lock_file()).and_then(|file| file.take(256).read_to_string(&mut said));
    match read {
        Ok(_) if !said.trim().is_empty() => said.trim().to_string(),
        // Unreadable while locked on Windows, or an older version's file.
        _ => "another process".to_string(),
    }
}

/// Holds the handover file's lock: the ask, for as long as it is held.
fn ask(paths: &Paths) -> Option<File> {
    let file = open(&paths.handover_file()).ok()?;
    file.try_lock().ok().map(|()| file)
}

/// A lock file as it is, for reading or a shared lock; never through a link.
fn open_existing(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    options.open(path)
}

/// A lock file, opened for locking: private, and never through a link.
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

    #[test]
    fn the_holder_sees_the_ask_and_the_waiter_gets_the_lock_it_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let held = DataLock::acquire(&paths).unwrap();
        assert!(!held.handover_asked(), "nobody asks yet");
        let waiting = std::thread::spawn({
            let paths = paths.clone();
            move || DataLock::take_over(&paths, Duration::from_secs(60))
        });
        while !held.handover_asked() {
            std::thread::sleep(RETRY);
        }
        drop(held);
        let taken = waiting.join().unwrap().expect("handed over");
        assert!(!taken.handover_asked(), "the ask ends with the wait");
    }

    #[test]
    fn a_holder_that_keeps_it_is_named_when_the_wait_ends() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let _held = DataLock::acquire(&paths).unwrap();
        let refused = DataLock::take_over(&paths, Duration::ZERO).unwrap_err();
        let DataLockError::NotHandedOver { holder, .. } = &refused else {
            panic!("{refused:?}");
        };
        assert!(
            holder.contains(&format!("pid {}", std::process::id())),
            "{holder}"
        );
        assert!(
            refused.to_string().contains("did not hand it over"),
            "{refused}"
        );
    }
}
