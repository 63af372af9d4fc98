//! The settings object, its JSON file, and change notifications.
//!
//! Settings are one JSON file with camelCase keys, written atomically. Readers
//! get an `Arc<Settings>` snapshot. Every change goes through the store's
//! commit ([`SettingsStore::update`] / [`SettingsStore::replace`]), which names
//! its [`Actor`], checks it against the setting classes ([`class`]), persists,
//! and then announces the new settings twice from the same step: on the
//! store's [`tokio::sync::watch`] channel (for components that want the latest
//! value: the REST listener, the calendar engine, the reminder daemon) and as
//! [`AppEvent::SettingsChanged`] on the [`EventBus`] (for everyone else, such
//! as the desktop bridge). Secrets never live here: PATs are in the keyring.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::watch;

use self::class::{Actor, Refusal};
use crate::events::{AppEvent, EventBus};
use crate::fsutil::atomic_write_private;
use crate::paths::Paths;
use crate::view::CalendarView;

pub mod bounds;
pub mod class;
pub mod redact;
mod reminders;
mod task_date;
pub mod vault_path;

pub use reminders::{
    DEFAULT_REMINDER_MINUTES, HORIZON_DAYS, MAX_DEFAULT_MINUTES, MAX_HOOK_COMMAND_CHARS,
    ReminderSettings,
};
pub use task_date::TaskDateField;

/// Ports below this need privileges; the REST server never asks for them.
pub const MIN_PORT: u16 = 1024;

/// Every setting Almanac knows. Unknown keys in a patch are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// The calendar REST server runs only while this is true (spec A, rule 1).
    pub rest_server_enabled: bool,
    /// The REST server's loopback port.
    pub local_server_port: u16,
    /// The folder of Markdown notes. Relative source directories hang off it.
    #[schema(value_type = String)]
    pub vault_path: PathBuf,
    /// IANA zone used for events that carry no `timezone` of their own.
    pub display_timezone: String,
    /// The calendar view the calendar window opens with.
    pub initial_view: String,
    /// First day of the week in the calendar view, 0 = Sunday.
    pub first_day: u8,
    /// Configured calendar sources.
    pub calendar_sources: Vec<CalendarSource>,
    /// Reminder daemon options.
    pub reminders: ReminderSettings,
    /// The vault's name in `obsidian://open?vault=<name>` links; `null` means
    /// the vault folder's name (see [`Settings::vault_name`]).
    pub vault_name: Option<String>,
    /// The CalDAV server for calendar apps (off by default).
    pub caldav_server: CaldavServerSettings,
    /// The MCP server for AI assistants, at `/mcp` on the REST port (off by
    /// default; see `crate::mcp`).
    pub mcp_server: McpServerSettings,
}

/// The MCP server at `/mcp` on the REST port. Only the user may change it
/// ([`class`]): it lets an assistant holding a token act on the calendar.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct McpServerSettings {
    /// `/mcp` answers only while this (and the REST server) is on.
    pub enabled: bool,
}

/// The loopback CalDAV server (`crate::caldav`). Only the user may change
/// it ([`class`]): it opens the calendars to any app holding a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CaldavServerSettings {
    /// The server listens only while this is true.
    pub enabled: bool,
    /// Its loopback port.
    pub port: u16,
}

impl Default for CaldavServerSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            port: 8541,
        }
    }
}

/// One configured calendar source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalendarSource {
    /// Stable identifier used as `calendarId` in the API.
    pub id: String,
    /// Display name (`calendarName` on events).
    pub name: String,
    /// CSS colour for the calendar view.
    #[serde(default = "default_color")]
    pub color: String,
    #[serde(flatten)]
    pub kind: SourceKind,
    /// Where a calendar app sorts this calendar among the others (Apple's
    /// `calendar-order`, set by CalDAV clients); Almanac only keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<i64>,
    /// The components a CalDAV client made this calendar for (`VEVENT`,
    /// `VTODO`): its collection advertises and takes only these. Absent:
    /// what the source's kind holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<String>>,
}

/// The components a calendar may be limited to.
pub const CALENDAR_COMPONENTS: [&str; 2] = ["VEVENT", "VTODO"];

