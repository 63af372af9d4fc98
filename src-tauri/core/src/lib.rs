//! Almanac's core: everything that is not the desktop shell.
//!
//! Nothing here depends on a GUI toolkit, so the whole crate is testable
//! headless. The desktop shell (`src-tauri`) only wires these parts to the OS.
//!
//! Layout, one module per concept:
//!
//! - [`paths`]: where config and data live (XDG dirs, overridable per instance).
//! - [`fsutil`]: crash-safe file writes (temp file, fsync, rename).
//! - [`settings`]: the one settings object, its JSON file and change notifications.
//! - [`calendar`]: the calendar engine — notes and ICS feeds cached in memory,
//!   queries, writes, and the file watcher.
//!
//! Later modules (tokens, in-process API, REST server) follow the
//! same pattern: a small public surface, storage behind small traits.

pub mod calendar;
pub mod clock;
pub mod fsutil;
pub mod paths;
pub mod rest;
pub mod settings;
pub mod tokens;
