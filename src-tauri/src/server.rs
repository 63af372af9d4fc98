//! `almanac-server`: Almanac for machines without a desktop — the calendar
//! REST server and the reminder daemon, plus `almanac-server token …`.
//!
//! It is `almanac --headless` built without the desktop modules, so nothing
//! references tauri and the linker drops WebKitGTK and GTK entirely: the
//! process maps none of them (`almanac --headless` still does, being the same
//! executable as the tray app).

use std::process::ExitCode;

use almanac::{cli, headless};

const USAGE: &str = "\
Usage: almanac-server [--vault DIR]
       almanac-server token create|list|revoke ...   (see `almanac-server token --help`)
       almanac-server events|agenda|calendars|reminders ...   (see `almanac-server events --help`)
       almanac-server mcp   (MCP for AI assistants on stdin/stdout; see `almanac-server mcp --help`)

Runs the calendar REST server and the reminder daemon, with no windows, until
SIGINT or SIGTERM. The desktop app is `almanac`.

Config: $XDG_CONFIG_HOME/almanac/settings.json   Data: $XDG_DATA_HOME/almanac/
Log level: ALMANAC_LOG=debug";

fn main() -> ExitCode {
    almanac_core::allocator::return_large_buffers();
    if let Some(code) = almanac::subcommand("almanac-server") {
        return code;
    }
    let args = match cli::Args::parse(std::env::args().skip(1)) {
        Ok(args) if args.open.is_none() && args.request_access.is_none() => args,
        Ok(_) => {
            eprintln!(
                "almanac-server: --open and --request-access need the desktop app, `almanac`\n\n{USAGE}"
            );
            return ExitCode::from(2);
        }
        Err(message) => {
            eprintln!("almanac-server: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    headless::init_logging();
    match headless::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("almanac-server: {e}");
            ExitCode::FAILURE
        }
    }
}