/// What a calendar source reads from. Serialized as `"type": "local" |
/// "dailynote" | "ical" | "caldav" | "tasks"`, like Obsidian Full Calendar's own settings: the
/// wire name of a Full Note source is `local`, an external contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SourceKind {
    /// One note per event in `directory` (relative to the vault, or absolute
    /// inside it).
    #[serde(rename = "local")]
    FullNote { directory: String },
    /// Events are list items under `heading` in the daily notes of `directory`.
    DailyNote {
        #[serde(default)]
        directory: String,
        heading: String,
    },
    /// A remote ICS feed, read-only and cached on disk.
    Ical {
        url: String,
        /// Lets the feed (and its redirects) reach loopback, link-local and
        /// private addresses, which are otherwise refused. Only the user can
        /// set it, in Almanac's settings or its settings file; no token can.
        #[serde(default, rename = "allowPrivateNetwork")]
        allow_private_network: bool,
    },
    /// A calendar on a CalDAV server, read and written both ways. The
    /// password (or app password) is in the OS keyring under the source id,
    /// never here.
    Caldav {
        /// The server's address, as the user gave it (discovery starts here).
        url: String,
        username: String,
        /// The calendar collection found by discovery (or chosen by the
        /// user); empty until discovered.
        #[serde(default, rename = "calendarUrl")]
        calendar_url: String,
    },
    /// Obsidian Tasks lines (`- [ ] Pay rent 📅 2026-11-30`) in every note
    /// of `directory` (empty: the whole vault), read from the Markdown.
    Tasks {
        /// The notes' folder, relative to the vault (or absolute inside
        /// it); empty: the whole vault.
        #[serde(default)]
        directory: String,
        /// The date that places a task: `due` (📅, the default),
        /// `scheduled` (⏳) or `start` (🛫). A task without it is placed by
        /// its other dates, in the order due, scheduled, start.
        #[serde(default, rename = "dateField")]
        date_field: TaskDateField,
    },
}

pub(crate) fn default_color() -> String {
    "#3788d8".to_string()
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            rest_server_enabled: false,
            local_server_port: 8540,
            vault_path: Paths::default_vault(),
            display_timezone: system_timezone(),
            initial_view: "dayGridMonth".to_string(),
            first_day: 0,
            calendar_sources: vec![CalendarSource {
                id: "local".to_string(),
                name: "Events".to_string(),
                color: default_color(),
                kind: SourceKind::FullNote {
                    directory: "events".to_string(),
                },
                order: None,
                components: None,
            }],
            reminders: ReminderSettings::default(),
            vault_name: None,
            caldav_server: CaldavServerSettings::default(),
            mcp_server: McpServerSettings::default(),
        }
    }
}

/// Every IANA zone name `displayTimezone` accepts.
pub fn time_zone_names() -> impl Iterator<Item = &'static str> {
    chrono_tz::TZ_VARIANTS.iter().map(|zone| zone.name())
}

/// The machine's IANA zone, or UTC when it cannot be told.
fn system_timezone() -> String {
    std::env::var("TZ")
        .ok()
        .filter(|tz| tz.parse::<chrono_tz::Tz>().is_ok())
        .or_else(|| {
            std::fs::read_to_string("/etc/timezone")
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|tz| tz.parse::<chrono_tz::Tz>().is_ok())
        })
        .unwrap_or_else(|| "UTC".to_string())
}

