//! Onboarding from a vault: what Almanac can take over from the Full Calendar
//! plugin's own settings, so the user need not type them again.
//!
//! [`plan_import`] reads `<vault>/.obsidian/plugins/full-calendar/data.json`
//! (read only: nothing under `.obsidian` is ever written) and returns an
//! [`ImportPlan`]: the calendar sources Almanac can read, the ones it cannot
//! yet (listed, never silently dropped), the plugin's reminder defaults
//! mapped to Almanac's `reminders` keys, and the vault's name.
//! [`ImportPlan::settings_patch`] decides what of the plan may be applied to
//! the current settings; [`unattended`] applies it at start (`--vault`),
//! without the CalDAV accounts, which only a confirmed import takes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::calendar::sources::caldav::password::Passwords;
use crate::settings::{CalendarSource, MAX_DEFAULT_MINUTES, Settings, SourceKind};
use crate::tokens::SecretStoreError;

pub mod unattended;
pub use unattended::import_unattended;

/// Where the plugin keeps its settings, relative to the vault.
pub const PLUGIN_SETTINGS: &str = ".obsidian/plugins/full-calendar/data.json";

/// The plugin's reminder settings Almanac has no setting for: the plan
/// reports them as found, not applied. (Which host syncs reminders is the
/// plugin's business; Almanac reads the vault itself.)
const NOT_APPLIED_KEYS: [&str; 1] = ["fcrReminderCompanion"];

/// What onboarding would take over from a vault.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportPlan {
    /// The vault folder's name, as Obsidian names the vault in
    /// `obsidian://open?vault=<name>` links.
    pub vault_name: String,
    /// Sources Almanac reads, in the plugin's order, colours kept.
    pub sources: Vec<CalendarSource>,
    /// Sources left out, each with why (a type Almanac does not read yet, or
    /// an entry Almanac cannot use as it stands).
    pub skipped: Vec<SkippedSource>,
    /// The plugin's reminder defaults as Almanac's `reminders` keys; `None`
    /// when the plugin's file has none of them.
    pub reminders: Option<ImportedReminders>,
    /// Plugin settings found that Almanac has no setting for yet, or whose
    /// value it cannot take.
    pub found_not_applied: Vec<FoundSetting>,
    /// The names of the CalDAV calendars whose password the plugin kept in
    /// its settings file: importing moves each into the OS keyring.
    pub passwords_to_keyring: Vec<String>,
    /// Those passwords, by source id: never shown, never put in settings.
    #[serde(skip)]
    pub passwords: PluginPasswords,
}

/// Passwords found in the plugin's settings, by source id. Its `Debug`
/// shows the ids only.
#[derive(Clone, PartialEq, Default)]
pub struct PluginPasswords(Vec<(String, String)>);

impl std::fmt::Debug for PluginPasswords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(id, _)| id))
            .finish()
    }
}

/// The plugin's reminder defaults, mapped: `enableReminders` is the
/// plugin's master switch, so it sets `vaultReminders`, and default
/// reminders are on only when both it and `enableDefaultReminder` are.
/// A key absent from the plugin's file leaves Almanac's value.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedReminders {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vault_reminders: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_reminders: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_minutes: Option<u32>,
}

/// A plugin calendar source the plan does not import.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkippedSource {
    pub name: String,
    /// The plugin's `type` (`caldav`, `google`, …).
    #[serde(rename = "type")]
    pub kind: String,
    pub reason: String,
}

/// One plugin setting, by its key path in `data.json`, and its value there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoundSetting {
    pub key: String,
    pub value: Value,
}

/// Why there is nothing to import.
#[derive(Debug, thiserror::Error)]
pub enum OnboardingError {
    #[error("nothing to import: no Full Calendar settings at {0}")]
    NoPluginSettings(PathBuf),
    #[error("could not read {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("nothing to import: {path} is not Full Calendar settings: {reason}")]
    Malformed { path: PathBuf, reason: String },
}

