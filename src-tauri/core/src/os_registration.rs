//! What the desktop knows about Almanac, for `/doctor`: whether it starts at
//! login, whether a menu entry (`.desktop` file) is installed, and which
//! program opens each URL scheme a reminder may open. Read-only: registering
//! is the desktop shell's job (the autostart plugin) and the package's (the
//! menu entry).
//!
//! The answer follows the freedesktop.org specifications: autostart entries in
//! `~/.config/autostart`, menu entries in `applications/` under
//! `$XDG_DATA_HOME` and `$XDG_DATA_DIRS`, URL handlers as
//! `x-scheme-handler/<scheme>` defaults, asked of `xdg-mime`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

/// The name of Almanac's autostart entry and menu entry (`<name>.desktop`).
pub const DESKTOP_NAME: &str = "Almanac";

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Registration {
    pub autostart: Entry,
    pub desktop_entry: Entry,
    pub url_handlers: Vec<UrlHandler>,
}

#[derive(Debug, Serialize)]
pub struct Entry {
    pub registered: bool,
    /// The file that registers it (or would, for autostart).
    pub path: Option<PathBuf>,
    /// Its `Exec` line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct UrlHandler {
    pub scheme: String,
    /// The desktop entry that opens `scheme:` URLs; `None` if none does, or
    /// `xdg-mime` could not say.
    pub handler: Option<String>,
}

impl Registration {
    /// The current state, for the reminder daemon's `schemes`. Runs
    /// `xdg-mime` once per scheme.
    pub fn inspect(schemes: &[String]) -> Self {
        let autostart = autostart_file();
        Self {
            autostart: Entry::at(autostart),
            desktop_entry: Entry::found(menu_entry()),
            url_handlers: schemes
                .iter()
                .map(|scheme| UrlHandler {
                    scheme: scheme.clone(),
                    handler: scheme_handler(scheme),
                })
                .collect(),
        }
    }
}

impl Entry {
    fn at(path: Option<PathBuf>) -> Self {
        let exec = path.as_deref().and_then(exec_line);
        Self {
            registered: exec.is_some(),
            path,
            exec,
        }
    }

    fn found(path: Option<PathBuf>) -> Self {
        match path {
            Some(path) => Self::at(Some(path)),
            None => Self {
                registered: false,
                path: None,
                exec: None,
            },
        }
    }
}

/// Where the autostart plugin writes the entry: `~/.config/autostart`.
pub fn autostart_file() -> Option<PathBuf> {
    dirs::home_dir().map(|home| {
        home.join(".config/autostart")
            .join(format!("{DESKTOP_NAME}.desktop"))
    })
}

/// The first `applications/Almanac.desktop` (or `almanac.desktop`) in the
/// XDG data dirs, user dir first.
fn menu_entry() -> Option<PathBuf> {
    let system = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|dirs| !dirs.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    let dirs = dirs::data_dir()
        .into_iter()
        .chain(std::env::split_paths(&system).collect::<Vec<_>>());
    dirs.flat_map(|dir| {
        [DESKTOP_NAME.to_string(), DESKTOP_NAME.to_lowercase()]
            .map(|name| dir.join("applications").join(format!("{name}.desktop")))
    })
    .find(|path| path.is_file())
}

/// The `Exec=` value of the desktop entry at `path`, if it is one.
fn exec_line(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("Exec="))
        .map(|exec| exec.trim().to_string())
}

fn scheme_handler(scheme: &str) -> Option<String> {
    let out = Command::new("xdg-mime")
        .args(["query", "default", &format!("x-scheme-handler/{scheme}")])
        .output()
        .ok()?;
    let handler = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !handler.is_empty()).then_some(handler)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_registered_when_it_has_an_exec_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Almanac.desktop");
        assert!(!Entry::at(Some(path.clone())).registered);
        std::fs::write(
            &path,
            "[Desktop Entry]\nType=Application\nExec=/usr/bin/almanac \n",
        )
        .unwrap();
        let entry = Entry::at(Some(path));
        assert!(entry.registered);
        assert_eq!(entry.exec.as_deref(), Some("/usr/bin/almanac"));
    }
}
