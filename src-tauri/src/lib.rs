//! The part of Almanac's shell that needs no desktop: command-line parsing,
//! the wiring of one running instance (core, REST server, reminder daemon),
//! headless mode and the `token` / feed commands. Both binaries use it:
//! `almanac` (`main.rs`) adds the desktop around it, `almanac-server`
//! (`server.rs`) runs it as it is. Nothing here references tauri, so
//! `almanac-server` links no WebKitGTK or GTK.

pub mod cli;
mod diagnostics;
pub mod events_cli;
pub mod feeds;
pub mod headless;
pub mod mcp_cli;
mod reminder_daemon;
mod reminder_fired;
pub mod token_cli;
mod vault_feed;
pub mod wiring;