/// Why a settings change or load was refused.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("settings must be a JSON object")]
    NotAnObject,
    #[error("unknown setting `{0}`")]
    UnknownKey(String),
    #[error("invalid value for `{key}`: {reason}")]
    Invalid { key: String, reason: String },
    /// The actor may not make this change (see [`class`]).
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("could not write settings to {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Settings {
    /// Checks the invariants serde cannot express. The first problem wins.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let invalid = |key: &str, reason: String| SettingsError::Invalid {
            key: key.to_string(),
            reason,
        };
        if self.local_server_port < MIN_PORT {
            return Err(invalid(
                "localServerPort",
                format!("{} is outside {MIN_PORT}-65535", self.local_server_port),
            ));
        }
        if self.caldav_server.port < MIN_PORT {
            return Err(invalid(
                "caldavServer.port",
                format!("{} is outside {MIN_PORT}-65535", self.caldav_server.port),
            ));
        }
        self.reminders.validate()?;
        if self
            .vault_name
            .as_ref()
            .is_some_and(|name| name.trim().is_empty())
        {
            return Err(invalid(
                "vaultName",
                "must not be empty (null means the vault folder's name)".to_string(),
            ));
        }
        if self.display_timezone.parse::<chrono_tz::Tz>().is_err() {
            return Err(invalid(
                "displayTimezone",
                format!("`{}` is not an IANA time zone", self.display_timezone),
            ));
        }
        if self.first_day > 6 {
            return Err(invalid("firstDay", "must be 0 (Sunday) to 6".to_string()));
        }
        if CalendarView::from_id(&self.initial_view).is_none() {
            return Err(invalid(
                "initialView",
                format!(
                    "`{}` is not a view; known views: {}",
                    self.initial_view,
                    CalendarView::known_ids()
                ),
            ));
        }
        if self.vault_path.as_os_str().is_empty() {
            return Err(invalid("vaultPath", "must not be empty".to_string()));
        }
        let mut seen = std::collections::HashSet::new();
        for (index, source) in self.calendar_sources.iter().enumerate() {
            // Named down to the field, so the settings window can show the
            // reason next to it.
            let field = |name: &str| format!("calendarSources[{index}].{name}");
            if source.id.trim().is_empty() {
                return Err(invalid(&field("id"), "a source has an empty id".into()));
            }
            if !seen.insert(source.id.as_str()) {
                return Err(invalid(
                    &field("id"),
                    format!("duplicate source id `{}`", source.id),
                ));
            }
            if source.name.trim().is_empty() {
                return Err(invalid(&field("name"), "a calendar needs a name".into()));
            }
            match &source.kind {
                SourceKind::Ical { url, .. } | SourceKind::Caldav { url, .. }
                    if !(url.starts_with("http://") || url.starts_with("https://")) =>
                {
                    return Err(invalid(
                        &field("url"),
                        format!("`{url}` is not an http(s) address"),
                    ));
                }
                SourceKind::FullNote { directory }
                | SourceKind::DailyNote { directory, .. }
                | SourceKind::Tasks { directory, .. }
                    if Path::new(directory.trim())
                        .components()
                        .any(|part| part == std::path::Component::ParentDir) =>
                {
                    return Err(invalid(
                        &field("directory"),
                        format!("`{directory}` leaves the vault; pick a folder inside it"),
                    ));
                }
                _ => {}
            }
            if let Some(components) = &source.components {
                let known = components
                    .iter()
                    .all(|c| CALENDAR_COMPONENTS.contains(&c.as_str()));
                let unique = components
                    .iter()
                    .collect::<std::collections::HashSet<_>>()
                    .len()
                    == components.len();
                if components.is_empty() || !known || !unique {
                    return Err(invalid(
                        &field("components"),
                        "a calendar holds VEVENT, VTODO or both, each named once".into(),
                    ));
                }
            }
        }
        bounds::check(self)
    }

    /// The vault's name for `obsidian://` links: `vaultName` when set, else
    /// the vault folder's name, as Obsidian names a vault.
    pub fn vault_name(&self) -> String {
        if let Some(name) = &self.vault_name {
            return name.clone();
        }
        self.vault_path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Whether the calendar engine would read both settings the same way
    /// (same vault, sources and display time zone).
    pub fn same_calendar_as(&self, other: &Settings) -> bool {
        self.vault_path == other.vault_path
            && self.calendar_sources == other.calendar_sources
            && self.display_timezone == other.display_timezone
    }

    /// Returns these settings with `patch` applied. The patch is a partial
    /// settings object: top-level keys replace whole values, except nested
    /// objects (`reminders`), which merge one level. Unknown keys, wrong types
    /// and invalid values reject the whole patch.
    pub fn patched(&self, patch: &Value) -> Result<Settings, SettingsError> {
        let Value::Object(patch) = patch else {
            return Err(SettingsError::NotAnObject);
        };
        let Value::Object(mut merged) =
            serde_json::to_value(self).expect("settings always serialize")
        else {
            unreachable!("settings serialize to an object")
        };
        for (key, value) in patch {
            let Some(current) = merged.get_mut(key) else {
                return Err(SettingsError::UnknownKey(key.clone()));
            };
            match (current, value) {
                (Value::Object(current), Value::Object(update)) => {
                    merge_known(current, update, key)?
                }
                (current, value) => *current = value.clone(),
            }
        }
        let settings: Settings =
            serde_json::from_value(Value::Object(merged)).map_err(|e| SettingsError::Invalid {
                key: patch.keys().cloned().collect::<Vec<_>>().join(", "),
                reason: e.to_string(),
            })?;
        // Serde ignores keys it does not know inside nested values (a calendar
        // source, say); whatever does not survive the round trip was unknown.
        let kept = serde_json::to_value(&settings).expect("settings always serialize");
        if let Some(path) = first_dropped_key(&Value::Object(patch.clone()), &kept, "") {
            return Err(SettingsError::UnknownKey(path));
        }
        settings.validate()?;
        Ok(settings)
    }
}

