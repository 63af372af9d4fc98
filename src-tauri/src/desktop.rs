//! The desktop app: a tray icon and (later) windows, around the same core.

use tauri::menu::{Menu, MenuItem};
use tauri::tray::TrayIconBuilder;

use crate::cli::Args;

pub fn run(_args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    tauri::Builder::default()
        .setup(|app| {
            let quit = MenuItem::with_id(app, "quit", "Quit", true, None::<&str>)?;
            let menu = Menu::with_items(app, &[&quit])?;
            TrayIconBuilder::with_id("almanac")
                .icon(app.default_window_icon().cloned().ok_or("no icon")?)
                .tooltip("Almanac")
                .menu(&menu)
                .on_menu_event(|app, event| {
                    if event.id() == "quit" {
                        app.exit(0);
                    }
                })
                .build(app)?;
            Ok(())
        })
        .build(tauri::generate_context!())?
        .run(|_app, event| {
            // A tray app stays alive when its last window closes.
            if let tauri::RunEvent::ExitRequested { api, code, .. } = event
                && code.is_none()
            {
                api.prevent_exit();
            }
        });
    Ok(())
}
