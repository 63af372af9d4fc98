//! A reminder fired: what Almanac does besides showing it. The change feed
//! gets a `reminder.fired` entry, and the user's reminder hook
//! (`reminders.hookCommand`) runs with the reminder as JSON on its standard
//! input, as calcurse's notification command or gcalcli's `remind` do.
//!
//! The shell calls [`Core::reminder_fired`] from its notifier, which must not
//! wait: the hook runs on a thread of its own, and one that runs longer than
//! [`HOOK_TIMEOUT`] is killed. Its exit status and its last line of errors
//! go to the log; its output is not kept.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::app::Core;
use crate::changes::{About, ChangeKind};

/// How long a hook may run.
pub const HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// A reminder that fired, as the shell reports it.
#[derive(Debug, Clone)]
pub struct FiredReminder {
    pub id: String,
    /// The calendar event it is for (vault reminders), if any.
    pub event_id: Option<String>,
    /// The reminder as the daemon keeps it, for the hook.
    pub json: serde_json::Value,
}

impl Core {
    /// Records `fired` in the change feed and starts the reminder hook.
    pub fn reminder_fired(&self, fired: FiredReminder) {
        let calendar_id = fired.event_id.as_deref().and_then(|id| {
            let details = self.calendar.details(id).ok()?;
            Some(details.calendar_id)
        });
        self.plugin().changes().push([About {
            kind: ChangeKind::ReminderFired,
            calendar_id,
            event_id: fired.event_id,
            reminder_id: Some(fired.id),
        }]);
        let Some(command) = self.settings.get().reminders.hook_command.clone() else {
            return;
        };
        let mut input = fired.json.to_string();
        input.push('\n');
        let spawned = std::thread::Builder::new()
            .name("almanac-reminder-hook".into())
            .spawn(move || run_hook(&command, input.as_bytes()));
        if let Err(error) = spawned {
            tracing::warn!(%error, "could not start the reminder hook");
        }
    }
}

/// Runs `command` through the system shell with `input` on its standard
/// input, killing it after [`HOOK_TIMEOUT`].
fn run_hook(command: &str, input: &[u8]) {
    let mut shell = if cfg!(windows) {
        let mut shell = Command::new("cmd");
        shell.arg("/C");
        shell
    } else {
        let mut shell = Command::new("sh");
        shell.arg("-c");
        shell
    };
    let child = shell
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(error) => {
            tracing::warn!(%error, "the reminder hook could not be started");
            return;
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that does not read its input closes the pipe: not an error.
        let _ = stdin.write_all(input);
    }
    let deadline = Instant::now() + HOOK_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let mut errors = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut stderr, &mut errors);
    }
    let last_error = errors.lines().last().unwrap_or_default();
    match status {
        Some(status) if status.success() => tracing::info!("the reminder hook ran"),
        Some(status) => {
            tracing::warn!(%status, last_error, "the reminder hook failed")
        }
        None => tracing::warn!(
            seconds = HOOK_TIMEOUT.as_secs(),
            "the reminder hook ran too long and was stopped"
        ),
    }
}
