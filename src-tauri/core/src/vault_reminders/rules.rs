//! Which occurrence reminds, and when: the Full Calendar plugin's rule
//! (`NotificationManager.getTriggerTime`): `notify.value` minutes before the
//! start, else the default minutes when default reminders are on.

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use url::form_urlencoded;

use super::VaultReminder;
use crate::calendar::{NoteKey, NoteOccurrence};
use crate::settings::Settings;

/// The longest reminder id the reminder daemon takes (its `id` limit).
pub const MAX_ID_BYTES: usize = 256;

/// The settings vault reminders follow.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// Notes with `notify` remind (`reminders.vaultReminders`).
    pub explicit: bool,
    /// Minutes before the start for events without `notify`, when
    /// `reminders.defaultReminders` is on.
    pub default_minutes: Option<u32>,
    pub horizon_days: u32,
    pub grace_hours: u32,
    /// The vault's name in `obsidian://` links.
    pub vault_name: String,
}

impl Rules {
    pub fn from_settings(settings: &Settings) -> Rules {
        let reminders = &settings.reminders;
        Rules {
            explicit: reminders.vault_reminders,
            default_minutes: reminders
                .default_reminders
                .then_some(reminders.default_minutes),
            horizon_days: reminders.horizon_days,
            grace_hours: reminders.grace_window_hours,
            vault_name: settings.vault_name(),
        }
    }

    /// How many minutes before its start `occurrence` reminds, and whether
    /// the note asked for it; `None` when it does not remind.
    pub fn lead(&self, occurrence: &NoteOccurrence) -> Option<(f64, bool)> {
        if occurrence.completed {
            return None;
        }
        match occurrence.notify_minutes {
            Some(minutes) => self.explicit.then_some((minutes, true)),
            None => self.default_minutes.map(|m| (f64::from(m), false)),
        }
    }

    /// The reminder of `occurrence` of `note`, if it reminds.
    pub fn reminder(&self, note: &NoteKey, occurrence: &NoteOccurrence) -> Option<VaultReminder> {
        let (minutes, explicit) = self.lead(occurrence)?;
        let start = DateTime::<Utc>::from_timestamp_millis(occurrence.start_millis)?;
        // `notify.value` may be fractional, as the plugin allows.
        let trigger = start - Duration::milliseconds((minutes * 60_000.0).round() as i64);
        Some(VaultReminder {
            id: reminder_id(&occurrence.event_id, occurrence.start_millis),
            event_id: occurrence.event_id.clone(),
            calendar_id: note.source_id.clone(),
            title: occurrence.title.clone(),
            path: note.path.clone(),
            start,
            all_day: occurrence.all_day,
            trigger,
            minutes_before: minutes.round() as u32,
            explicit,
            action_url: open_url(&self.vault_name, &note.path),
        })
    }
}

/// `<event id>::<start millis>`; an id longer than [`MAX_ID_BYTES`] (a deep
/// note path) names its event by a hash instead: `sha256:<32 hex>::<start>`.
pub fn reminder_id(event_id: &str, start_millis: i64) -> String {
    let id = format!("{event_id}::{start_millis}");
    if id.len() <= MAX_ID_BYTES {
        return id;
    }
    let digest = Sha256::digest(event_id.as_bytes());
    let hash: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hash}::{start_millis}")
}

/// `obsidian://open?vault=<vault>&file=<path>`, each value percent-encoded
/// as the plugin's `encodeURIComponent` does (a space is `%20`, `/` is
/// `%2F`).
pub fn open_url(vault: &str, path: &str) -> String {
    format!(
        "obsidian://open?vault={}&file={}",
        component(vault),
        component(path)
    )
}

/// One URL component. The form encoder writes a space as `+` and a `+` as
/// `%2B`, so every `+` it leaves stands for a space.
fn component(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occurrence(notify: Option<f64>, completed: bool) -> NoteOccurrence {
        NoteOccurrence {
            event_id: "fullnote:events/a.md".into(),
            title: "A".into(),
            start_millis: 1_800_000_000_000,
            all_day: false,
            notify_minutes: notify,
            completed,
        }
    }

    fn rules(explicit: bool, default_minutes: Option<u32>) -> Rules {
        Rules {
            explicit,
            default_minutes,
            horizon_days: 30,
            grace_hours: 24,
            vault_name: "My Vault".into(),
        }
    }

    #[test]
    fn notify_wins_then_the_default_and_done_tasks_never_remind() {
        let on = rules(true, Some(10));
        assert_eq!(on.lead(&occurrence(Some(15.0), false)), Some((15.0, true)));
        assert_eq!(on.lead(&occurrence(None, false)), Some((10.0, false)));
        assert_eq!(on.lead(&occurrence(Some(15.0), true)), None);
        assert_eq!(rules(true, None).lead(&occurrence(None, false)), None);
        assert_eq!(rules(false, None).lead(&occurrence(Some(5.0), false)), None);
        assert_eq!(
            rules(false, Some(10)).lead(&occurrence(Some(5.0), false)),
            None
        );
    }

    #[test]
    fn an_id_too_long_for_the_daemon_names_its_event_by_hash() {
        let long = format!("fullnote:{}.md", "deep/".repeat(60));
        let id = reminder_id(&long, -5);
        assert!(id.len() <= MAX_ID_BYTES);
        assert!(id.starts_with("sha256:") && id.ends_with("::-5"), "{id}");
        assert_eq!(id, reminder_id(&long, -5), "stable");
        assert_ne!(id, reminder_id(&format!("{long}x"), -5));
        assert_eq!(reminder_id("fullnote:a.md", 7), "fullnote:a.md::7");
    }

    #[test]
    fn the_reminder_carries_its_occurrence_and_link() {
        let note = NoteKey {
            source_id: "local".into(),
            path: "events/a b+c.md".into(),
        };
        let reminder = rules(true, None)
            .reminder(&note, &occurrence(Some(1.5), false))
            .unwrap();
        assert_eq!(reminder.id, "fullnote:events/a.md::1800000000000");
        assert_eq!(
            reminder.trigger.timestamp_millis(),
            1_800_000_000_000 - 90_000
        );
        assert_eq!(
            reminder.action_url,
            "obsidian://open?vault=My%20Vault&file=events%2Fa%20b%2Bc.md"
        );
    }
}
