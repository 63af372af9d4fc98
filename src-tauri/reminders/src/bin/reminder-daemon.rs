//! The reminder daemon on its own, without the desktop shell: for
//! benchmarks, the crash test, and poking at the HTTP API by hand.
//!
//! ```text
//! reminder-daemon --db DIR [--port N] [--grace-hours N] [--notifier auto|dbus|log]
//! ```
//!
//! Prints `listening on http://ADDR` once it serves, and stops cleanly on
//! SIGINT or SIGTERM.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use almanac_loopback::defaults;
use almanac_reminders::{
    Daemon, DaemonConfig, DbusNotifier, LogNotifier, Notifier, SystemOpener, system_notifier,
};

const USAGE: &str =
    "usage: reminder-daemon --db DIR [--port N] [--grace-hours N] [--notifier auto|dbus|log]";

struct Args {
    config: DaemonConfig,
    notifier: String,
}

fn parse_args() -> Result<Args, String> {
    let mut db = None;
    let mut port = almanac_reminders::config::DEFAULT_PORT;
    let mut grace_hours = u64::from(defaults::GRACE_WINDOW_HOURS);
    let mut notifier = "auto".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--db" => db = Some(value()?),
            "--port" => port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            "--grace-hours" => {
                grace_hours = value()?
                    .parse()
                    .map_err(|e| format!("--grace-hours: {e}"))?
            }
            "--notifier" => notifier = value()?,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let db = db.ok_or(USAGE)?;
    Ok(Args {
        config: DaemonConfig {
            port,
            grace_window: Duration::from_secs(grace_hours * 3600),
            ..DaemonConfig::new(db)
        },
        notifier,
    })
}

async fn notifier(choice: &str) -> Result<Arc<dyn Notifier>, String> {
    match choice {
        "log" => Ok(Arc::new(LogNotifier::new(Some(
            "chosen with --notifier log".to_string(),
        )))),
        "dbus" => DbusNotifier::connect()
            .await
            .map(|n| Arc::new(n) as Arc<dyn Notifier>)
            .map_err(|e| format!("no D-Bus notification server: {e}")),
        "auto" => Ok(system_notifier().await),
        other => Err(format!("unknown notifier {other:?}\n{USAGE}")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let notifier = match notifier(&args.notifier).await {
        Ok(notifier) => notifier,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let handle = match Daemon::start(args.config, notifier, Arc::new(SystemOpener), None).await {
        Ok(handle) => handle,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    println!("listening on http://{}", handle.addr());
    almanac_loopback::shutdown_signal().await;
    handle.shutdown().await;
    ExitCode::SUCCESS
}
