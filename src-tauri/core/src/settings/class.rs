//! The two classes of settings, and who may change which.
//!
//! The classes themselves, and the scope each needs, are the scopes' table
//! ([`crate::scopes`]), which this module reads; the scopes and the token
//! store import nothing from here (a token's scopes come in with its
//! [`Actor`]).
//!
//! A script holding `settings:write` may change how the calendar *looks*.
//! Changing what Almanac reads, writes, fetches, opens or listens on would
//! let that script widen its own reach (move the vault onto `/`, fetch a
//! loopback URL, open any scheme), so those keys need `system:full-access`.
//! So does `displayTimezone`: it is not only how times look, but the zone an
//! event without its own zone happens in, and so the instant its vault
//! reminder fires; below full access, no token may move a reminder.
//! One key goes further: a calendar source's `allowPrivateNetwork` lifts the
//! feed fetcher's network guard, so no token may set it, whatever its scopes:
//! only the user (the desktop UI, or the settings file) can.
//!
//! | key                                   | class      | who may change it                 |
//! |---------------------------------------|------------|-----------------------------------|
//! | `initialView`, `firstDay`, `timeFormat24h` | display | `settings:write`                  |
//! | `displayTimezone`, `vaultPath`, `vaultName`, `calendarSources`, `restServerEnabled`, `localServerPort`, `reminders.*` | privileged | `system:full-access` |
//! | `calendarSources[].allowPrivateNetwork` (set, or a flagged source's URL changed) | user only | the desktop UI or the settings file |
//! | `caldavServer` (`enabled`, `port`) | user only | the desktop UI or the settings file |
//! | `mcpServer` (`enabled`) | user only | the desktop UI or the settings file |
//! | `publishedCalendars` | user only | the desktop UI or the settings file |
//!
//! A key counts as changed when the value sent differs from the current one
//! (as `GET /settings` shows it to a full-access token). Sending a privileged
//! key with its current value is therefore allowed with `settings:write`, so
//! a client may write back what it read; sending it with any other value (a
//! different spelling of the same value included) needs the privileged scope.
//! A key the table does not know is privileged, so a new setting is safe by
//! default until it is classified.

use serde_json::Value;

use super::Settings;
use crate::scopes::{Scope, ScopeSet, SettingClass};

/// Every top-level setting and its class; `reminders` stands for each of its
/// keys. The one place the classification is stated.
pub const CLASSES: [(&str, SettingClass); 13] = [
    ("initialView", SettingClass::Display),
    ("firstDay", SettingClass::Display),
    ("timeFormat24h", SettingClass::Display),
    // The zone of every event without its own, so when its reminder fires.
    ("displayTimezone", SettingClass::Privileged),
    ("vaultPath", SettingClass::Privileged),
    // The vault name goes into the `obsidian://` links reminders open.
    ("vaultName", SettingClass::Privileged),
    ("calendarSources", SettingClass::Privileged),
    ("restServerEnabled", SettingClass::Privileged),
    ("localServerPort", SettingClass::Privileged),
    ("reminders", SettingClass::Privileged),
    ("caldavServer", SettingClass::Privileged),
    ("mcpServer", SettingClass::Privileged),
    ("publishedCalendars", SettingClass::Privileged),
];

/// The per-source flag only the user may set.
pub const PRIVATE_NETWORK_FLAG: &str = "allowPrivateNetwork";

/// The class of a top-level key. Unknown keys are privileged.
pub fn class_of(key: &str) -> SettingClass {
    CLASSES
        .iter()
        .find(|(name, _)| *name == key)
        .map_or(SettingClass::Privileged, |(_, class)| *class)
}

/// The keys of one class, for documentation and the token dialog.
pub fn keys_of(class: SettingClass) -> impl Iterator<Item = &'static str> {
    CLASSES
        .into_iter()
        .filter(move |(_, c)| *c == class)
        .map(|(key, _)| key)
}

