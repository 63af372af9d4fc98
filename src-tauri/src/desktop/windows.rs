//! The app's windows: each kind exists at most once; showing one that is open
//! focuses it. Closing a window destroys it (the app lives on in the tray),
//! so an unused window costs no memory.

use tauri::{
    AppHandle, Emitter, LogicalPosition, LogicalSize, Manager, WebviewUrl, WebviewWindow,
    WebviewWindowBuilder,
};

use crate::cli::WindowKind;

/// Width of the sidebar docked at the right edge of the screen.
const SIDEBAR_WIDTH: f64 = 360.0;

/// The page and default size of each window.
fn layout(kind: WindowKind) -> (&'static str, f64, f64) {
    match kind {
        WindowKind::Calendar => ("Almanac — Calendar", 1000.0, 720.0),
        WindowKind::Sidebar => ("Almanac — Agenda", SIDEBAR_WIDTH, 720.0),
        WindowKind::Reminders => ("Almanac — Reminders", 680.0, 560.0),
        WindowKind::Settings => ("Almanac — Settings", 820.0, 760.0),
    }
}

/// Focuses the window of `kind`, creating it if needed.
pub fn show(app: &AppHandle, kind: WindowKind) -> tauri::Result<WebviewWindow> {
    show_page(app, kind, None)
}

/// Shows the calendar in `view` (a FullCalendar view id the caller checked):
/// an open calendar switches, a new one starts in it.
pub fn show_calendar_view(app: &AppHandle, view: &str) -> tauri::Result<WebviewWindow> {
    let window = show_page(app, WindowKind::Calendar, Some(format!("?view={view}")))?;
    window.emit_to(window.label(), CHANGE_VIEW, view)?;
    Ok(window)
}

/// The event that switches an open calendar's view.
pub const CHANGE_VIEW: &str = "change-view";

/// Shows the settings window at `section` (a tab's name the caller chose):
/// an open window switches to it, a new one starts on it.
pub fn show_settings_section(app: &AppHandle, section: &str) -> tauri::Result<WebviewWindow> {
    let window = show_page(app, WindowKind::Settings, Some(format!("#{section}")))?;
    window.emit_to(window.label(), SHOW_SECTION, section)?;
    Ok(window)
}

/// The event that switches an open settings window's section.
pub const SHOW_SECTION: &str = "show-section";

/// Brings some window to the front, opening the calendar if none is open.
pub fn focus_any(app: &AppHandle) -> tauri::Result<()> {
    match app.webview_windows().into_values().next() {
        Some(window) => focus(&window),
        None => show(app, WindowKind::Calendar).map(drop),
    }
}

fn focus(window: &WebviewWindow) -> tauri::Result<()> {
    window.unminimize()?;
    window.show()?;
    window.set_focus()
}

fn show_page(
    app: &AppHandle,
    kind: WindowKind,
    // `?query` or `#fragment`, appended to the page's address.
    suffix: Option<String>,
) -> tauri::Result<WebviewWindow> {
    if let Some(window) = app.get_webview_window(kind.name()) {
        focus(&window)?;
        return Ok(window);
    }
    let (title, width, height) = layout(kind);
    let page = format!("{}.html{}", kind.name(), suffix.unwrap_or_default());
    let builder = WebviewWindowBuilder::new(app, kind.name(), WebviewUrl::App(page.into()))
        .title(title)
        .inner_size(width, height)
        .min_inner_size(320.0, 360.0);
    let builder = match (kind, docked_right(app)) {
        (WindowKind::Sidebar, Some((position, size))) => builder
            .position(position.x, position.y)
            .inner_size(size.width, size.height),
        _ => builder.center(),
    };
    let window = builder.build()?;
    #[cfg(target_os = "linux")]
    if matches!(kind, WindowKind::Calendar) {
        super::drawing::suit_the_machine(&window);
    }
    focus(&window)?;
    Ok(window)
}

/// Where the sidebar goes: the full height of the primary monitor, at its
/// right edge.
fn docked_right(app: &AppHandle) -> Option<(LogicalPosition<f64>, LogicalSize<f64>)> {
    let monitor = app.primary_monitor().ok().flatten()?;
    let scale = monitor.scale_factor();
    let origin = monitor.position().to_logical::<f64>(scale);
    let size = monitor.size().to_logical::<f64>(scale);
    Some((
        LogicalPosition::new(origin.x + size.width - SIDEBAR_WIDTH, origin.y),
        LogicalSize::new(SIDEBAR_WIDTH, size.height),
    ))
}
