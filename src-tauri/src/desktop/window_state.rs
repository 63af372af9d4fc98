//! What the calendar window remembers of itself across restarts: the
//! calendars hidden in it, whether it shows week numbers, and its second
//! time zone. Kept by the
//! shell in the data folder (`calendar-window.json`), written whole and at
//! once on each change: a webview's own storage is flushed when WebKit
//! chooses, and a quit right after a change could lose it. It is this
//! window's view only; REST, CalDAV and the sidebar see every calendar.

use std::path::PathBuf;

use almanac_core::paths::Paths;
use serde::{Deserialize, Serialize};
use tauri::State;

/// Most calendar ids kept: more than any settings file holds.
const MAX_HIDDEN: usize = 1_000;

/// The calendar window's state.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CalendarWindowState {
    /// Ids of the calendars whose events the window does not draw.
    hidden_calendars: Vec<String>,
    /// ISO week numbers in the mini-month and the calendar.
    week_numbers: bool,
    /// An IANA zone shown beside the display zone on the time axis.
    second_zone: Option<String>,
}

/// Where the state lives.
pub struct StateFile(PathBuf);

impl StateFile {
    pub fn new(paths: &Paths) -> Self {
        Self(paths.data_dir().join("calendar-window.json"))
    }
}

/// The state as last saved; a missing or unreadable file is the default
/// (every calendar shown), never an error that keeps the window closed.
#[tauri::command]
pub fn calendar_window_state(file: State<'_, StateFile>) -> CalendarWindowState {
    std::fs::read(&file.0)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Saves the state (whole).
#[tauri::command]
pub fn calendar_window_state_save(
    file: State<'_, StateFile>,
    state: CalendarWindowState,
) -> Result<(), String> {
    if state.hidden_calendars.len() > MAX_HIDDEN {
        return Err(format!("at most {MAX_HIDDEN} hidden calendars are kept"));
    }
    if let Some(zone) = &state.second_zone
        && zone.parse::<chrono_tz::Tz>().is_err()
    {
        return Err(format!("“{zone}” is no IANA time zone"));
    }
    let bytes = serde_json::to_vec_pretty(&state).map_err(|e| e.to_string())?;
    almanac_core::fsutil::atomic_write_private(&file.0, &bytes)
        .map_err(|e| format!("could not keep the window's state: {e}"))
}