/// The path (`calendarSources[0].colour`) of the first key of `input` that is
/// missing from `kept`.
fn first_dropped_key(input: &Value, kept: &Value, path: &str) -> Option<String> {
    match (input, kept) {
        (Value::Object(input), Value::Object(kept)) => input.iter().find_map(|(key, value)| {
            let path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            match kept.get(key) {
                None => Some(path),
                Some(kept) => first_dropped_key(value, kept, &path),
            }
        }),
        (Value::Array(input), Value::Array(kept)) => input
            .iter()
            .zip(kept)
            .enumerate()
            .find_map(|(i, (value, kept))| first_dropped_key(value, kept, &format!("{path}[{i}]"))),
        _ => None,
    }
}

fn merge_known(
    current: &mut Map<String, Value>,
    update: &Map<String, Value>,
    parent: &str,
) -> Result<(), SettingsError> {
    for (key, value) in update {
        let Some(slot) = current.get_mut(key) else {
            return Err(SettingsError::UnknownKey(format!("{parent}.{key}")));
        };
        *slot = value.clone();
    }
    Ok(())
}

/// The settings of one instance: loaded from, and saved to, its JSON file.
#[derive(Debug)]
pub struct SettingsStore {
    path: PathBuf,
    current: watch::Sender<Arc<Settings>>,
    /// Where commits are announced besides `current`.
    events: EventBus,
    /// Serializes writers so two updates cannot interleave load-modify-save.
    write_lock: std::sync::Mutex<()>,
}

