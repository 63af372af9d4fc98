//! Feeds the reminders Almanac derives from the vault (the core's
//! [`VaultReminders`] channel) to the reminder daemon, which keeps them next
//! to a host's `/sync` set: each new set is pushed whole, and again whenever
//! a daemon (re)starts. The reminders crate does not know the core; this is
//! where one's value becomes the other's.

use std::sync::Arc;

use almanac_core::vault_reminders::{VaultReminder, VaultReminders};
use almanac_reminders::{DaemonHandle, EventRef, Reminder, Source};
use tokio::sync::{Mutex, watch};

/// The core's vault reminder set, and the one lock that orders pushes of it.
pub struct VaultFeed {
    sets: watch::Receiver<Arc<VaultReminders>>,
    /// Each push sends the set current when it takes this lock, so the last
    /// push always carries the newest set, whoever pushed in between.
    pushing: Mutex<()>,
}

impl VaultFeed {
    pub fn new(sets: watch::Receiver<Arc<VaultReminders>>) -> Self {
        Self {
            sets,
            pushing: Mutex::new(()),
        }
    }

    /// A receiver that wakes on every new set.
    pub fn subscribe(&self) -> watch::Receiver<Arc<VaultReminders>> {
        self.sets.clone()
    }

    /// Replaces `daemon`'s vault reminders with the current set.
    pub async fn push(&self, daemon: &DaemonHandle) {
        let _ordered = self.pushing.lock().await;
        let set = self.sets.borrow().clone();
        let reminders = set.reminders.iter().map(|r| to_daemon(r)).collect();
        match daemon.replace_vault_reminders(reminders).await {
            Ok(summary) => tracing::debug!(
                received = summary.received,
                scheduled = summary.scheduled,
                deduplicated = summary.deduplicated,
                "vault reminders handed to the daemon"
            ),
            Err(error) => tracing::error!("cannot store vault reminders: {error}"),
        }
    }
}

/// The daemon's reminder for one vault occurrence. The trigger is rounded
/// down to the second, as the Full Calendar plugin's host rounds it, so the
/// two copies of one occurrence meet (see the daemon's `dedup`).
fn to_daemon(reminder: &VaultReminder) -> Reminder {
    Reminder {
        id: reminder.id.clone(),
        title: reminder.title.clone(),
        body: body(reminder),
        trigger_at_epoch: reminder.trigger.timestamp_millis().div_euclid(1000),
        action_url: reminder.action_url.clone(),
        source: Source::Vault,
        event: Some(Box::new(EventRef {
            id: reminder.event_id.clone(),
            title: reminder.title.clone(),
            path: reminder.path.clone(),
            start: reminder.start.to_rfc3339(),
        })),
    }
}

/// "Starts in 10 minutes", "All day, starts now", …
fn body(reminder: &VaultReminder) -> String {
    let when = match reminder.minutes_before {
        0 => "starts now".to_string(),
        1 => "starts in 1 minute".to_string(),
        n => format!("starts in {n} minutes"),
    };
    if reminder.all_day {
        format!("All day, {when}")
    } else {
        let mut text = when;
        text[..1].make_ascii_uppercase();
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault_reminder(trigger_ms: i64, minutes_before: u32, all_day: bool) -> VaultReminder {
        let at = |ms| chrono::DateTime::from_timestamp_millis(ms).unwrap();
        VaultReminder {
            id: "fullnote:events/a.md::1800000000000".into(),
            event_id: "fullnote:events/a.md".into(),
            calendar_id: "local".into(),
            title: "A".into(),
            path: "events/a.md".into(),
            start: at(1_800_000_000_000),
            all_day,
            trigger: at(trigger_ms),
            minutes_before,
            explicit: true,
            action_url: "obsidian://open?vault=V&file=events%2Fa.md".into(),
        }
    }

    #[test]
    fn a_vault_occurrence_becomes_a_vault_reminder_with_its_event() {
        // notify: 1.5 minutes: the trigger falls on a half second.
        let daemon = to_daemon(&vault_reminder(1_800_000_000_000 - 90_500, 2, false));
        assert_eq!(daemon.trigger_at_epoch, 1_800_000_000 - 91);
        assert_eq!(daemon.source, Source::Vault);
        assert_eq!(daemon.body, "Starts in 2 minutes");
        let event = daemon.event.unwrap();
        assert_eq!(event.path, "events/a.md");
        assert_eq!(event.id, "fullnote:events/a.md");
        assert!(
            event.start.starts_with("2027-01-15T08:00:00"),
            "{}",
            event.start
        );
        let all_day = to_daemon(&vault_reminder(1_800_000_000_000, 0, true));
        assert_eq!(all_day.body, "All day, starts now");
    }
}
