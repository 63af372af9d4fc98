//! Onboarding from a vault: what Almanac can take over from a Full Calendar
//! plugin's own settings, so the user need not type them again.
//!
//! Obsidian keeps each plugin's settings in
//! `.obsidian/plugins/<plugin id>/data.json`. [`plan_import`] reads the
//! settings of Full Calendar Remastered (`full-calendar-remastered`, the
//! maintained plugin) or, when the vault has none, of the original Full
//! Calendar (`obsidian-full-calendar`) — only ever read: nothing under
//! `.obsidian` is written — and returns an [`ImportPlan`]: the file it read,
//! the calendar sources Almanac can read, the ones it cannot (listed with
//! why, never silently dropped; [`plugin_types`] maps each of the plugins'
//! source types), the plugin's reminder defaults mapped to Almanac's
//! `reminders` keys, its display settings ([`display`]: the first day of
//! the week, the 24-hour clock, the view it opens in), and the vault's name. [`ImportPlan::settings_patch`]
//! decides what of the plan may be applied to the current settings;
//! [`unattended`] applies it at start (`--vault`), without the CalDAV
//! accounts, which only a confirmed import takes. [`obsidian_vaults`] finds
//! the vaults Obsidian knows, for a first start.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::calendar::sources::caldav::password::Passwords;
use crate::settings::{CalendarSource, KindSettings, MAX_DEFAULT_MINUTES, Settings};
use crate::tokens::SecretStoreError;
use plugin_types::Entry;

pub mod display;
pub mod obsidian_vaults;
pub mod plugin_types;
pub mod unattended;
pub use display::ImportedDisplay;
pub use obsidian_vaults::{ObsidianVault, find_obsidian_vaults};
pub use unattended::import_unattended;

/// Full Calendar Remastered's settings, relative to the vault.
pub const REMASTERED_SETTINGS: &str = ".obsidian/plugins/full-calendar-remastered/data.json";

/// The original Full Calendar plugin's settings, relative to the vault.
pub const ORIGINAL_SETTINGS: &str = ".obsidian/plugins/obsidian-full-calendar/data.json";

/// The plugins' settings files in the order they are offered: the
/// maintained plugin's first.
pub const PLUGIN_SETTINGS: [&str; 2] = [REMASTERED_SETTINGS, ORIGINAL_SETTINGS];

/// Bytes of a settings file read at most: a plugin's settings are a few
/// kilobytes; a bigger file is not read whole into memory.
pub const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

/// The plugin's reminder settings Almanac has no setting for: the plan
/// reports them as found, not applied. (Which host syncs reminders is the
/// plugin's business; Almanac reads the vault itself.)
const NOT_APPLIED_KEYS: [&str; 1] = ["fcrReminderCompanion"];

/// What onboarding would take over from a vault.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportPlan {
    /// The plugin settings file the plan was read from, relative to the
    /// vault (one of [`PLUGIN_SETTINGS`]).
    pub settings_file: String,
    /// The other plugin's settings file, when the vault holds both: not
    /// read, since the maintained plugin's is offered first.
    pub also_found: Vec<String>,
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
    /// The plugin's display settings as Almanac's keys; `None` when the
    /// plugin's file has none of them.
    pub display: Option<ImportedDisplay>,
    /// Plugin settings found that Almanac has no setting for yet, or whose
    /// value it cannot take.
    pub found_not_applied: Vec<FoundSetting>,
    /// The names of the CalDAV calendars whose password the plugin kept in
    /// its settings file: importing moves each into the OS keyring.
    pub passwords_to_keyring: Vec<String>,
    /// The names of the CalDAV calendars whose password is not in the
    /// plugin's file (Remastered keeps it in Obsidian's own secret storage,
    /// which Almanac cannot read): the user enters it in Settings ›
    /// Calendars after the import.
    pub passwords_to_enter: Vec<String>,
    /// The passwords found, by source id: never shown, never put in settings.
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
    /// Neither plugin's settings file is in the vault (named here).
    #[error(
        "nothing to import: no Full Calendar settings in {0} (neither \
         .obsidian/plugins/full-calendar-remastered/data.json nor \
         .obsidian/plugins/obsidian-full-calendar/data.json)"
    )]
    NoPluginSettings(PathBuf),
    #[error("could not read {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("nothing to import: {path} is not Full Calendar settings: {reason}")]
    Malformed { path: PathBuf, reason: String },
}

