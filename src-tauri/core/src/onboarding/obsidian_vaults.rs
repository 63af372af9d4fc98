//! The vaults Obsidian knows on this computer, for a first start: Obsidian
//! lists them in `obsidian.json` in its configuration folder —
//! `{"vaults": {"<id>": {"path": "/abs/path", "ts": <ms>, "open": true}}}` —
//! which is only ever read here.
//!
//! The folder is Obsidian's on each platform: `$XDG_CONFIG_HOME/obsidian`
//! (`~/.config/obsidian`) on Linux, `~/Library/Application Support/obsidian`
//! on macOS, `%APPDATA%\obsidian` on Windows; on Linux also where the
//! Flatpak and Snap packages keep it.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::{PLUGIN_SETTINGS, read_bounded};

/// Obsidian's vault list, relative to its configuration folder.
pub const VAULT_LIST: &str = "obsidian/obsidian.json";

/// One vault from Obsidian's list that still exists.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObsidianVault {
    /// The vault's folder, as Obsidian lists it.
    pub path: PathBuf,
    /// The folder's name: Obsidian's name for the vault.
    pub name: String,
    /// When Obsidian last opened it, in milliseconds since the epoch (0 when
    /// the list does not say).
    pub last_opened: i64,
    /// Whether it holds a Full Calendar plugin's settings (either plugin).
    pub has_full_calendar: bool,
}

/// The vaults in every Obsidian vault list on this computer, most recently
/// opened first; none when there is no list or it cannot be read.
pub fn find_obsidian_vaults() -> Vec<ObsidianVault> {
    vaults_in(&vault_lists(dirs::config_dir(), dirs::home_dir()))
}

/// Where Obsidian's vault list may be, given the platform's configuration
/// folder and the home folder.
pub fn vault_lists(config_dir: Option<PathBuf>, home: Option<PathBuf>) -> Vec<PathBuf> {
    let mut lists: Vec<PathBuf> = config_dir
        .into_iter()
        .map(|dir| dir.join(VAULT_LIST))
        .collect();
    // The Flatpak and Snap packages keep Obsidian's configuration in their
    // sandbox.
    if cfg!(all(unix, not(target_os = "macos")))
        && let Some(home) = home
    {
        lists.push(
            home.join(".var/app/md.obsidian.Obsidian/config")
                .join(VAULT_LIST),
        );
        lists.push(home.join("snap/obsidian/current/.config").join(VAULT_LIST));
    }
    lists
}

/// The vaults listed in the files `lists` (missing or unreadable ones
/// skipped), each folder once, most recently opened first. A vault whose
/// folder no longer exists is left out.
pub fn vaults_in(lists: &[PathBuf]) -> Vec<ObsidianVault> {
    let mut vaults: Vec<ObsidianVault> = Vec::new();
    for list in lists {
        for vault in read_list(list) {
            match vaults.iter_mut().find(|known| known.path == vault.path) {
                Some(known) => known.last_opened = known.last_opened.max(vault.last_opened),
                None => vaults.push(vault),
            }
        }
    }
    vaults.sort_by(|a, b| b.last_opened.cmp(&a.last_opened).then(a.path.cmp(&b.path)));
    vaults
}

/// The existing vaults of one list; none when it cannot be read or is not
/// Obsidian's list.
fn read_list(list: &Path) -> Vec<ObsidianVault> {
    let Ok(text) = read_bounded(list) else {
        return Vec::new();
    };
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(&text) else {
        tracing::info!(list = %list.display(), "Obsidian's vault list is not JSON; ignored");
        return Vec::new();
    };
    let Some(Value::Object(entries)) = root.get("vaults") else {
        return Vec::new();
    };
    entries
        .values()
        .filter_map(|entry| {
            let path = PathBuf::from(entry.get("path")?.as_str()?);
            // Obsidian lists absolute paths; anything else is not a vault
            // it opened, and gone folders are not offered.
            if !path.is_absolute() || !path.is_dir() {
                return None;
            }
            Some(ObsidianVault {
                name: path
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                last_opened: entry.get("ts").and_then(Value::as_i64).unwrap_or(0),
                has_full_calendar: PLUGIN_SETTINGS.iter().any(|file| path.join(file).is_file()),
                path,
            })
        })
        .collect()
}
