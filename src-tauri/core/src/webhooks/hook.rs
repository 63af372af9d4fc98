//! One webhook as the user sets it: where deliveries go, which change-feed
//! entries it wants, and whether it is on.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::changes::ChangeKind;

/// Every change-feed entry type, the ones a hook may ask for.
pub const ENTRY_TYPES: [ChangeKind; 5] = [
    ChangeKind::EventCreated,
    ChangeKind::EventUpdated,
    ChangeKind::EventDeleted,
    ChangeKind::CalendarStatus,
    ChangeKind::ReminderFired,
];

/// Longest URL accepted, in bytes.
pub const MAX_URL_BYTES: usize = 2048;

/// The entry type's name, as the feed and the delivery's `type` spell it
/// (`event.created`).
pub fn type_name(kind: ChangeKind) -> String {
    match serde_json::to_value(kind) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{kind:?}"),
    }
}

/// A hook. Its signing secret is not here: it lives in the OS keyring only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hook {
    pub id: Uuid,
    pub url: String,
    /// The entry types delivered (`event.created`, …).
    pub events: Vec<String>,
    pub enabled: bool,
    /// Why Almanac turned the hook off, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<String>,
    /// Deliveries in a row that failed every attempt (0 after a success).
    #[serde(default)]
    pub consecutive_failures: u32,
    pub created_at: DateTime<Utc>,
}

impl Hook {
    /// Whether an entry of `kind` goes to this hook now.
    pub fn wants(&self, kind: ChangeKind) -> bool {
        let name = type_name(kind);
        self.enabled && self.events.contains(&name)
    }
}

/// What the user asks for when adding a hook.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewHook {
    pub url: String,
    pub events: Vec<String>,
}

/// Why a new hook was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidHook {
    #[error("the URL is not valid: {0}")]
    Url(String),
    #[error("the URL must start with http:// or https://")]
    Scheme,
    #[error(
        "the URL must not carry a user name or password: deliveries are signed, \
         and the URL is stored in plain text"
    )]
    Credentials,
    #[error("the URL is longer than {MAX_URL_BYTES} bytes")]
    TooLong,
    #[error("choose at least one entry type")]
    NoEvents,
    #[error(
        "unknown entry type `{0}` (known: event.created, event.updated, event.deleted, calendar.status, reminder.fired)"
    )]
    UnknownEvent(String),
}

impl NewHook {
    /// The hook this request makes, enabled, or why it cannot be one.
    /// Entry types are kept in the feed's order, each once.
    pub fn validated(self, now: DateTime<Utc>) -> Result<Hook, InvalidHook> {
        let url = self.url.trim();
        if url.len() > MAX_URL_BYTES {
            return Err(InvalidHook::TooLong);
        }
        let parsed = url::Url::parse(url).map_err(|e| InvalidHook::Url(e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(InvalidHook::Scheme);
        }
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(InvalidHook::Url("it has no host".into()));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(InvalidHook::Credentials);
        }
        if let Some(unknown) = self
            .events
            .iter()
            .find(|e| !ENTRY_TYPES.iter().any(|k| type_name(*k) == **e))
        {
            return Err(InvalidHook::UnknownEvent(unknown.clone()));
        }
        let events: Vec<String> = ENTRY_TYPES
            .iter()
            .map(|k| type_name(*k))
            .filter(|name| self.events.contains(name))
            .collect();
        if events.is_empty() {
            return Err(InvalidHook::NoEvents);
        }
        Ok(Hook {
            id: Uuid::new_v4(),
            url: parsed.to_string(),
            events,
            enabled: true,
            disabled_reason: None,
            consecutive_failures: 0,
            created_at: now,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(url: &str, events: &[&str]) -> Result<Hook, InvalidHook> {
        NewHook {
            url: url.into(),
            events: events.iter().map(|e| e.to_string()).collect(),
        }
        .validated(Utc::now())
    }

    #[test]
    fn a_loopback_http_hook_is_accepted_with_its_types_in_feed_order() {
        let hook = new(
            "http://127.0.0.1:9000/hook",
            &["reminder.fired", "event.created", "event.created"],
        )
        .unwrap();
        assert_eq!(hook.url, "http://127.0.0.1:9000/hook");
        assert_eq!(hook.events, ["event.created", "reminder.fired"]);
        assert!(hook.enabled);
        assert!(hook.wants(ChangeKind::ReminderFired));
        assert!(!hook.wants(ChangeKind::EventDeleted));
    }

    #[test]
    fn bad_urls_and_types_are_refused_with_a_reason() {
        let all = ["event.created"];
        assert_eq!(new("ftp://example.com/", &all), Err(InvalidHook::Scheme));
        assert_eq!(new("file:///etc/passwd", &all), Err(InvalidHook::Scheme));
        assert!(matches!(new("not a url", &all), Err(InvalidHook::Url(_))));
        assert_eq!(
            new("https://user:pw@example.com/", &all),
            Err(InvalidHook::Credentials)
        );
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_BYTES));
        assert_eq!(new(&long, &all), Err(InvalidHook::TooLong));
        assert_eq!(new("https://example.com/", &[]), Err(InvalidHook::NoEvents));
        assert_eq!(
            new("https://example.com/", &["task.created"]),
            Err(InvalidHook::UnknownEvent("task.created".into()))
        );
    }

    #[test]
    fn a_disabled_hook_wants_nothing() {
        let mut hook = new("https://example.com/", &["event.created"]).unwrap();
        hook.enabled = false;
        assert!(!hook.wants(ChangeKind::EventCreated));
    }
}
