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

/// Runs the subcommands both binaries share (`events`/`agenda`/
/// `calendars`/`reminders`, `token`, `mcp`) when the command line names one;
/// `None` leaves it to the binary. `program` is how messages name it.
pub fn subcommand(program: &str) -> Option<std::process::ExitCode> {
    if let Some(code) = events_cli::dispatch(program, std::env::args()) {
        return Some(code);
    }
    match std::env::args().nth(1).as_deref() {
        Some("token") => Some(token_cli::main(std::env::args().skip(2))),
        Some("mcp") => Some(mcp_cli::main(std::env::args().skip(2))),
        _ => None,
    }
}
