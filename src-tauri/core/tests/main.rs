//! Almanac-core's integration tests, one binary with a module per former
//! test binary (so each test keeps its name: `rest::auth::…`, `api::…`).
//! One binary links once instead of thirty times; cargo-nextest still runs
//! every test in a process of its own, so none shares a keyring handle, a
//! tracing subscriber or a peak-memory count with another.
//!
//!     scripts/session.sh cargo nextest run -p almanac-core -E 'test(/^rest::/)'
//!
//! `tokens_keyring_unavailable.rs` stays a binary of its own: it points the
//! whole process's D-Bus address at nothing.

mod common;

mod api;
mod caldav;
mod caldav_source;
mod calendar_detach;
mod calendar_fields;
mod calendar_holidays;
mod calendar_ics_file;
mod calendar_move;
mod calendar_query;
mod calendar_shapes;
mod calendar_sources;
mod calendar_tasks;
mod calendar_vault;
mod calendar_watch;
mod calendar_write;
mod events;
mod history_crash;
mod ics_bounds;
mod ics_differential;
mod layout;
mod mcp;
mod obsidian_vaults;
mod onboarding;
mod onboarding_plugins;
mod private_files;
mod publish;
mod quick_add;
mod rest;
mod settings_load;
mod source_contract;
mod tokens_keyring;
mod vault_reminders;
mod webhooks;
