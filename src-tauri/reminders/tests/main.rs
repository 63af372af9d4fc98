//! The reminder daemon's black-box tests, one binary with a module per
//! former test binary (each test keeps its name: `scheduling::…`). One
//! binary links once; cargo-nextest still runs each test in a process of
//! its own.
//!
//!     scripts/session.sh cargo nextest run -p almanac-reminders

mod common;

mod connections;
mod crash;
mod dbus_notifications;
mod http_routes;
mod live_config;
mod quarantine;
mod scheduling;
mod tolerant_sync;
mod updates;
mod vault_set;