impl SettingsStore {
    /// Loads the settings file, or creates it with defaults on first start.
    /// A file that cannot be parsed is kept aside (`settings.json.corrupt-…`)
    /// rather than overwritten, and defaults are used.
    pub fn open(path: &Path) -> Result<Self, SettingsError> {
        let settings = match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice::<Settings>(&bytes) {
                Ok(settings) if settings.validate().is_ok() => settings,
                outcome => {
                    let reason = match outcome {
                        Err(e) => e.to_string(),
                        Ok(s) => s.validate().unwrap_err().to_string(),
                    };
                    let aside = path.with_extension(format!(
                        "json.corrupt-{}",
                        chrono::Utc::now().format("%Y%m%dT%H%M%S")
                    ));
                    tracing::error!(
                        file = %path.display(), kept_as = %aside.display(), %reason,
                        "settings file unreadable; starting from defaults"
                    );
                    let _ = std::fs::rename(path, &aside);
                    Self::write(path, &Settings::default())?;
                    Settings::default()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let settings = Settings::default();
                Self::write(path, &settings)?;
                settings
            }
            Err(source) => {
                return Err(SettingsError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        Ok(Self {
            path: path.to_path_buf(),
            current: watch::Sender::new(Arc::new(settings)),
            events: EventBus::default(),
            write_lock: std::sync::Mutex::new(()),
        })
    }

    /// The current settings.
    pub fn get(&self) -> Arc<Settings> {
        self.current.borrow().clone()
    }

    /// Announces commits on `events` (the instance's bus) from now on; a
    /// store opened alone announces on a bus of its own.
    pub(crate) fn publishing_to(mut self, events: EventBus) -> Self {
        self.events = events;
        self
    }

    /// A receiver that wakes whenever the settings change.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Settings>> {
        self.current.subscribe()
    }

    /// Applies a partial update (see [`Settings::patched`]) for `actor`,
    /// persists it, then notifies. Nothing changes if the actor may not make
    /// the change or any part is invalid. The in-process API, REST and the
    /// desktop shell come through [`crate::api::CalendarPlugin::update_settings`],
    /// which also checks a new vault path and waits for the calendar.
    pub fn update(&self, actor: Actor, patch: &Value) -> Result<Arc<Settings>, SettingsError> {
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        self.commit_patch(actor, &self.get(), patch)
    }

    /// [`SettingsStore::update`] with a patch made from the current settings
    /// under the write lock, so no other change falls between reading them
    /// and writing the patch. `None` from `patch`: nothing to change.
    pub fn update_from(
        &self,
        actor: Actor,
        patch: impl FnOnce(&Settings) -> Option<Value>,
    ) -> Result<Option<Arc<Settings>>, SettingsError> {
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        let current = self.get();
        match patch(&current) {
            Some(patch) => self.commit_patch(actor, &current, &patch).map(Some),
            None => Ok(None),
        }
    }

    /// Checks `patch` of `current` for `actor` and commits it. Callers hold
    /// `write_lock`.
    fn commit_patch(
        &self,
        actor: Actor,
        current: &Settings,
        patch: &Value,
    ) -> Result<Arc<Settings>, SettingsError> {
        actor.may_patch(current, patch)?;
        let next = current.patched(patch)?;
        actor.may_adopt(current, &next)?;
        self.commit(next)
    }

    /// Replaces the settings wholesale for `actor` (class-checked as a patch
    /// of every key, validated), persists, and notifies.
    pub fn replace(&self, actor: Actor, next: Settings) -> Result<Arc<Settings>, SettingsError> {
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        let current = self.get();
        let whole = serde_json::to_value(&next).expect("settings always serialize");
        actor.may_patch(&current, &whole)?;
        actor.may_adopt(&current, &next)?;
        next.validate()?;
        self.commit(next)
    }

    /// The one place settings change: the file, then the watch channel and
    /// the bus, in that order, under `write_lock` so announcements keep the
    /// order of commits. Callers hold `write_lock`.
    fn commit(&self, next: Settings) -> Result<Arc<Settings>, SettingsError> {
        Self::write(&self.path, &next)?;
        let next = Arc::new(next);
        self.current.send_replace(next.clone());
        self.events.publish(AppEvent::SettingsChanged(next.clone()));
        Ok(next)
    }

    fn write(path: &Path, settings: &Settings) -> Result<(), SettingsError> {
        let mut json = serde_json::to_vec_pretty(settings).expect("settings always serialize");
        json.push(b'\n');
        atomic_write_private(path, &json).map_err(|source| SettingsError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn store() -> (tempfile::TempDir, SettingsStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SettingsStore::open(&dir.path().join("settings.json")).unwrap();
        (dir, store)
    }

    #[test]
    fn first_start_writes_defaults_with_camel_case_keys() {
        let (dir, store) = store();
        assert!(!store.get().rest_server_enabled);
        assert_eq!(store.get().local_server_port, 8540);
        let raw: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("settings.json")).unwrap())
                .unwrap();
        assert_eq!(raw["localServerPort"], 8540);
        assert_eq!(raw["restServerEnabled"], false);
        assert_eq!(raw["calendarSources"][0]["type"], "local");
    }

    #[test]
    fn patch_persists_and_notifies() {
        let (dir, store) = store();
        let mut rx = store.subscribe();
        store
            .update(
                Actor::User,
                &json!({"localServerPort": 9000, "reminders": {"graceWindowHours": 2}}),
            )
            .unwrap();
        assert!(rx.has_changed().unwrap());
        assert_eq!(rx.borrow_and_update().local_server_port, 9000);
        let reopened = SettingsStore::open(&dir.path().join("settings.json")).unwrap();
        assert_eq!(reopened.get().local_server_port, 9000);
        assert_eq!(reopened.get().reminders.grace_window_hours, 2);
        assert_eq!(reopened.get().reminders.daemon_port, 45677);
    }

    #[test]
    fn only_vault_sources_and_zone_concern_the_calendar() {
        let base = Settings::default();
        let toggled = base.patched(&json!({"restServerEnabled": true})).unwrap();
        assert!(toggled.same_calendar_as(&base));
        let moved = base.patched(&json!({"vaultPath": "/elsewhere"})).unwrap();
        assert!(!moved.same_calendar_as(&base));
        let zoned = base
            .patched(&json!({"displayTimezone": "Asia/Tokyo"}))
            .unwrap();
        assert!(!zoned.same_calendar_as(&base));
    }

    #[test]
    fn bad_patches_change_nothing() {
        let (_dir, store) = store();
        let before = store.get();
        for patch in [
            json!({"localServerPort": 80}),
            json!({"localServerPort": 70000}),
            json!({"localServerPort": "9000"}),
            json!({"nope": 1}),
            json!({"reminders": {"nope": 1}}),
            json!({"displayTimezone": "Mars/Olympus"}),
            json!([1, 2]),
        ] {
            assert!(
                store.update(Actor::User, &patch).is_err(),
                "accepted {patch}"
            );
            assert_eq!(store.get(), before);
        }
    }

    #[test]
    fn a_tasks_source_defaults_to_the_due_date_and_is_checked() {
        let base = Settings::default();
        let source = |extra: serde_json::Value| {
            let mut source = json!({"id": "tasks_1", "name": "Tasks", "type": "tasks"});
            source
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            json!({ "calendarSources": [source] })
        };
        let read = base.patched(&source(json!({}))).unwrap();
        assert_eq!(
            read.calendar_sources[0].kind,
            SourceKind::Tasks {
                directory: String::new(),
                date_field: TaskDateField::Due,
            }
        );
        let scheduled = base
            .patched(&source(
                json!({"dateField": "scheduled", "directory": "Projects"}),
            ))
            .unwrap();
        let written = serde_json::to_value(&scheduled.calendar_sources[0]).unwrap();
        assert_eq!(written["dateField"], "scheduled");
        assert_eq!(written["directory"], "Projects");
        let refused = base
            .patched(&source(json!({"dateField": "created"})))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("due, scheduled, start") || refused.contains("`due`"),
            "{refused}"
        );
        let outside = base
            .patched(&source(json!({"directory": "../elsewhere"})))
            .unwrap_err()
            .to_string();
        assert!(
            outside.contains("calendarSources[0].directory"),
            "{outside}"
        );
    }

    #[test]
    fn a_sources_order_and_components_are_optional_and_checked() {
        let base = Settings::default();
        let local = |extra: serde_json::Value| {
            let mut source =
                json!({"id": "local", "name": "Events", "type": "local", "directory": "events"});
            source
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            json!({ "calendarSources": [source] })
        };
        // Absent: not written, as before.
        let plain = serde_json::to_value(&base.calendar_sources[0]).unwrap();
        assert!(plain.get("order").is_none() && plain.get("components").is_none());
        let kept = base
            .patched(&local(json!({"order": 12, "components": ["VTODO"]})))
            .unwrap();
        assert_eq!(kept.calendar_sources[0].order, Some(12));
        let written = serde_json::to_value(&kept.calendar_sources[0]).unwrap();
        assert_eq!(written["order"], 12);
        assert_eq!(written["components"], json!(["VTODO"]));
        for bad in [
            json!({"components": []}),
            json!({"components": ["VJOURNAL"]}),
            json!({"components": ["VTODO", "VTODO"]}),
            json!({"components": ["vtodo"]}),
        ] {
            let refused = base.patched(&local(bad.clone())).unwrap_err().to_string();
            assert!(
                refused.contains("calendarSources[0].components"),
                "{bad}: {refused}"
            );
        }
        assert!(base.patched(&local(json!({"order": "first"}))).is_err());
        assert!(base.patched(&local(json!({"order": 1.5}))).is_err());
    }

    #[test]
    fn port_bounds_are_1024_to_65535() {
        let (_dir, store) = store();
        for port in [1024, 8540, 65535] {
            let next = store
                .update(Actor::User, &json!({ "localServerPort": port }))
                .unwrap();
            assert_eq!(next.local_server_port, port);
        }
        for port in [json!(0), json!(1023), json!(65536), json!(-1), json!(80.5)] {
            let err = store
                .update(Actor::User, &json!({ "localServerPort": port }))
                .unwrap_err()
                .to_string();
            assert!(err.contains("localServerPort"), "{err}");
        }
        assert_eq!(store.get().local_server_port, 65535);
    }

    #[test]
    fn a_patch_is_rejected_whole_with_the_offending_key_named() {
        let (dir, store) = store();
        let file = std::fs::read(dir.path().join("settings.json")).unwrap();
        let cases = [
            (
                json!({"restServerEnabled": true, "localServerPort": 1}),
                "localServerPort",
            ),
            (json!({"restServerEnabled": "yes"}), "restServerEnabled"),
            (json!({"initialView": "yearGrid"}), "initialView"),
            (json!({"reminders": {"graceWindowHours": -1}}), "reminders"),
            (
                json!({"calendarSources": [{"id": "a", "name": "A", "type": "local",
                    "directory": "x", "colour": "red"}]}),
                "calendarSources[0].colour",
            ),
            (
                json!({"calendarSources": [{"id": "a", "name": "A", "type": "caldav"}]}),
                "calendarSources",
            ),
            (json!({"firstDay": 7}), "firstDay"),
            (
                json!({"calendarSources": [{"id": "a", "name": " ", "type": "local",
                    "directory": "x"}]}),
                "calendarSources[0].name",
            ),
            (
                json!({"calendarSources": [{"id": "a", "name": "A", "type": "local",
                    "directory": "x/../../elsewhere"}]}),
                "calendarSources[0].directory",
            ),
            (
                json!({"calendarSources": [{"id": "a", "name": "A", "type": "ical",
                    "url": "ftp://example.org/a.ics"}]}),
                "calendarSources[0].url",
            ),
        ];
        for (patch, named) in cases {
            let err = store.update(Actor::User, &patch).unwrap_err().to_string();
            assert!(err.contains(named), "{patch} → {err}");
        }
        assert!(!store.get().rest_server_enabled);
        assert_eq!(
            std::fs::read(dir.path().join("settings.json")).unwrap(),
            file,
            "a rejected patch touched the file"
        );
        store
            .update(
                Actor::User,
                &json!({"calendarSources": [{"id": "a", "name": "A", "type": "local",
                "directory": "x"}], "initialView": "timeGridWeek"}),
            )
            .unwrap();
    }

    #[test]
    fn vault_reminder_keys_default_and_bounds() {
        let (dir, store) = store();
        let raw: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("settings.json")).unwrap())
                .unwrap();
        assert_eq!(raw["reminders"]["vaultReminders"], true);
        assert_eq!(raw["reminders"]["defaultReminders"], false);
        assert_eq!(raw["reminders"]["defaultMinutes"], 10);
        assert_eq!(raw["reminders"]["horizonDays"], 30);
        assert_eq!(raw["vaultName"], Value::Null);
        for (patch, named) in [
            (
                json!({"reminders": {"defaultMinutes": 10081}}),
                "reminders.defaultMinutes",
            ),
            (json!({"reminders": {"defaultMinutes": -1}}), "reminders"),
            (
                json!({"reminders": {"horizonDays": 0}}),
                "reminders.horizonDays",
            ),
            (
                json!({"reminders": {"horizonDays": 367}}),
                "reminders.horizonDays",
            ),
            (json!({"reminders": {"vaultReminders": "yes"}}), "reminders"),
            (json!({"vaultName": ""}), "vaultName"),
            (json!({"vaultName": 3}), "vaultName"),
        ] {
            let err = store.update(Actor::User, &patch).unwrap_err().to_string();
            assert!(err.contains(named), "{patch} → {err}");
        }
        let next = store
            .update(
                Actor::User,
                &json!({"reminders": {"defaultMinutes": 10080, "horizonDays": 366,
                    "defaultReminders": true}, "vaultName": "Work"}),
            )
            .unwrap();
        assert_eq!(next.reminders.default_minutes, 10080);
        assert_eq!(next.reminders.horizon_days, 366);
        assert!(next.reminders.default_reminders);
        assert_eq!(next.vault_name(), "Work");
    }

    #[test]
    fn the_vault_name_defaults_to_the_vault_folder() {
        let settings = Settings {
            vault_path: PathBuf::from("/home/me/My Vault"),
            ..Settings::default()
        };
        assert_eq!(settings.vault_name(), "My Vault");
        let named = settings.patched(&json!({"vaultName": "Other"})).unwrap();
        assert_eq!(named.vault_name(), "Other");
        let unnamed = named.patched(&json!({"vaultName": null})).unwrap();
        assert_eq!(unnamed.vault_name(), "My Vault");
    }

    #[test]
    fn corrupt_file_is_kept_aside_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, b"{ not json").unwrap();
        let store = SettingsStore::open(&path).unwrap();
        assert_eq!(*store.get(), Settings::default());
        let kept = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().contains("corrupt"));
        assert!(kept);
    }
}
