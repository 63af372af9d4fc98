//! Keeping the cache in step with edits made outside Almanac.
//!
//! A `notify` watcher (inotify, FSEvents, ReadDirectoryChangesW) reports
//! changed paths under the vault. Events are debounced: once a change
//! arrives, more are collected until the vault has been quiet for
//! [`QUIET`] (at most [`MAX_DELAY`] after the first), then each touched path
//! is re-read, whatever the event said happened to it. That handles creates,
//! edits, deletes and renames (both names are reported) alike, and an editor's
//! save-via-rename burst costs one re-read. When the OS says events were
//! lost, the whole vault is rescanned.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// How long the vault must be quiet before a batch is applied.
pub const QUIET: Duration = Duration::from_millis(25);
/// The longest a change waits for the vault to become quiet.
pub const MAX_DELAY: Duration = Duration::from_millis(150);

/// What the watcher asks of the engine.
pub trait ChangeSink: Send + Sync + 'static {
    /// Re-read these absolute paths (files or folders, existing or not).
    fn paths_changed(&self, paths: &[PathBuf]);
    /// Events were lost: re-read everything.
    fn rescan(&self);
}

/// A running watcher; dropping it stops the watching thread.
pub struct VaultWatcher {
    _watcher: RecommendedWatcher,
}

impl VaultWatcher {
    /// Watches `root` recursively, feeding changes to `sink` until either
    /// the watcher or the sink is dropped. `alive` is cleared when the
    /// thread stops.
    pub fn start<S: ChangeSink>(
        root: &Path,
        sink: Weak<S>,
        alive: Arc<AtomicBool>,
    ) -> notify::Result<Self> {
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(tx)?;
        watcher.watch(root, RecursiveMode::Recursive)?;
        alive.store(true, Ordering::SeqCst);
        std::thread::Builder::new()
            .name("almanac-vault-watch".into())
            .spawn(move || {
                debounce_loop(&rx, &sink);
                alive.store(false, Ordering::SeqCst);
            })
            .map_err(notify::Error::io)?;
        Ok(Self { _watcher: watcher })
    }
}

fn debounce_loop<S: ChangeSink>(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    sink: &Weak<S>,
) {
    while let Ok(first) = rx.recv() {
        if first
            .as_ref()
            .is_ok_and(|e| !changes_content(&e.kind) && !e.need_rescan())
        {
            continue;
        }
        let started = Instant::now();
        let mut paths = BTreeSet::new();
        let mut rescan = false;
        let mut take = |event: notify::Result<notify::Event>| match event {
            Ok(event) => {
                rescan |= event.need_rescan();
                if changes_content(&event.kind) {
                    paths.extend(event.paths.into_iter().filter(|p| !is_hidden_temp(p)));
                }
            }
            Err(error) => {
                tracing::warn!(%error, "file watcher error; rescanning the vault");
                rescan = true;
            }
        };
        take(first);
        loop {
            let left = MAX_DELAY.saturating_sub(started.elapsed()).min(QUIET);
            if left.is_zero() {
                break;
            }
            match rx.recv_timeout(left) {
                Ok(event) => take(event),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        let Some(sink) = sink.upgrade() else { return };
        if rescan {
            sink.rescan();
        } else if !paths.is_empty() {
            sink.paths_changed(&paths.into_iter().collect::<Vec<_>>());
        }
    }
}

/// Whether an event can change what a note says. Opening and reading files
/// (our own scans included) must not trigger re-reads, or a scan would feed
/// itself forever.
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode};
    match kind {
        notify::EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        notify::EventKind::Access(_) => false,
        _ => true,
    }
}

/// Our own staging files (`fsutil` names them `.<name>.<n>.tmp`) and other
/// hidden files never hold events.
fn is_hidden_temp(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
}
