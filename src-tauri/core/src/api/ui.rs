//! What the API can ask of the user interface. The desktop shell implements
//! [`UiController`] over its windows; without one (headless mode)
//! [`HeadlessUi`] refuses each request with a clear reason.

use crate::view::CalendarView;

/// Why the UI could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UiUnavailable(pub String);

/// The calendar's windows, as the API drives them.
pub trait UiController: Send + Sync {
    /// Focuses the main calendar view, opening it if needed.
    fn open_calendar(&self) -> Result<(), UiUnavailable>;
    /// Focuses the calendar sidebar, opening it if needed.
    fn open_sidebar(&self) -> Result<(), UiUnavailable>;
    /// Switches the calendar to `view`.
    fn change_view(&self, view: CalendarView) -> Result<(), UiUnavailable>;
    /// Tells the user about a change a script made (a toast or notification);
    /// not called for writes made with `options.silent`.
    fn announce(&self, message: &str);
}

/// The UI of a process without windows.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessUi;

const HEADLESS: &str = "Almanac runs headless (no windows); start it without --headless";

impl UiController for HeadlessUi {
    fn open_calendar(&self) -> Result<(), UiUnavailable> {
        Err(UiUnavailable(HEADLESS.to_string()))
    }
    fn open_sidebar(&self) -> Result<(), UiUnavailable> {
        Err(UiUnavailable(HEADLESS.to_string()))
    }
    fn change_view(&self, _view: CalendarView) -> Result<(), UiUnavailable> {
        Err(UiUnavailable(HEADLESS.to_string()))
    }
    /// Headless, the log is the only place a change can be announced.
    fn announce(&self, message: &str) {
        tracing::info!(message, "calendar changed through the API");
    }
}
