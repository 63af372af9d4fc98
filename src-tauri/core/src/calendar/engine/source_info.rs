//! One configured calendar source as the engine reports it
//! (`GET /api/v1/calendars`). It lives with the engine, not in the model
//! crate, because it names the source's kind from the kind registry.

use serde::Serialize;

use crate::kinds::Kind;
use almanac_model::status::SeriesLeftOut;

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
