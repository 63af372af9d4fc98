//! Vault reminders: the reminders Almanac derives from its calendars
//! itself, so they fire with no host (Obsidian may stay closed).
//!
//! The rules ([`rules`]), one for every kind of calendar (notes, daily
//! notes, Obsidian Tasks, ICS feeds, CalDAV): every occurrence starting in
//! the horizon reminds at its start minus its own alarm's minutes (a note's
//! `notify.value`, else the event's first alarm: an iCalendar `VALARM`
//! before the start, a note's `alarms`) when `reminders.vaultReminders` is
//! on (the default), else minus `reminders.defaultMinutes` when
//! `reminders.defaultReminders` is on (off by default, as in the Full
//! Calendar plugin). Done tasks never remind; skipped dates have no
//! occurrence.
//!
//! The horizon ([`horizon`]): occurrences starting from the grace window ago
//! (`reminders.graceWindowHours`) through `reminders.horizonDays` days ahead,
//! plus up to a day of slack, so the set moves forward once a day rather
//! than continuously. Memory is bounded by the horizon, not by the vault's
//! history.
//!
//! Freshness ([`follow`]): a thread follows the calendar engine and the
//! settings. After a vault edit, a feed refresh or a CalDAV sync only the
//! touched notes (a feed's body, a CalDAV resource) are expanded again (the
//! engine's note journal says which); a change of a reminder setting or
//! of `vaultName` derives the set again; a timer sleeps until the next moment
//! the set can change (a reminder leaving the grace window, the horizon
//! moving on). Each new set is published on a [`tokio::sync::watch`] channel
//! ([`crate::app::Core::vault_reminders`]).

use std::sync::Arc;

use chrono::{DateTime, Utc};

mod follow;
pub mod horizon;
pub mod rules;
mod set;

pub use follow::start;
pub use set::DerivedSet;

/// One reminder of one occurrence of a calendar event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaultReminder {
    /// Stable per occurrence: `<event id>::<start in epoch milliseconds>`
    /// (the Full Calendar plugin's host ends its ids of series occurrences
    /// with the same `start.toMillis()`); see [`rules::reminder_id`] for ids
    /// too long for the daemon.
    pub id: String,
    /// The event's id as the REST API shows it (see [`almanac_model::id`]).
    pub event_id: String,
    pub calendar_id: String,
    pub title: String,
    /// The vault-relative note (a daily-note item: its daily note); empty
    /// for an event of no vault file (an ICS feed's, a CalDAV calendar's).
    pub path: String,
    /// The occurrence's start (all-day: midnight in the display time zone).
    pub start: DateTime<Utc>,
    pub all_day: bool,
    pub trigger: DateTime<Utc>,
    /// How long before the start the reminder fires.
    pub minutes_before: u32,
    /// True when the event asks for it (`notify`, an alarm), false for a
    /// default one.
    pub explicit: bool,
    /// `obsidian://open?vault=<vault name>&file=<path>`, percent-encoded;
    /// empty when there is no vault file to open.
    pub action_url: String,
}

/// The whole current set of vault reminders.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VaultReminders {
    /// Sorted by trigger, then id.
    pub reminders: Vec<Arc<VaultReminder>>,
    /// Occurrences starting in `horizon_start..=horizon_end` are covered.
    pub horizon_start: DateTime<Utc>,
    pub horizon_end: DateTime<Utc>,
    /// Some series were cut short by the expansion ceiling, so reminders may
    /// be missing (their ids are logged).
    pub truncated: bool,
}