/// Reads the plugin's settings in `vault` and returns what Almanac can import.
pub fn plan_import(vault: &Path) -> Result<ImportPlan, OnboardingError> {
    let path = vault.join(PLUGIN_SETTINGS);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(OnboardingError::NoPluginSettings(path));
        }
        Err(source) => return Err(OnboardingError::Unreadable { path, source }),
    };
    let malformed = |reason: String| OnboardingError::Malformed {
        path: path.clone(),
        reason,
    };
    let settings: Map<String, Value> =
        serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
    let entries = match settings.get("calendarSources") {
        None => &Vec::new(),
        Some(Value::Array(entries)) => entries,
        Some(_) => return Err(malformed("`calendarSources` is not a list".into())),
    };

    let mut plan = ImportPlan {
        vault_name: vault_name(vault),
        sources: Vec::new(),
        skipped: Vec::new(),
        reminders: None,
        found_not_applied: Vec::new(),
        passwords_to_keyring: Vec::new(),
        passwords: PluginPasswords::default(),
    };
    let mut ids = HashSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let text = |key: &str| entry.get(key).and_then(Value::as_str);
        let kind = text("type").unwrap_or("(none)").to_string();
        let name = text("name").unwrap_or("(unnamed)").to_string();
        match source_kind(entry, &kind) {
            Ok(source_kind) => {
                // The plugin's ids (`local_1`) serve as Almanac's; one that is
                // missing or taken gets the plugin's own `<type>_<n>` form.
                let id = text("id")
                    .filter(|id| !id.trim().is_empty() && !ids.contains(*id))
                    .map(str::to_string)
                    .unwrap_or_else(|| free_id(&kind, &ids));
                ids.insert(id.clone());
                if let Some(format) = entry.get("format").filter(|_| kind == "dailynote") {
                    plan.found_not_applied.push(FoundSetting {
                        key: format!("calendarSources[{index}].format"),
                        value: format.clone(),
                    });
                }
                if let Some(password) = text("password").filter(|p| !p.is_empty())
                    && kind == "caldav"
                {
                    plan.passwords_to_keyring.push(name.clone());
                    plan.passwords.0.push((id.clone(), password.to_string()));
                }
                plan.sources.push(CalendarSource {
                    id,
                    name,
                    color: text("color")
                        .map(str::to_string)
                        .unwrap_or_else(crate::settings::default_color),
                    kind: source_kind,
                });
            }
            Err(reason) => plan.skipped.push(SkippedSource { name, kind, reason }),
        }
    }
    plan.reminders = imported_reminders(&settings, &mut plan.found_not_applied);
    plan.found_not_applied
        .extend(NOT_APPLIED_KEYS.iter().filter_map(|key| {
            settings.get(*key).map(|value| FoundSetting {
                key: key.to_string(),
                value: value.clone(),
            })
        }));
    Ok(plan)
}

impl ImportPlan {
    /// The settings patch that applies this plan to `current`, or `None` when
    /// nothing of it may be applied. Only what the user has not configured is
    /// taken, so an import never overwrites their choices:
    /// - the sources, while `calendarSources` is still exactly the default
    ///   one (and the plan has a source Almanac reads);
    /// - the reminder defaults, while `reminders.vaultReminders`,
    ///   `defaultReminders` and `defaultMinutes` are still Almanac's defaults;
    /// - `vaultName`, while it is unset.
    pub fn settings_patch(&self, current: &Settings) -> Option<Value> {
        let defaults = Settings::default();
        let mut patch = Map::new();
        if current.calendar_sources == defaults.calendar_sources && !self.sources.is_empty() {
            patch.insert("calendarSources".into(), serde_json::json!(self.sources));
        }
        let (now, fresh) = (&current.reminders, &defaults.reminders);
        let untouched = (
            now.vault_reminders,
            now.default_reminders,
            now.default_minutes,
        ) == (
            fresh.vault_reminders,
            fresh.default_reminders,
            fresh.default_minutes,
        );
        if let Some(reminders) = self.reminders.as_ref().filter(|_| untouched) {
            patch.insert("reminders".into(), serde_json::json!(reminders));
        }
        if current.vault_name.is_none() && !self.vault_name.is_empty() {
            patch.insert("vaultName".into(), Value::String(self.vault_name.clone()));
        }
        (!patch.is_empty()).then_some(Value::Object(patch))
    }

