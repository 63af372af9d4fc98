//! FCR Reminder's `/lifecycle/start`, `/stop` and `/restart`, which its
//! command line uses to manage its own daemon process. Almanac refuses
//! them, every method, with a reason a script can show:
//!
//! - the daemon has no authentication (by contract), and loopback is shared
//!   by every user of the machine, so serving `stop` would let any local
//!   program or other user silence the owner's reminders; the JSON and
//!   `Origin` checks keep web pages out, not local programs;
//! - `start` can only reach a daemon that is already running, and
//!   `restart` gains nothing over the app's own controls.
//!
//! The daemon runs inside Almanac (or as the standalone `reminder-daemon`),
//! whose lifecycle is the app's: its tray menu, or the service manager that
//! started it.

use axum::extract::Path;

use crate::error::HttpError;

/// Every method on `/lifecycle/{action}`.
pub(super) async fn refuse(Path(action): Path<String>) -> HttpError {
    match action.as_str() {
        "start" | "stop" | "restart" => HttpError::LifecycleRefused(action),
        _ => HttpError::NotFound(format!(
            "/lifecycle/{}",
            action.chars().take(100).collect::<String>()
        )),
    }
}