/// Reads a Full Calendar plugin's settings in `vault` (the maintained
/// plugin's when it has both) and returns what Almanac can import.
pub fn plan_import(vault: &Path) -> Result<ImportPlan, OnboardingError> {
    let found: Vec<&str> = PLUGIN_SETTINGS
        .into_iter()
        .filter(|file| vault.join(file).is_file())
        .collect();
    let Some((file, others)) = found.split_first() else {
        return Err(OnboardingError::NoPluginSettings(vault.to_path_buf()));
    };
    let path = vault.join(file);
    let text = read_bounded(&path).map_err(|source| OnboardingError::Unreadable {
        path: path.clone(),
        source,
    })?;
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

    let mut plan = ImportPlan::empty(file.to_string(), vault_name(vault));
    plan.also_found = others.iter().map(|other| other.to_string()).collect();
    let mut ids = HashSet::new();
    for (index, entry) in entries.iter().enumerate() {
        plan.add_source(index, Entry(entry), vault, &mut ids);
    }
    let tasks_date = plugin_types::tasks_date_field(&settings);
    for source in &mut plan.sources {
        if let KindSettings::Tasks { date_field, .. } = &mut source.kind {
            *date_field = tasks_date;
        }
    }
    plan.reminders = imported_reminders(&settings, &mut plan.found_not_applied);
    plan.display = display::imported_display(&settings, &mut plan.found_not_applied);
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
    /// A plan that takes nothing yet, read from `settings_file`.
    fn empty(settings_file: String, vault_name: String) -> ImportPlan {
        ImportPlan {
            settings_file,
            also_found: Vec::new(),
            vault_name,
            sources: Vec::new(),
            skipped: Vec::new(),
            reminders: None,
            display: None,
            found_not_applied: Vec::new(),
            passwords_to_keyring: Vec::new(),
            passwords_to_enter: Vec::new(),
            passwords: PluginPasswords::default(),
        }
    }

    /// Adds the plugin's source `entry` (at `index` in `calendarSources`)
    /// to the sources, or to the skipped ones with why.
    fn add_source(&mut self, index: usize, entry: Entry, vault: &Path, ids: &mut HashSet<String>) {
        let kind = entry.text("type").unwrap_or_default().to_string();
        let name = entry
            .text("name")
            .map(str::to_string)
            .unwrap_or_else(|| plugin_types::default_name(entry, &kind));
        let mapped = match kind.as_str() {
            "" => Err("`type` is missing".to_string()),
            kind => plugin_types::map_source(entry, kind, vault),
        };
        let source_kind = match mapped {
            Ok(source_kind) => source_kind,
            Err(reason) => {
                self.skipped.push(SkippedSource { name, kind, reason });
                return;
            }
        };
        // The plugin's ids (`local_1`) serve as Almanac's; one that is
        // missing or taken gets the plugin's own `<type>_<n>` form.
        let id = entry
            .text("id")
            .filter(|id| !ids.contains(*id))
            .map(str::to_string)
            .unwrap_or_else(|| free_id(&kind, ids));
        ids.insert(id.clone());
        if let Some(format) = entry
            .field("format")
            .filter(|_| matches!(kind.as_str(), "dailynote" | "journals"))
        {
            self.found_not_applied.push(FoundSetting {
                key: format!("calendarSources[{index}].format"),
                value: format.clone(),
            });
        }
        self.note_holiday_filters(index, entry, &kind);
        if source_kind.kind().uses_password() {
            // Taken as written: spaces may be part of a password.
            let password = entry.field("password").and_then(Value::as_str);
            match password.filter(|password| !password.is_empty()) {
                Some(password) => {
                    self.passwords_to_keyring.push(name.clone());
                    self.passwords.0.push((id.clone(), password.to_string()));
                }
                None => self.passwords_to_enter.push(name.clone()),
            }
        }
        self.sources.push(CalendarSource {
            id,
            name,
            color: entry
                .text("color")
                .map(str::to_string)
                .unwrap_or_else(crate::settings::default_color),
            kind: source_kind,
            order: None,
            components: None,
        });
    }
}

impl ImportPlan {
    /// A holiday calendar's `region` (a city or district in the plugin's
    /// `date-holidays`) and a `holidayTypes` wider than public holidays
    /// have no equal in Almanac's data: reported, not applied.
    fn note_holiday_filters(&mut self, index: usize, entry: Entry, kind: &str) {
        if kind != "holidays" {
            return;
        }
        for key in ["region", "holidayTypes"] {
            match entry.field(key) {
                Some(Value::String(value)) if value.is_empty() || value == "public" => {}
                Some(value) => self.found_not_applied.push(FoundSetting {
                    key: format!("calendarSources[{index}].{key}"),
                    value: value.clone(),
                }),
                None => {}
            }
        }
    }
}

/// Reads the text file at `path`, refusing one over [`MAX_SETTINGS_BYTES`].
pub(crate) fn read_bounded(path: &Path) -> std::io::Result<String> {
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_SETTINGS_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {MAX_SETTINGS_BYTES} bytes"),
        ));
    }
    Ok(text)
}

impl ImportPlan {
    /// The settings patch that applies this plan to `current`, or `None` when
    /// nothing of it may be applied. Only what the user has not configured is
    /// taken, so an import never overwrites their choices:
    /// - the sources, while `calendarSources` is still exactly the default
    ///   one (and the plan has a source Almanac reads);
    /// - the reminder defaults, while `reminders.vaultReminders`,
    ///   `defaultReminders` and `defaultMinutes` are still Almanac's defaults;
    /// - each display setting (`firstDay`, `timeFormat24h`, `initialView`),
    ///   while it is still Almanac's default;
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
        if let Some(display) = &self.display {
            let untouched = [
                current.first_day == defaults.first_day,
                current.time_format_24h == defaults.time_format_24h,
                current.initial_view == defaults.initial_view,
            ];
            let imported = [
                ("firstDay", display.first_day.map(Value::from)),
                ("timeFormat24h", display.time_format_24h.map(Value::from)),
                ("initialView", display.initial_view.clone().map(Value::from)),
            ];
            for (untouched, (key, value)) in untouched.into_iter().zip(imported) {
                if let Some(value) = value.filter(|_| untouched) {
                    patch.insert(key.into(), value);
                }
            }
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
