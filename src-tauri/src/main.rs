//! The `almanac` binary: the desktop shell around `almanac-core`.
//!
//! `almanac` runs the tray app; `almanac --headless` (or any start without a
//! display) runs both servers with no windows; `almanac token …` manages
//! tokens from a terminal. The shell only wires: every decision lives in the
//! core crates. `almanac-server` (`server.rs`) is the same minus the desktop.

mod desktop;

// At the crate root so that the desktop modules' `crate::cli` and
// `crate::wiring` paths name the library's modules.
use almanac::{cli, feeds, headless, wiring};

use std::process::ExitCode;

fn main() -> ExitCode {
    almanac_core::allocator::return_large_buffers();
    if let Some(code) = almanac::subcommand("almanac") {
        return code;
    }
    let args = match cli::Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("almanac: {message}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{}", cli::USAGE);
        return ExitCode::SUCCESS;
    }
    if let Some(command) = &args.feed {
        return match feeds::run(command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("almanac: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let headless = args.headless || !cli::display_available();
    if headless && args.request_access.is_some() {
        // Refused before anything starts: nobody could answer the dialog.
        eprintln!(
            "almanac: --request-access asks the user in a dialog, which headless mode \
             (--headless, or no display) cannot show\n\n{}",
            cli::USAGE
        );
        return ExitCode::from(2);
    }
    headless::init_logging();

    if headless && !args.headless {
        eprintln!("almanac: no display found (DISPLAY / WAYLAND_DISPLAY unset); running headless");
    }
    let result = if headless {
        headless::run(&args).map(|()| 0)
    } else {
        desktop::run(&args)
    };
    match result {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("almanac: {e}");
            ExitCode::FAILURE
        }
    }
}
