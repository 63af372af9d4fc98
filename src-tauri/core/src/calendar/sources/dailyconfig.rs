//! Obsidian's own Daily notes settings in the vault
//! (`<vault>/.obsidian/daily-notes.json`: `folder`, `format`), which a
//! daily-note source follows, as Full Calendar does. Only ever read.

use std::path::Path;

use super::dateformat::{DEFAULT_FORMAT, DateFormat};

/// Where Obsidian keeps its Daily notes settings, relative to the vault.
pub const SETTINGS_PATH: &str = ".obsidian/daily-notes.json";

/// The folder and date format of the vault's daily notes.
#[derive(Debug, Clone, PartialEq)]
pub struct DailyNotes {
    /// Vault-relative, `/`-separated, `""` for the vault root.
    pub folder: String,
    /// The date format, or why it cannot be followed.
    pub format: Result<DateFormat, String>,
}

/// Reads the vault's Daily notes settings; Obsidian's defaults (vault root,
/// `YYYY-MM-DD`) when there are none.
pub fn read(vault: &Path) -> DailyNotes {
    let path = vault.join(SETTINGS_PATH);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return defaults(),
        Err(e) => return unreadable(format!("cannot read {SETTINGS_PATH}: {e}")),
    };
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => return unreadable(format!("{SETTINGS_PATH} is not valid JSON: {e}")),
    };
    let setting = |key: &str| {
        value
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    // Obsidian writes the folder with or without slashes around it.
    let folder = setting("folder").unwrap_or_default().trim_matches('/');
    let format = setting("format").unwrap_or(DEFAULT_FORMAT);
    DailyNotes {
        folder: folder.to_string(),
        format: DateFormat::parse(format).map_err(|e| format!("{SETTINGS_PATH}: {e}")),
    }
}

fn defaults() -> DailyNotes {
    DailyNotes {
        folder: String::new(),
        format: Ok(DateFormat::default()),
    }
}

fn unreadable(problem: String) -> DailyNotes {
    DailyNotes {
        folder: String::new(),
        format: Err(problem),
    }
}
