//! What the daemon is told at start (and again on every settings change):
//! where to listen, where to store, and the limits and allowlists it
//! enforces.
//!
//! The crate does not read Almanac's settings file itself; the desktop shell
//! fills a [`DaemonConfig`] from `settings.reminders` so the daemon stays
//! independent of `almanac-core` and easy to start in tests.

use std::path::PathBuf;
use std::time::Duration;

use almanac_loopback::defaults;

/// The contract's port (spec B, Limits).
pub const DEFAULT_PORT: u16 = defaults::REMINDER_PORT;

/// Everything [`crate::Daemon::start`] needs to know.
///
/// From Almanac's settings (`settings.reminders`): `daemonPort` → `port`,
/// `graceWindowHours` → `grace_window`, `allowedSchemes` →
/// `allowed_schemes`, `checkUpdates` / `updateFeedUrl` → `updates`; the
/// database is `Paths::reminders_db()`.
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    /// Loopback port; `0` picks a free one (tests), the handle reports it.
    pub port: u16,
    /// The sled database directory.
    pub db_path: PathBuf,
    /// Reminders missed while the app was closed fire on start as one summary
    /// if at most this old; older ones are dropped (both are recorded).
    pub grace_window: Duration,
    /// `action_url` schemes a reminder may carry (compared case-insensitively).
    pub allowed_schemes: Vec<String>,
    /// Browser `Origin`s allowed to call the daemon. An entry ending in `://`
    /// allows every origin of that scheme (`app://` covers Obsidian's
    /// `app://obsidian.md`). Requests without an `Origin` are always allowed.
    pub allowed_origins: Vec<String>,
    /// Opt-in release awareness behind `GET /updates`.
    pub updates: UpdateConfig,
    /// Size limits of request payloads.
    pub limits: Limits,
}

impl DaemonConfig {
    /// The defaults of `settings.reminders` (both start from
    /// `almanac_loopback::defaults`), storing in `db_path`.
    pub fn new(db_path: impl Into<PathBuf>) -> Self {
        Self {
            port: DEFAULT_PORT,
            db_path: db_path.into(),
            grace_window: Duration::from_secs(u64::from(defaults::GRACE_WINDOW_HOURS) * 60 * 60),
            allowed_schemes: defaults::allowed_schemes(),
            allowed_origins: [
                "app://",
                "tauri://",
                "obsidian://",
                "http://tauri.localhost",
                "https://tauri.localhost",
            ]
            .map(String::from)
            .to_vec(),
            updates: UpdateConfig::default(),
            limits: Limits::default(),
        }
    }
}

/// Release awareness: off unless the user opts in, and then checked in the
/// background only, never inside a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateConfig {
    pub enabled: bool,
    /// A JSON document shaped like a GitHub "latest release"
    /// (`tag_name`, `name`, `html_url`, `published_at`, `draft`, `prerelease`).
    pub feed_url: Option<String>,
    /// Time between two checks.
    pub interval: Duration,
    /// Lets the feed be fetched from loopback and private addresses (tests,
    /// a standalone daemon on a private network). Almanac's settings have no
    /// key for it: the app's update check reaches public addresses only.
    pub allow_private_network: bool,
}

impl Default for UpdateConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            feed_url: None,
            interval: Duration::from_secs(7 * 24 * 60 * 60),
            allow_private_network: false,
        }
    }
}

/// Payload limits. The contract names none; these keep one request from
/// exhausting memory while leaving room far above real calendars.
///
/// A `/sync` body is a host's whole set of future reminders. A realistic
/// reminder is 300–400 bytes of JSON (an Obsidian URL, a title, a line of
/// body); the body limit holds the maximum count of them at 800 bytes on
/// average, so only a set of mostly maximal texts can meet the 413 first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of a `/sync` request body.
    pub max_sync_body_bytes: usize,
    /// Bytes of a `/snooze` request body.
    pub max_snooze_body_bytes: usize,
    /// Elements of one `/sync` array.
    pub max_reminders: usize,
    /// Bytes of an `id` (at least 1).
    pub max_id_bytes: usize,
    /// Bytes of a `title` or a `body`.
    pub max_text_bytes: usize,
    /// Bytes of an `action_url`.
    pub max_url_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_sync_body_bytes: 16 * 1024 * 1024,
            max_snooze_body_bytes: 64 * 1024,
            max_reminders: 20_000,
            max_id_bytes: 256,
            max_text_bytes: 8 * 1024,
            max_url_bytes: 8 * 1024,
        }
    }
}
