//! Where an Almanac instance keeps its files.
//!
//! Everything is derived from two directories so a test (or a second profile)
//! can isolate a whole instance by pointing `XDG_CONFIG_HOME` / `XDG_DATA_HOME`
//! somewhere else, or by building [`Paths`] by hand.

use std::path::{Path, PathBuf};

/// The application's directory name under the platform config and data dirs.
const APP_DIR: &str = "almanac";

/// The config and data directories of one Almanac instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    config_dir: PathBuf,
    data_dir: PathBuf,
}

impl Paths {
    /// Paths under explicit directories (used by tests and `--config-dir`).
    pub fn new(config_dir: impl Into<PathBuf>, data_dir: impl Into<PathBuf>) -> Self {
        Self {
            config_dir: config_dir.into(),
            data_dir: data_dir.into(),
        }
    }

    /// The platform's standard dirs; on Linux these honour `XDG_CONFIG_HOME` and
    /// `XDG_DATA_HOME`. Falls back to `./.almanac` when no home can be found.
    pub fn platform() -> Self {
        let fallback = || PathBuf::from(".almanac");
        Self::new(
            dirs::config_dir().unwrap_or_else(fallback).join(APP_DIR),
            dirs::data_dir().unwrap_or_else(fallback).join(APP_DIR),
        )
    }

    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The settings JSON file.
    pub fn settings_file(&self) -> PathBuf {
        self.config_dir.join("settings.json")
    }

    /// Token metadata (never secrets: those live in the OS keyring).
    pub fn tokens_file(&self) -> PathBuf {
        self.data_dir.join("tokens.json")
    }

    /// Token secret hashes, on a machine without an OS keyring (see
    /// `tokens::HashFileStore`).
    pub fn token_hashes_file(&self) -> PathBuf {
        self.data_dir.join("token-hashes.json")
    }

    /// The reminder daemon's sled database.
    pub fn reminders_db(&self) -> PathBuf {
        self.data_dir.join("reminders.sled")
    }

    /// Subscription feeds of the CalDAV server (SHA-256 of their secrets,
    /// never the secrets).
    pub fn feeds_file(&self) -> PathBuf {
        self.data_dir.join("feeds.json")
    }

    /// Cached copies of remote (ICS) calendars.
    pub fn ical_cache_dir(&self) -> PathBuf {
        self.data_dir.join("ical-cache")
    }

    /// CalDAV writes waiting for their server (data, not cache: they are
    /// the user's edits).
    pub fn caldav_queue_dir(&self) -> PathBuf {
        self.data_dir.join("caldav-queue")
    }

    /// The sync status of each published calendar ([`crate::publish`]):
    /// data, not cache, since it is what tells a vault edit from a phone's.
    pub fn publish_dir(&self) -> PathBuf {
        self.data_dir.join("publish")
    }

    /// The history of changes made to the vault ([`crate::history`]).
    pub fn history_file(&self) -> PathBuf {
        self.data_dir.join("history").join("changes.jsonl")
    }

    /// The lock a running instance holds on its data folder (see
    /// [`crate::data_lock`]).
    pub fn lock_file(&self) -> PathBuf {
        self.data_dir.join("almanac.lock")
    }

    /// The running instance's key, with which it proves to the command line
    /// that it is this user's Almanac ([`crate::instance_proof`]).
    pub fn instance_key_file(&self) -> PathBuf {
        self.data_dir.join("instance.key")
    }

    /// Held by an app waiting for [`Paths::lock_file`]: the ask to hand
    /// it over.
    pub fn handover_file(&self) -> PathBuf {
        self.data_dir.join("almanac.handover")
    }

    /// Creates the config and data folders owner-only (0700) and narrows
    /// whatever an older version left in them to 0600 files and 0700
    /// folders, never entering `vault` (a vault kept there keeps the user's
    /// modes).
    pub fn make_private(&self, vault: &Path) -> std::io::Result<()> {
        for dir in [&self.config_dir, &self.data_dir] {
            crate::fsutil::create_private_dir(dir)?;
            crate::fsutil::tighten_tree(dir, &[vault])?;
        }
        Ok(())
    }

    /// The vault used when settings name none: `~/Almanac`.
    pub fn default_vault() -> PathBuf {
        dirs::home_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join("Almanac")
    }
}
