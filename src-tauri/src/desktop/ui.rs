//! The API's [`UiController`] over the app's windows: the REST routes
//! `ui/open-calendar`, `ui/open-sidebar` and `ui/change-view` land here.

use almanac_core::api::{UiController, UiUnavailable};
use almanac_core::view::CalendarView;
use tauri::{AppHandle, Emitter};

use super::windows;
use crate::cli::WindowKind;

/// Payload: a sentence about a change a script made; calendar windows show it.
pub const ANNOUNCE: &str = "announce";

pub struct WindowUi {
    app: AppHandle,
}

impl WindowUi {
    pub fn new(app: AppHandle) -> Self {
        Self { app }
    }
}

fn unavailable(error: tauri::Error) -> UiUnavailable {
    UiUnavailable(format!("the window could not be shown: {error}"))
}

impl UiController for WindowUi {
    fn open_calendar(&self) -> Result<(), UiUnavailable> {
        windows::show(&self.app, WindowKind::Calendar)
            .map(drop)
            .map_err(unavailable)
    }

    fn open_sidebar(&self) -> Result<(), UiUnavailable> {
        windows::show(&self.app, WindowKind::Sidebar)
            .map(drop)
            .map_err(unavailable)
    }

    fn change_view(&self, view: CalendarView) -> Result<(), UiUnavailable> {
        windows::show_calendar_view(&self.app, view.id())
            .map(drop)
            .map_err(unavailable)
    }

    fn announce(&self, message: &str) {
        tracing::info!(message, "calendar changed through the API");
        let _ = self.app.emit(ANNOUNCE, message);
    }
}
