//! "Start Almanac when I log in": the Settings switch, through Tauri's
//! autostart plugin (on Linux the XDG autostart entry
//! `~/.config/autostart/Almanac.desktop`, naming this executable).
//!
//! A tray app that holds reminders has to be running to fire them, so the
//! first desktop start asks once — the Settings window opens on a welcome
//! (`ui/src/js/first_start.js`): the vaults Obsidian knows to choose from,
//! then the question (the switch showing whether the entry exists: off
//! until the user says yes), then the calendar — and remembers the answer
//! (`autostart-asked` in the data folder). Until it is answered, every
//! start welcomes again.

use std::path::PathBuf;

use almanac_core::os_registration::{DESKTOP_NAME, autostart_file};
use almanac_core::paths::Paths;
use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime, State};
use tauri_plugin_autostart::ManagerExt;

use crate::cli::WindowKind;

/// The plugin, writing `<DESKTOP_NAME>.desktop` with no extra arguments.
pub fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_autostart::Builder::new()
        .app_name(DESKTOP_NAME)
        .build()
}

/// Where the answer to the first-run question is remembered.
pub struct AskedMarker(PathBuf);

impl AskedMarker {
    pub fn new(paths: &Paths) -> Self {
        Self(paths.data_dir().join("autostart-asked"))
    }

    fn asked(&self) -> bool {
        self.0.exists()
    }

    fn mark(&self) -> Result<(), String> {
        almanac_core::fsutil::atomic_write_private(&self.0, b"asked\n")
            .map_err(|e| format!("could not remember the answer: {e}"))
    }
}

/// What the Settings switch shows.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutostartState {
    enabled: bool,
    /// False until the first-run question is answered (or the switch used).
    asked: bool,
    entry: Option<PathBuf>,
}

fn state<R: Runtime>(app: &AppHandle<R>, marker: &AskedMarker) -> Result<AutostartState, String> {
    Ok(AutostartState {
        enabled: app.autolaunch().is_enabled().map_err(|e| e.to_string())?,
        asked: marker.asked(),
        entry: autostart_file(),
    })
}

#[tauri::command]
pub fn autostart_state(
    app: AppHandle,
    marker: State<'_, AskedMarker>,
) -> Result<AutostartState, String> {
    state(&app, &marker)
}

/// Turns starting at login on or off; also answers the first-run question.
#[tauri::command]
pub fn autostart_set(
    app: AppHandle,
    marker: State<'_, AskedMarker>,
    enabled: bool,
) -> Result<AutostartState, String> {
    let manager = app.autolaunch();
    let changed = if enabled {
        // The plugin creates `autostart/` but not a missing `~/.config`.
        if let Some(dir) = autostart_file().as_deref().and_then(|f| f.parent()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("could not create {}: {e}", dir.display()))?;
        }
        manager.enable()
    } else {
        manager.disable()
    };
    changed.map_err(|e| format!("could not change the autostart entry: {e}"))?;
    tracing::info!(enabled, entry = ?autostart_file(), "start at login changed");
    marker.mark()?;
    state(&app, &marker)
}

/// Opens Settings on the question, unless it was answered before.
pub fn ask_once(app: &AppHandle) -> tauri::Result<()> {
    if app.state::<AskedMarker>().asked() {
        return Ok(());
    }
    tracing::info!("first run: asking whether Almanac should start at login");
    crate::desktop::windows::show(app, WindowKind::Settings).map(drop)
}