    /// Stores the plugin's CalDAV passwords in the keyring, when `applied`
    /// (the patch of [`ImportPlan::settings_patch`], once applied) imported
    /// the sources. Returns how many were stored.
    pub fn store_passwords(
        &self,
        applied: &Value,
        keyring: &Passwords,
    ) -> Result<usize, SecretStoreError> {
        if applied.get("calendarSources").is_none() {
            return Ok(0);
        }
        for (id, password) in &self.passwords.0 {
            keyring.set(id, password)?;
        }
        Ok(self.passwords.0.len())
    }
}

/// The plugin's reminder keys as Almanac's; a value Almanac cannot take is
/// listed in `not_applied` instead.
fn imported_reminders(
    settings: &Map<String, Value>,
    not_applied: &mut Vec<FoundSetting>,
) -> Option<ImportedReminders> {
    let mut flag = |key: &str| match settings.get(key) {
        None => None,
        Some(Value::Bool(on)) => Some(*on),
        Some(other) => {
            not_applied.push(FoundSetting {
                key: key.to_string(),
                value: other.clone(),
            });
            None
        }
    };
    let enabled = flag("enableReminders");
    let default_on = flag("enableDefaultReminder");
    let default_minutes = match settings.get("defaultReminderMinutes") {
        None => None,
        Some(value) => {
            let minutes = value
                .as_u64()
                .and_then(|m| u32::try_from(m).ok())
                .filter(|m| *m <= MAX_DEFAULT_MINUTES);
            if minutes.is_none() {
                not_applied.push(FoundSetting {
                    key: "defaultReminderMinutes".into(),
                    value: value.clone(),
                });
            }
            minutes
        }
    };
    let reminders = ImportedReminders {
        vault_reminders: enabled,
        // With the plugin's master switch off, no reminder fires there.
        default_reminders: match (enabled, default_on) {
            (Some(false), _) => Some(false),
            (_, default_on) => default_on,
        },
        default_minutes,
    };
    (reminders != ImportedReminders::default()).then_some(reminders)
}

/// The plugin entry as an Almanac source kind, or why it cannot be one.
fn source_kind(entry: &Value, kind: &str) -> Result<SourceKind, String> {
    let field = |key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("`{key}` is missing"))
    };
    match kind {
        "local" => Ok(SourceKind::FullNote {
            directory: field("directory")?,
        }),
        // The plugin's daily-note source has no folder of its own: the notes'
        // folder comes from Obsidian's Daily notes settings, as in Almanac.
        "dailynote" => Ok(SourceKind::DailyNote {
            directory: String::new(),
            heading: field("heading")?,
        }),
        "ical" => {
            let url = field("url")?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("ICS url `{url}` is not http(s)"));
            }
            Ok(SourceKind::Ical {
                url,
                allow_private_network: false,
            })
        }
        "caldav" => caldav_kind(entry),
        _ => Err("not supported yet".to_string()),
    }
}

/// The plugin's CalDAV entry: where discovery starts, and the user name.
/// Plugin versions differ on what `url` and `homeUrl` hold (the server, the
/// calendar home or the calendar itself), but the deeper of the two is the
/// closest to the calendar, and discovery takes an address that is a
/// calendar as it is. The password, if any, goes to the keyring.
fn caldav_kind(entry: &Value) -> Result<SourceKind, String> {
    let address = |key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|url| url.starts_with("http://") || url.starts_with("https://"))
    };
    let url = address("url").ok_or("CalDAV `url` is missing or not http(s)")?;
    let username = entry
        .get("username")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or("`username` is missing")?;
    let depth = |url: &str| url.trim_end_matches('/').matches('/').count();
    let deepest = match address("homeUrl") {
        Some(home) if depth(home) > depth(url) => home,
        _ => url,
    };
    Ok(SourceKind::Caldav {
        url: deepest.to_string(),
        username: username.to_string(),
        calendar_url: String::new(),
    })
}

/// `<type>_<n>` with the smallest `n` not in `ids`.
fn free_id(kind: &str, ids: &HashSet<String>) -> String {
    (1..)
        .map(|n| format!("{kind}_{n}"))
        .find(|id| !ids.contains(id))
        .expect("some id is free")
}

/// The vault folder's name; `.` and `..` are resolved first.
fn vault_name(vault: &Path) -> String {
    let resolved = std::fs::canonicalize(vault).unwrap_or_else(|_| vault.to_path_buf());
    resolved
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}
