//! What the engine reports about itself: the configured sources and whether
//! the vault can be used (`GET /api/v1/calendars`), and cache statistics
//! (internal state, benchmarks).

use serde::Serialize;

use super::query::MAX_STEPS_PER_SERIES;
use crate::calendar::kinds::Kind;

/// One configured calendar source as listed by `GET /api/v1/calendars`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    pub id: String,
    pub name: String,
    pub color: String,
    /// `local`, `dailynote`, `ical`, `caldav`, `tasks`, `holidays` or
    /// `icsfile` (the settings' source `type`).
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    pub kind: Kind,
    /// Vault-relative folder of `local`, `dailynote` and `tasks` sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    /// The heading daily-note events live under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// The feed of an `ical` source (credentials hidden as `***` from tokens
    /// without `system:full-access`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// False for `ical` sources (read-only).
    pub editable: bool,
    /// Events (series count once) currently cached for this source.
    pub event_count: usize,
    /// `ical` only: when the feed was last fetched successfully (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_fetched: Option<String>,
    /// True while the feed is being fetched, or the CalDAV calendar synced
    /// (always false for the other kinds).
    pub syncing: bool,
    /// Why the source cannot be read, if it cannot: for `ical`, why the last
    /// fetch or parse failed (a refused private address, a feed over the
    /// size cap, an HTTP error, …); for `dailynote`, an Obsidian daily-note
    /// date format Almanac cannot follow; for `tasks`, the task lines shown
    /// once (a 🔁 rule not read) or not at all (no title, a bad date); for
    /// `icsfile`, a missing or unreadable file, or its items set aside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Recurring series a query left out of its answer since they were last
    /// read: each needs more expansion steps than a series' share of a
    /// query (see `GET /events`' `warnings`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub series_left_out: Vec<SeriesLeftOut>,
    /// Where calendar apps sort it (the settings' `order`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    /// The components it is limited to (the settings' `components`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<String>>,
}

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
