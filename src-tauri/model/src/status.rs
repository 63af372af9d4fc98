//! What the engine reports about itself: whether the vault can be used
//! (`GET /api/v1/calendars`), the notes and series it left out, and cache
//! statistics (internal state, benchmarks). The per-source record, which
//! names a source's kind, is the engine's (`calendar::engine::source_info`).

use serde::Serialize;

use super::query::MAX_STEPS_PER_SERIES;

/// A recurring series left out of a query's answer: expanding it up to the
/// range takes more than one series' share of the query's steps (a rule
/// such as `FREQ=SECONDLY;COUNT=1000000000` from 1990). The other events
/// still answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeriesLeftOut {
    pub calendar_id: String,
    /// The series' event id.
    pub event_id: String,
    pub title: String,
    /// Why, for people.
    pub message: String,
}

impl SeriesLeftOut {
    pub fn new(calendar_id: &str, event_id: &str, title: &str) -> SeriesLeftOut {
        SeriesLeftOut {
            calendar_id: calendar_id.to_string(),
            event_id: event_id.to_string(),
            title: title.to_string(),
            message: format!(
                "the recurring series `{title}` was left out: expanding it takes more than \
                 {MAX_STEPS_PER_SERIES} steps, the limit per series (its rule repeats too \
                 often, or starts too long before the range)"
            ),
        }
    }
}

/// Whether the vault can be used. `GET /api/v1/calendars` reports it as
/// `vault`, the tray and the Settings window show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum VaultStatus {
    /// Notes are read from, and written to, the vault.
    Available,
    /// The vault folder (or a note calendar's folder in it) could not be
    /// opened or created. Note calendars are empty and refuse writes, feeds
    /// still work. The engine tries again every few seconds and on every
    /// settings change, and recovers by itself.
    Unavailable {
        /// What went wrong, naming the path.
        reason: String,
        /// When the vault became unavailable (RFC 3339).
        since: String,
    },
}

impl VaultStatus {
    pub fn is_available(&self) -> bool {
        matches!(self, VaultStatus::Available)
    }
}

/// Statistics of the in-memory event cache.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheStats {
    /// Notes (files) currently contributing events.
    pub notes_indexed: usize,
    /// Events cached (a series counts once).
    pub events: usize,
    /// Notes or items skipped as invalid since the last full scan.
    pub skipped: usize,
    /// The most recent skips (at most [`RECENT_SKIPS`]), newest last.
    pub recent_skips: Vec<SkippedNote>,
    /// Wall time of the last full scan, in milliseconds.
    pub last_scan_millis: u64,
    /// False once the file watcher has stopped (external edits are then
    /// picked up only by the next full rescan).
    pub watcher_alive: bool,
    /// Increases on every change of the cache's contents.
    pub generation: u64,
}

/// How many skipped notes [`CacheStats::recent_skips`] keeps.
pub const RECENT_SKIPS: usize = 20;

/// A note (or daily-note line) that could not be read as an event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedNote {
    /// Vault-relative path, with `:<line>` for a daily-note item.
    pub path: String,
    pub reason: String,
}
