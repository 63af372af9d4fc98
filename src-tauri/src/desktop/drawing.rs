//! How the calendar window's web view draws. WebKitGTK composites a page's
//! layers through OpenGL. On a machine with no GPU render node (a virtual
//! machine, a remote desktop, a container, the tests' Xvfb) that OpenGL is
//! Mesa's software rasterizer: the page is drawn on the CPU, then composited
//! on the CPU again through GL. There the calendar window draws without
//! compositing, straight into the window: the painting after a month step
//! goes from about 30 ms to about 10 (BENCHMARKS.md, "Calendar window").
//!
//! Only the calendar window: it redraws a month at a time, the others are
//! pages that rarely change. (In this mode WebKit's snapshot of a page, what
//! a WebDriver screenshot takes, waits for the page's next frame; the tests'
//! `Session::screenshot` keeps frames coming.) With a GPU, WebKit keeps its
//! own choice. Linux only: the other platforms' web views are not WebKitGTK.

use std::path::Path;

use tauri::WebviewWindow;

/// Where Linux lists the GPUs' render nodes (`renderD128`, …).
const RENDER_NODES: &str = "/dev/dri";

/// Sets the calendar `window`'s web view to draw as suits this machine.
pub fn suit_the_machine(window: &WebviewWindow) {
    if has_render_node(Path::new(RENDER_NODES)) {
        return;
    }
    let drawn = window.with_webview(|webview| {
        use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
        if let Some(settings) = webview.inner().settings() {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    });
    if let Err(error) = drawn {
        tracing::warn!(%error, "could not set how the window draws; WebKit's default stays");
    }
}

/// Whether `dir` lists a GPU render node (unreadable or missing: none).
fn has_render_node(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_node_is_a_gpu_and_a_card_alone_or_nothing_is_not() {
        let dri = tempfile::tempdir().unwrap();
        assert!(!has_render_node(&dri.path().join("missing")));
        assert!(!has_render_node(dri.path()));
        std::fs::write(dri.path().join("card0"), "").unwrap();
        assert!(!has_render_node(dri.path()));
        std::fs::write(dri.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dri.path()));
    }
}
