//! Which occurrence reminds, and when: a property of the event, whatever
//! its calendar's kind. The Full Calendar plugin's rule
//! (`NotificationManager.getTriggerTime`), widened to the event's own
//! alarms: `notify.value` minutes before the start, else its first alarm's
//! lead (an iCalendar `VALARM`, a note's `alarms`), else the default minutes
//! when default reminders are on.

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
    /// Events with their own alarm (`notify`, `alarms`) remind
    /// (`reminders.vaultReminders`).
    pub explicit: bool,
    /// Minutes before the start for events without an alarm, when
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
    /// the event asked for it; `None` when it does not remind.
    pub fn lead(&self, occurrence: &NoteOccurrence) -> Option<(f64, bool)> {
        if occurrence.completed {
            return None;
        }
        let own = occurrence
            .notify_minutes
            .or(occurrence.alarm_minutes.map(|m| m as f64));
        match own {
            Some(minutes) => self.explicit.then_some((minutes, true)),
            None => self.default_minutes.map(|m| (f64::from(m), false)),
        }
    }

    /// The reminder of `occurrence` of `note`, if it reminds. A note that is
    /// no vault file (a feed's, a CalDAV resource) has no path and nothing
    /// to open.
    pub fn reminder(
        &self,
        note: &NoteKey,
        in_vault_file: bool,
        occurrence: &NoteOccurrence,
    ) -> Option<VaultReminder> {
        let (minutes, explicit) = self.lead(occurrence)?;
        let start = DateTime::<Utc>::from_timestamp_millis(occurrence.start_millis)?;
        // `notify.value` may be fractional, as the plugin allows.
        let trigger = start - Duration::milliseconds((minutes * 60_000.0).round() as i64);
        Some(VaultReminder {
            id: reminder_id(&occurrence.event_id, occurrence.start_millis),
            event_id: occurrence.event_id.clone(),
            calendar_id: note.source_id.clone(),
            title: occurrence.title.clone(),
            path: if in_vault_file {
                note.path.clone()
            } else {
                String::new()
            },
            start,
            all_day: occurrence.all_day,
            trigger,
            minutes_before: minutes.round() as u32,
            explicit,
            action_url: if in_vault_file {
                open_url(&self.vault_name, &note.path)
            } else {
                String::new()
            },
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
            alarm_minutes: None,
            completed,
        }
    }

    fn with_alarm(notify: Option<f64>, alarm: i64) -> NoteOccurrence {
        NoteOccurrence {
            alarm_minutes: Some(alarm),
            ..occurrence(notify, false)
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
    fn an_alarm_reminds_when_there_is_no_notify_and_as_notify_does() {
        let on = rules(true, Some(10));
        assert_eq!(on.lead(&with_alarm(None, 30)), Some((30.0, true)));
        assert_eq!(on.lead(&with_alarm(Some(5.0), 30)), Some((5.0, true)));
        assert_eq!(on.lead(&with_alarm(None, 0)), Some((0.0, true)));
        // Own alarms off: an event with one does not fall back to the default.
        assert_eq!(rules(false, Some(10)).lead(&with_alarm(None, 30)), None);
        let done = NoteOccurrence {
            completed: true,
            ..with_alarm(None, 30)
        };
        assert_eq!(on.lead(&done), None);
    }

    #[test]
    fn a_reminder_of_no_vault_file_has_no_path_and_no_link() {
        let note = NoteKey {
            source_id: "dav".into(),
            path: "/calendars/alice/work/a.ics".into(),
        };
        let reminder = rules(true, None)
            .reminder(&note, false, &with_alarm(None, 15))
            .unwrap();
        assert_eq!(reminder.path, "");
        assert_eq!(reminder.action_url, "");
        assert_eq!(reminder.calendar_id, "dav");
        assert_eq!(reminder.minutes_before, 15);
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
            .reminder(&note, true, &occurrence(Some(1.5), false))
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
