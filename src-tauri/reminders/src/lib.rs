//! Almanac's reminder daemon (spec section B): a loopback HTTP service on
//! `127.0.0.1:45677` that receives the host's full set of future reminders,
//! stores them durably in sled, and fires a notification at each trigger.
//!
//! Layout, from the outside in:
//!
//! - [`daemon`] — [`Daemon::start`] and the [`DaemonHandle`] the shell keeps
//!   (address, upcoming, recently fired, the vault reminder set, snooze,
//!   open, reconfigure, shutdown).
//! - [`guard`], [`routes`], [`error`], [`answers`] — the HTTP side: browser
//!   hardening, one module per route family, JSON errors, the FCR-compatible
//!   parts of the read routes' answers. The loopback listener, the `Host`
//!   rule and panic-safe blocking work come from `almanac-loopback`, shared
//!   with the REST server.
//! - [`engine`] — the state and every change of it (sync, the vault set,
//!   snooze, fire), serialized, each committed durably before it is visible.
//! - [`dedup`] — one notification when a host and the vault remind of the
//!   same occurrence.
//! - [`scheduler`] — sleeps until the earliest trigger, fires on time.
//! - [`payload`], [`reminder`] — the request bodies' wire types, parsed
//!   with their JSON path and validated in one pass; the stored reminder
//!   and the field rules.
//! - [`schedule`], [`history`], [`store`] — the ordered in-memory index, the
//!   recently-fired record, and the sled store behind a small trait.
//! - [`notifier`], [`opener`] — the desktop boundary: notifications (D-Bus or
//!   log) with Open/Snooze actions, and opening `action_url`s.
//! - [`updates`] — opt-in, cached release awareness.
//! - [`config`], [`clock`] — what the daemon is told; wall-clock helpers.
//!
//! This crate never depends on tauri; the shell fills [`DaemonConfig`] from
//! its settings (again on every change, through
//! [`DaemonHandle::reconfigure`]) and may plug in its own [`Notifier`].

pub mod answers;
pub mod clock;
pub mod config;
pub mod daemon;
pub mod dedup;
pub mod engine;
pub mod error;
pub mod guard;
pub mod history;
pub mod notifier;
pub mod opener;
pub mod payload;
pub mod reminder;
pub mod routes;
pub mod schedule;
pub mod scheduler;
pub mod store;
pub mod updates;

pub use config::{DaemonConfig, Limits, UpdateConfig};
pub use daemon::{Daemon, DaemonHandle, ReconfigureError, StartError};
pub use engine::{ActionError, Scheduled};
pub use history::{HistoryEntry, Origin, Outcome};
pub use notifier::{
    DbusNotifier, LogNotifier, Notification, Notifier, NotifierInfo, ReminderActions, summary_text,
    system_notifier,
};
pub use opener::{OpenError, Opener, SystemOpener};
pub use reminder::{EventRef, Reminder, Source};
pub use routes::DiagnosticsProvider;
pub use schedule::SyncSummary;