/// What a scope lets a script change in the settings, in words the token
/// dialog shows next to it; `None` for scopes that change no setting.
pub fn settings_reach(scope: Scope) -> Option<String> {
    let keys = |class| keys_of(class).collect::<Vec<_>>().join(", ");
    match scope.info().settings? {
        SettingClass::Display => Some(format!(
            "Settings it can change: only how the calendar looks ({}).",
            keys(SettingClass::Display)
        )),
        SettingClass::Privileged => Some(format!(
            "Settings it can change: all of them, including what Almanac reads, writes, \
             fetches, opens and listens on ({}).",
            keys(SettingClass::Privileged)
        )),
    }
}

/// Who asks for a settings change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// The person at the computer: the desktop UI (settings window, tray)
    /// and the command line. May change every key.
    User,
    /// A script, through a token with these scopes (REST or in-process API).
    Token(ScopeSet),
}

/// Why a change was refused: the first key the actor may not change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("changing `{key}` needs the `{scope}` scope")]
    NeedsScope { key: String, scope: Scope },
    #[error(
        "`{key}` can only be set by the user, in Almanac's settings or its settings file; \
         no token can set it"
    )]
    UserOnly { key: String },
}

impl Actor {
    /// Checks a patch (see [`Settings::patched`]) against the class table
    /// before it is applied. Keys whose value does not change are not
    /// checked. Unknown keys pass here; [`Settings::patched`] refuses them.
    pub fn may_patch(self, current: &Settings, patch: &Value) -> Result<(), Refusal> {
        let Actor::Token(scopes) = self else {
            return Ok(());
        };
        let (Value::Object(patch), Value::Object(current)) = (
            patch,
            serde_json::to_value(current).expect("settings always serialize"),
        ) else {
            return Ok(());
        };
        for (key, value) in patch {
            let Some(now) = current.get(key) else {
                continue;
            };
            let changed = match (now, value) {
                // `reminders` merges one level: name the sub-key that changes.
                (Value::Object(now), Value::Object(update)) => update
                    .iter()
                    .find(|(sub, value)| now.get(*sub) != Some(value))
                    .map(|(sub, _)| format!("{key}.{sub}")),
                (now, value) => (now != value).then(|| key.clone()),
            };
            let class = class_of(key);
            if let Some(key) = changed
                && !scopes.grants(class.scope())
            {
                return Err(Refusal::NeedsScope {
                    key,
                    scope: class.scope(),
                });
            }
        }
        Ok(())
    }

