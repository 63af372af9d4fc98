//! The `reminders` section: the reminder daemon, vault reminders, and the
//! command run when a reminder fires.

use almanac_loopback::defaults;
use serde::{Deserialize, Serialize};

use super::{MIN_PORT, SettingsError};

/// Reminder daemon options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ReminderSettings {
    /// The daemon's loopback port (45677 by contract; configurable for tests).
    pub daemon_port: u16,
    /// Reminders missed while the app was closed fire on start if they are at
    /// most this old; older ones are dropped (and recorded).
    pub grace_window_hours: u32,
    /// `action_url` schemes a reminder may carry.
    pub allowed_schemes: Vec<String>,
    /// Release feed checked in the background when `check_updates` is on.
    pub update_feed_url: Option<String>,
    /// Opt-in release awareness; off by default (no network unless asked).
    pub check_updates: bool,
    /// Notes with an explicit `notify: {value}` remind, read from the vault.
    pub vault_reminders: bool,
    /// Vault events without `notify` remind `default_minutes` before they
    /// start. Off until the user turns it on.
    pub default_reminders: bool,
    /// Minutes before the start for default reminders (0 to 10080, a week).
    pub default_minutes: u32,
    /// How many days ahead vault reminders are derived (1 to 366); the set
    /// rolls forward with the clock.
    pub horizon_days: u32,
    /// A command run (by the shell: `sh -c` on Linux and macOS, `cmd /C` on
    /// Windows) each time a reminder fires, with the reminder as JSON on
    /// its standard input. Only the user sets it, never a token.
    pub hook_command: Option<String>,
}

/// The longest `reminders.hookCommand`, in characters.
pub const MAX_HOOK_COMMAND_CHARS: usize = 4096;

/// The Full Calendar plugin's own `defaultReminderMinutes` default.
pub const DEFAULT_REMINDER_MINUTES: u32 = 10;
/// The largest `reminders.defaultMinutes`: a week.
pub const MAX_DEFAULT_MINUTES: u32 = 7 * 24 * 60;
/// The range of `reminders.horizonDays`.
pub const HORIZON_DAYS: std::ops::RangeInclusive<u32> = 1..=366;

impl Default for ReminderSettings {
    fn default() -> Self {
        Self {
            // Shared with the daemon's own configuration.
            daemon_port: defaults::REMINDER_PORT,
            grace_window_hours: defaults::GRACE_WINDOW_HOURS,
            allowed_schemes: defaults::allowed_schemes(),
            update_feed_url: None,
            check_updates: false,
            vault_reminders: true,
            default_reminders: false,
            default_minutes: DEFAULT_REMINDER_MINUTES,
            horizon_days: 30,
            hook_command: None,
        }
    }
}

impl ReminderSettings {
    /// Checks what serde cannot express; keys are named as in the file.
    pub(super) fn validate(&self) -> Result<(), SettingsError> {
        let invalid = |key: &str, reason: String| SettingsError::Invalid {
            key: key.to_string(),
            reason,
        };
        if self.daemon_port < MIN_PORT {
            return Err(invalid(
                "reminders.daemonPort",
                format!("{} is outside {MIN_PORT}-65535", self.daemon_port),
            ));
        }
        if self.default_minutes > MAX_DEFAULT_MINUTES {
            return Err(invalid(
                "reminders.defaultMinutes",
                format!(
                    "{} is outside 0-{MAX_DEFAULT_MINUTES}",
                    self.default_minutes
                ),
            ));
        }
        if !HORIZON_DAYS.contains(&self.horizon_days) {
            return Err(invalid(
                "reminders.horizonDays",
                format!(
                    "{} is outside {}-{}",
                    self.horizon_days,
                    HORIZON_DAYS.start(),
                    HORIZON_DAYS.end()
                ),
            ));
        }
        if let Some(command) = &self.hook_command
            && (command.trim().is_empty() || command.chars().count() > MAX_HOOK_COMMAND_CHARS)
        {
            return Err(invalid(
                "reminders.hookCommand",
                format!("a command of 1-{MAX_HOOK_COMMAND_CHARS} characters, or null for none"),
            ));
        }
        Ok(())
    }
}
