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
//!
//! One file per section or concern: [`Settings`] and its top-level checks
//! here; `calendars` (`calendarSources`), `publishing` (`publishedCalendars`),
//! `servers` (`caldavServer`, `mcpServer`), `reminders`,
//! [`vault_path`] and [`bounds`] for their sections;
//! [`time_format`] (the clock `timeFormat24h` defaults to); `patch`
//! (a partial object merged and checked whole), `store` ([`SettingsStore`]:
//! the file and the commit), [`class`] (who may change what) and
//! [`redact`] (what leaves the process). A source's kind and its settings
//! (`KindSettings`, a Tasks source's `TaskDateField`) are the kind
//! registry's ([`crate::kinds`]), re-exported here.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use self::class::Refusal;
use crate::paths::Paths;

pub mod bounds;
mod calendars;
pub mod class;
mod patch;
mod publishing;
pub mod redact;
mod reminders;
mod servers;
pub mod shipped_data;
mod store;
pub mod time_format;
pub mod vault_path;

pub use crate::kinds::KindSettings;
pub use crate::kinds::TaskDateField;
pub(crate) use calendars::default_color;
pub use calendars::{CALENDAR_COMPONENTS, CalendarSource};
pub use publishing::{DEFAULT_POLL_SECONDS, POLL_SECONDS, PublishedCalendar};
pub use reminders::{
    DEFAULT_REMINDER_MINUTES, HORIZON_DAYS, MAX_DEFAULT_MINUTES, MAX_HOOK_COMMAND_CHARS,
    ReminderSettings,
};
pub use servers::{CaldavServerSettings, McpServerSettings};
pub use shipped_data::DataProblem;
pub use store::SettingsStore;

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
    /// Times on a 24-hour clock (`09:30`) rather than a 12-hour one
    /// (`9:30am`) in the calendar window and the sidebar. Defaults to the
    /// clock of the system's locale (`LC_ALL`, `LC_TIME` or `LANG`).
    #[serde(rename = "timeFormat24h")]
    pub time_format_24h: bool,
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
    /// Vault calendars kept, both ways, in a collection of the user's
    /// CalDAV account, which their phone syncs; none by default. The
    /// account's password is kept in the OS keyring, never here.
    pub published_calendars: Vec<PublishedCalendar>,
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
            time_format_24h: time_format::system_uses_24h(),
            calendar_sources: vec![CalendarSource {
                id: "local".to_string(),
                name: "Events".to_string(),
                color: default_color(),
                kind: KindSettings::FullNote {
                    directory: "events".to_string(),
                },
                order: None,
                components: None,
            }],
            reminders: ReminderSettings::default(),
            vault_name: None,
            caldav_server: CaldavServerSettings::default(),
            mcp_server: McpServerSettings::default(),
            published_calendars: Vec::new(),
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
    /// Checks the invariants serde cannot express, including the values
    /// judged against shipped data ([`shipped_data`]). The first problem
    /// wins.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.validate_shape()?;
        shipped_data::first_problem(self)
    }

    /// [`Settings::validate`] for a change from `current`: whole, except
    /// that a value the shipped data does not know passes when `current`
    /// already had it (a file written before an update) and the change does
    /// not `name` its key, so every other setting can still be changed.
    pub fn validate_change(
        &self,
        current: &Settings,
        names: &dyn Fn(&str) -> bool,
    ) -> Result<(), SettingsError> {
        self.validate_shape()?;
        shipped_data::new_problem(current, self, names)
    }

    /// The values the shipped data does not know (kept when loaded from the
    /// file; see [`shipped_data`]).
    pub fn shipped_data_problems(&self) -> Vec<DataProblem> {
        shipped_data::problems(self)
    }

    /// The checks that do not depend on data shipped in the binary: types
    /// serde already read, ports, bounds, the shape of each field. A file
    /// failing them is set aside at load.
    pub fn validate_shape(&self) -> Result<(), SettingsError> {
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
        if self.first_day > 6 {
            return Err(invalid("firstDay", "must be 0 (Sunday) to 6".to_string()));
        }
        if self.vault_path.as_os_str().is_empty() {
            return Err(invalid("vaultPath", "must not be empty".to_string()));
        }
        calendars::validate(&self.calendar_sources)?;
        publishing::validate(&self.published_calendars, &self.calendar_sources)?;
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
}

#[cfg(test)]
mod tests {
    use super::class::Actor;
    use super::*;
    use serde_json::{Value, json};

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
            KindSettings::Tasks {
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
