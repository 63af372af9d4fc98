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
//!
//! `/doctor` answers anyone on loopback (a web page can load it as an
//! image), so the `xdg-mime` answers are cached for [`HANDLERS_FRESH_FOR`]:
//! however many requests come, `xdg-mime` runs at most once per scheme per
//! minute, one request at a time; the others wait for, then share, its
//! answer. The autostart and menu entries are small files, read each time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UrlHandler {
    pub scheme: String,
    /// The desktop entry that opens `scheme:` URLs; `None` if none does, or
    /// `xdg-mime` could not say.
    pub handler: Option<String>,
}

impl Registration {
    /// The current state, for the reminder daemon's `schemes`. Blocking:
    /// runs `xdg-mime` once per scheme unless a fresh answer is cached.
    pub fn inspect(schemes: &[String]) -> Self {
        let autostart = autostart_file();
        Self {
            autostart: Entry::at(autostart),
            desktop_entry: Entry::found(menu_entry()),
            url_handlers: URL_HANDLERS.lookup(schemes),
        }
    }
}

/// How long an `xdg-mime` answer is reused.
pub const HANDLERS_FRESH_FOR: Duration = Duration::from_secs(60);

static URL_HANDLERS: LazyLock<UrlHandlers> = LazyLock::new(|| UrlHandlers::new("xdg-mime"));

/// The URL handlers of a list of schemes, asked of `program` (`xdg-mime`)
/// at most once per [`HANDLERS_FRESH_FOR`] for the same list.
struct UrlHandlers {
    program: PathBuf,
    /// Held while `program` runs, so concurrent lookups run it once.
    last: Mutex<Option<Looked>>,
}

struct Looked {
    at: Instant,
    handlers: Vec<UrlHandler>,
}

impl UrlHandlers {
    fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            last: Mutex::new(None),
        }
    }

    fn lookup(&self, schemes: &[String]) -> Vec<UrlHandler> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(looked) = last.as_ref()
            && looked.at.elapsed() < HANDLERS_FRESH_FOR
            && looked.handlers.iter().map(|h| &h.scheme).eq(schemes)
        {
            return looked.handlers.clone();
        }
        let handlers: Vec<UrlHandler> = schemes
            .iter()
            .map(|scheme| UrlHandler {
                scheme: scheme.clone(),
                handler: scheme_handler(&self.program, scheme),
            })
            .collect();
        *last = Some(Looked {
            at: Instant::now(),
            handlers: handlers.clone(),
        });
        handlers
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

fn scheme_handler(program: &Path, scheme: &str) -> Option<String> {
    let out = Command::new(program)
        .args(["query", "default", &format!("x-scheme-handler/{scheme}")])
        .output()
        .ok()?;
    let handler = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !handler.is_empty()).then_some(handler)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in `xdg-mime` that appends a line to `calls` per run and
    /// names a handler for each scheme.
    fn counting_xdg_mime(dir: &Path) -> (PathBuf, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let calls = dir.join("calls");
        let program = dir.join("xdg-mime");
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\necho \"$3\" >> '{}'\necho \"handler-for-$3.desktop\"\n",
                calls.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        (program, calls)
    }

    fn runs(calls: &Path) -> usize {
        std::fs::read_to_string(calls).map_or(0, |text| text.lines().count())
    }

    #[test]
    fn xdg_mime_runs_once_per_scheme_however_many_ask_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (program, calls) = counting_xdg_mime(dir.path());
        let handlers = UrlHandlers::new(program);
        let schemes = vec!["obsidian".to_string(), "https".to_string()];
        std::thread::scope(|scope| {
            for _ in 0..16 {
                scope.spawn(|| {
                    let found = handlers.lookup(&schemes);
                    assert_eq!(found.len(), 2);
                    assert_eq!(
                        found[0].handler.as_deref(),
                        Some("handler-for-x-scheme-handler/obsidian.desktop")
                    );
                });
            }
        });
        assert_eq!(runs(&calls), 2, "one run per scheme, not per request");
        // Another list of schemes is asked anew.
        handlers.lookup(&["mailto".to_string()]);
        assert_eq!(runs(&calls), 3);
    }

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