    /// Checks the settings a patch produced for what only the user may do:
    /// turning a source's [`PRIVATE_NETWORK_FLAG`] on, or pointing a flagged
    /// source at another URL (which would carry the flag over to it). Turning
    /// the flag off, or keeping a flagged source as it is, is allowed.
    pub fn may_adopt(self, current: &Settings, next: &Settings) -> Result<(), Refusal> {
        if self == Actor::User {
            return Ok(());
        }
        // The reminder hook is a command Almanac runs as the user: a token
        // setting it could run anything.
        if current.reminders.hook_command != next.reminders.hook_command {
            return Err(Refusal::UserOnly {
                key: "reminders.hookCommand".to_string(),
            });
        }
        // The CalDAV server opens the calendars to every app holding a
        // token: no token may switch it on or move it.
        if current.caldav_server != next.caldav_server {
            return Err(Refusal::UserOnly {
                key: "caldavServer".to_string(),
            });
        }
        // The MCP server lets an assistant act with a token: only the user
        // opens that door.
        if current.mcp_server != next.mcp_server {
            return Err(Refusal::UserOnly {
                key: "mcpServer".to_string(),
            });
        }
        // Publishing sends a calendar's events, and the account's password
        // from the keyring, to a server: no token may add or move one.
        if current.published_calendars != next.published_calendars {
            return Err(Refusal::UserOnly {
                key: "publishedCalendars".to_string(),
            });
        }
        for (index, source) in next.calendar_sources.iter().enumerate() {
            // A CalDAV source is sent the user's password from the keyring:
            // no token may point one at another server.
            if source.kind.kind().uses_password()
                && !current
                    .calendar_sources
                    .iter()
                    .any(|old| old.id == source.id && old.kind == source.kind)
            {
                return Err(Refusal::UserOnly {
                    key: format!("calendarSources[{index}]"),
                });
            }
            if !source.kind.allows_private_network() {
                continue;
            }
            let unchanged = current
                .calendar_sources
                .iter()
                .any(|old| old.id == source.id && old.kind == source.kind);
            if !unchanged {
                return Err(Refusal::UserOnly {
                    key: format!("calendarSources[{index}].{PRIVATE_NETWORK_FLAG}"),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::KindSettings;
    use serde_json::json;

    fn token(scopes: &[Scope]) -> Actor {
        Actor::Token(scopes.iter().copied().collect())
    }

    #[test]
    fn every_setting_is_classified_once() {
        let Value::Object(keys) = serde_json::to_value(Settings::default()).unwrap() else {
            unreachable!()
        };
        for key in keys.keys() {
            let listed = CLASSES.iter().filter(|(name, _)| name == key).count();
            assert_eq!(listed, 1, "`{key}` must appear once in CLASSES");
        }
        assert_eq!(
            keys.len(),
            CLASSES.len(),
            "CLASSES lists a key that is gone"
        );
    }

    #[test]
    fn settings_write_changes_display_keys_only() {
        let current = Settings::default();
        let writer = token(&[Scope::SettingsWrite]);
        writer
            .may_patch(
                &current,
                &json!({"firstDay": 3, "initialView": "timeGridWeek"}),
            )
            .unwrap();
        for (patch, key) in [
            (json!({"displayTimezone": "Asia/Tokyo"}), "displayTimezone"),
            (json!({"vaultPath": "/"}), "vaultPath"),
            (json!({"calendarSources": []}), "calendarSources"),
            (json!({"restServerEnabled": true}), "restServerEnabled"),
            (json!({"localServerPort": 9000}), "localServerPort"),
            (
                json!({"reminders": {"allowedSchemes": ["file"]}}),
                "reminders.allowedSchemes",
            ),
            (
                json!({"firstDay": 1, "reminders": {"updateFeedUrl": "http://x"}}),
                "reminders.updateFeedUrl",
            ),
            (json!({"vaultName": "Other"}), "vaultName"),
            (
                json!({"reminders": {"vaultReminders": false}}),
                "reminders.vaultReminders",
            ),
            (
                json!({"reminders": {"defaultReminders": true}}),
                "reminders.defaultReminders",
            ),
            (
                json!({"reminders": {"defaultMinutes": 5}}),
                "reminders.defaultMinutes",
            ),
            (
                json!({"reminders": {"horizonDays": 7}}),
                "reminders.horizonDays",
            ),
        ] {
            let refusal = writer.may_patch(&current, &patch).unwrap_err();
            assert_eq!(
                refusal,
                Refusal::NeedsScope {
                    key: key.into(),
                    scope: Scope::SystemFullAccess
                },
                "{patch}"
            );
        }
        let full = token(&[Scope::SystemFullAccess]);
        full.may_patch(
            &current,
            &json!({"vaultPath": "/x", "reminders": {"daemonPort": 2000}}),
        )
        .unwrap();
        Actor::User
            .may_patch(&current, &json!({"vaultPath": "/x"}))
            .unwrap();
    }

    #[test]
    fn a_privileged_key_sent_unchanged_is_not_a_change() {
        let current = Settings::default();
        let mut echo = serde_json::to_value(&current).unwrap();
        echo["firstDay"] = json!(4);
        token(&[Scope::SettingsWrite])
            .may_patch(&current, &echo)
            .unwrap();
        let err = token(&[Scope::EventsRead])
            .may_patch(&current, &echo)
            .unwrap_err();
        assert_eq!(
            err,
            Refusal::NeedsScope {
                key: "firstDay".into(),
                scope: Scope::SettingsWrite
            }
        );
    }

    #[test]
    fn the_token_dialog_names_each_class() {
        let write = settings_reach(Scope::SettingsWrite).unwrap();
        let full = settings_reach(Scope::SystemFullAccess).unwrap();
        assert!(
            write.contains("firstDay") && !write.contains("vaultPath"),
            "{write}"
        );
        assert!(
            full.contains("vaultPath") && full.contains("reminders"),
            "{full}"
        );
        assert_eq!(settings_reach(Scope::SettingsRead), None);
    }

    fn with_feed(allow: bool, url: &str) -> Settings {
        let mut settings = Settings::default();
        settings
            .calendar_sources
            .push(super::super::CalendarSource {
                id: "feed".into(),
                name: "Feed".into(),
                color: "#000".into(),
                kind: KindSettings::Ical {
                    url: url.into(),
                    allow_private_network: allow,
                },
                order: None,
                components: None,
            });
        settings
    }

    #[test]
    fn only_the_user_sets_the_private_network_flag() {
        let full = token(&[Scope::SystemFullAccess]);
        let plain = with_feed(false, "http://10.0.0.1/a.ics");
        let flagged = with_feed(true, "http://10.0.0.1/a.ics");
        let moved = with_feed(true, "http://127.0.0.1:45677/");
        let key = "calendarSources[1].allowPrivateNetwork".to_string();
        let user_only = Refusal::UserOnly { key };
        assert_eq!(full.may_adopt(&plain, &flagged), Err(user_only.clone()));
        assert_eq!(full.may_adopt(&flagged, &moved), Err(user_only));
        full.may_adopt(&flagged, &flagged).unwrap();
        full.may_adopt(&flagged, &plain).unwrap();
        Actor::User.may_adopt(&plain, &moved).unwrap();
    }

    #[test]
    fn only_the_user_sets_or_clears_the_reminder_hook() {
        let none = Settings::default();
        let mut hooked = Settings::default();
        hooked.reminders.hook_command = Some("notify-send hi".into());
        let user_only = Err(Refusal::UserOnly {
            key: "reminders.hookCommand".to_string(),
        });
        let full = token(&[Scope::SystemFullAccess]);
        assert_eq!(full.may_adopt(&none, &hooked), user_only);
        assert_eq!(full.may_adopt(&hooked, &none), user_only);
        assert_eq!(full.may_adopt(&hooked, &hooked), Ok(()));
        assert_eq!(Actor::User.may_adopt(&none, &hooked), Ok(()));
    }

    #[test]
    fn only_the_user_publishes_a_calendar() {
        let current = Settings::default();
        let mut next = current.clone();
        next.published_calendars
            .push(crate::settings::PublishedCalendar {
                calendar_id: "local".into(),
                url: "https://dav.example.org/cal/".into(),
                username: "me".into(),
                poll_seconds: 60,
            });
        let full = token(&[Scope::SystemFullAccess]);
        assert_eq!(
            full.may_adopt(&current, &next),
            Err(Refusal::UserOnly {
                key: "publishedCalendars".into()
            })
        );
        assert_eq!(Actor::User.may_adopt(&current, &next), Ok(()));
        assert_eq!(full.may_adopt(&next, &next), Ok(()), "kept as it is");
    }

    #[test]
    fn only_the_user_adds_or_moves_a_caldav_calendar() {
        let full = token(&[Scope::SystemFullAccess]);
        let with_caldav = |url: &str| {
            let mut settings = Settings::default();
            settings
                .calendar_sources
                .push(super::super::CalendarSource {
                    id: "work".into(),
                    name: "Work".into(),
                    color: "#000".into(),
                    kind: KindSettings::Caldav {
                        url: url.into(),
                        username: "alice".into(),
                        calendar_url: String::new(),
                    },
                    order: None,
                    components: None,
                });
            settings
        };
        let none = Settings::default();
        let server = with_caldav("https://dav.example.com/");
        let moved = with_caldav("http://127.0.0.1:8540/");
        let user_only = Refusal::UserOnly {
            key: "calendarSources[1]".to_string(),
        };
        assert_eq!(full.may_adopt(&none, &server), Err(user_only.clone()));
        assert_eq!(full.may_adopt(&server, &moved), Err(user_only));
        full.may_adopt(&server, &server).unwrap();
        full.may_adopt(&server, &none).unwrap();
        Actor::User.may_adopt(&none, &moved).unwrap();
    }
}
