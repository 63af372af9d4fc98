//! The reminder as the daemon keeps it (in memory, in the store, in the
//! history) and the rules every field must meet.
//!
//! The wire types and their parsing live in [`crate::payload`], which turns
//! a validated `/sync` element into a [`Reminder`]; this module says what a
//! valid value is, so `/sync`, `/snooze` and the handle's `snooze` share one
//! definition.

use serde::{Deserialize, Serialize};

use crate::config::{DaemonConfig, Limits};

/// The last second `rfc3339` can print with four year digits
/// (9999-12-31T23:59:59Z); later triggers are refused as nonsense.
pub const MAX_TRIGGER_EPOCH: i64 = 253_402_300_799;

/// Snooze durations accepted by `/snooze`, in minutes (one minute to a week).
pub const SNOOZE_MINUTES: std::ops::RangeInclusive<i64> = 1..=10_080;

/// A pending or past reminder, as stored (sled JSON) and shown. Not the wire
/// type: `/sync` elements are [`crate::payload::SyncItem`]s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reminder {
    pub id: String,
    pub title: String,
    pub body: String,
    /// Unix epoch seconds.
    pub trigger_at_epoch: i64,
    /// Opened when the notification is activated; may be empty (no action).
    pub action_url: String,
    /// Who supplied it. Records written before vault reminders existed have
    /// no such key: they came from a host.
    #[serde(default)]
    pub source: Source,
    /// The calendar event a vault reminder is for (hosts send no such
    /// thing). Boxed: most reminders have none, and every notification
    /// carries a reminder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Box<EventRef>>,
}

/// Where a reminder came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A host program's `POST /sync` (the Full Calendar plugin, say).
    #[default]
    Host,
    /// Derived by Almanac itself from the vault's notes.
    Vault,
}

/// The vault event a reminder belongs to, for the Reminders window and the
/// read routes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRef {
    /// The calendar's event id (`fullnote:events/Standup.md`, …).
    pub id: String,
    pub title: String,
    /// The note, relative to the vault.
    pub path: String,
    /// The occurrence's start, as the calendar writes it.
    pub start: String,
}

impl Reminder {
    /// A reminder a host sent (no event attached).
    pub fn from_host(
        id: String,
        title: String,
        body: String,
        trigger_at_epoch: i64,
        action_url: String,
    ) -> Self {
        Self {
            id,
            title,
            body,
            trigger_at_epoch,
            action_url,
            source: Source::Host,
            event: None,
        }
    }

    /// The trigger instant in epoch milliseconds.
    pub fn trigger_ms(&self) -> i64 {
        self.trigger_at_epoch.saturating_mul(1000)
    }

    /// The same reminder, due again `minutes` after `now_epoch`.
    pub fn snoozed(self, now_epoch: i64, minutes: i64) -> Reminder {
        Reminder {
            trigger_at_epoch: now_epoch + minutes * 60,
            ..self
        }
    }
}

/// The rules a payload is checked against. They are about the shape of
/// each value only: whether a trigger lies in the past is decided when the
/// sync is planned (see [`crate::schedule::Schedule::plan_sync`]), because a
/// slightly late item is accepted and fired at once rather than refused.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    pub limits: &'a Limits,
    pub allowed_schemes: &'a [String],
}

impl<'a> Rules<'a> {
    /// The rules of `config` (its limits and scheme allowlist).
    pub fn of(config: &'a DaemonConfig) -> Self {
        Self {
            limits: &config.limits,
            allowed_schemes: &config.allowed_schemes,
        }
    }

    pub fn check_id(&self, id: &str) -> Result<(), String> {
        if id.is_empty() {
            return Err("must not be empty".into());
        }
        self.check_string(id, self.limits.max_id_bytes)
    }

    pub fn check_text(&self, text: &str) -> Result<(), String> {
        self.check_string(text, self.limits.max_text_bytes)
    }

    /// Size, and a scheme from the allowlist, so no payload can make a click
    /// run a local file (`file:`, `javascript:`, custom handlers).
    pub fn check_action_url(&self, url: &str) -> Result<(), String> {
        self.check_string(url, self.limits.max_url_bytes)?;
        if url.is_empty() || scheme_allowed(url, self.allowed_schemes) {
            Ok(())
        } else {
            Err(format!(
                "scheme of {:?} is not allowed (allowed: {})",
                truncate(url, 64),
                self.allowed_schemes.join(", ")
            ))
        }
    }

    /// At most the year 9999. Past triggers pass here: see [`Rules`].
    pub fn check_trigger(&self, trigger_at_epoch: i64) -> Result<(), String> {
        if trigger_at_epoch > MAX_TRIGGER_EPOCH {
            Err(format!(
                "{trigger_at_epoch} is after the year 9999 (at most {MAX_TRIGGER_EPOCH})"
            ))
        } else {
            Ok(())
        }
    }

    pub fn check_minutes(&self, minutes: i64) -> Result<(), String> {
        if SNOOZE_MINUTES.contains(&minutes) {
            Ok(())
        } else {
            Err(format!(
                "{minutes} is outside {}..={}",
                SNOOZE_MINUTES.start(),
                SNOOZE_MINUTES.end()
            ))
        }
    }

    /// Every field of a reminder, in the order a problem is reported: the
    /// one validation of what `/sync` stores and a snooze schedules.
    pub fn check_reminder(&self, reminder: &Reminder) -> Result<(), (&'static str, String)> {
        self.check_id(&reminder.id).map_err(|e| ("id", e))?;
        self.check_text(&reminder.title).map_err(|e| ("title", e))?;
        self.check_text(&reminder.body).map_err(|e| ("body", e))?;
        self.check_trigger(reminder.trigger_at_epoch)
            .map_err(|e| ("trigger_at_epoch", e))?;
        self.check_action_url(&reminder.action_url)
            .map_err(|e| ("action_url", e))
    }

    /// Size, and no NUL anywhere: D-Bus strings cannot carry it, so such a
    /// reminder could never be shown.
    pub fn check_string(&self, value: &str, max_bytes: usize) -> Result<(), String> {
        if value.len() > max_bytes {
            Err(format!(
                "is {} bytes long (at most {max_bytes})",
                value.len()
            ))
        } else if value.contains('\0') {
            Err("must not contain NUL characters".into())
        } else {
            Ok(())
        }
    }
}

/// The scheme of an absolute URL (RFC 3986: a letter, then letters, digits,
/// `+`, `-`, `.`, up to the first `:`).
pub fn url_scheme(url: &str) -> Option<&str> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first_is_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (first_is_letter && rest_ok).then_some(scheme)
}

/// Whether `url` has a scheme on the allowlist (case-insensitive).
pub fn scheme_allowed(url: &str, allowed: &[String]) -> bool {
    url_scheme(url).is_some_and(|scheme| allowed.iter().any(|a| a.eq_ignore_ascii_case(scheme)))
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schemes() -> Vec<String> {
        ["obsidian", "https"].map(String::from).to_vec()
    }

    #[test]
    fn schemes_follow_rfc_3986_and_ignore_case() {
        assert_eq!(url_scheme("obsidian://open?x"), Some("obsidian"));
        assert_eq!(url_scheme("web+cal:x"), Some("web+cal"));
        assert_eq!(url_scheme("1http://x"), None);
        assert_eq!(url_scheme("/no/scheme"), None);
        assert_eq!(url_scheme(":x"), None);
        assert!(scheme_allowed("HTTPS://example.org", &schemes()));
        assert!(!scheme_allowed("file:///etc/passwd", &schemes()));
        assert!(!scheme_allowed("javascript:alert(1)", &schemes()));
        assert!(!scheme_allowed("obsidian", &schemes()));
    }

    #[test]
    fn rules_refuse_nul_oversized_values_and_triggers_after_9999() {
        let limits = Limits::default();
        let schemes = schemes();
        let rules = Rules {
            limits: &limits,
            allowed_schemes: &schemes,
        };
        assert!(rules.check_trigger(1_000).is_ok());
        assert!(rules.check_trigger(MAX_TRIGGER_EPOCH).is_ok());
        assert!(rules.check_trigger(MAX_TRIGGER_EPOCH + 1).is_err());
        assert!(rules.check_id("").is_err());
        assert!(rules.check_id(&"x".repeat(257)).is_err());
        assert!(rules.check_text("a\0b").is_err());
        assert!(rules.check_action_url("").is_ok());
        assert!(rules.check_action_url("file:///x").is_err());
        assert!(rules.check_minutes(0).is_err());
        assert!(rules.check_minutes(10_081).is_err());
        assert!(rules.check_minutes(10_080).is_ok());
    }
}
