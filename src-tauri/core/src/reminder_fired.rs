//! A reminder fired: what Almanac does besides showing it. The change feed
//! gets a `reminder.fired` entry, and the user's reminder hook
//! (`reminders.hookCommand`) runs with the reminder as JSON on its standard
//! input, as calcurse's notification command or gcalcli's `remind` do.
//!
//! The shell calls [`Core::reminder_fired`](crate::app::Core::reminder_fired) from its notifier, which must not
//! wait: the hook runs on a thread of its own. Its bounds ([`HookRuns`]): at
//! most [`MAX_HOOKS_AT_ONCE`] run at once (a reminder past that is logged,
//! its hook not started); one that runs longer than [`HOOK_TIMEOUT`] is
//! killed with every process it started (its process group); its errors are
//! read as they come, the last [`KEPT_ERROR_BYTES`] kept. Its exit status and
//! its last line of errors go to the log; its output is not kept.

use std::io::{Read, Write};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a hook may run.
pub const HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// Hooks running at once: reminders firing together (a morning's worth
/// after a sleep) start no more processes than this.
pub const MAX_HOOKS_AT_ONCE: usize = 4;

/// The end of a hook's error output kept for the log; the rest is read and
/// let go, so a hook writing without end neither blocks nor fills memory.
pub const KEPT_ERROR_BYTES: usize = 8 * 1024;

/// The hooks running now, counted so no more than [`MAX_HOOKS_AT_ONCE`] do.
#[derive(Debug, Default, Clone)]
pub struct HookRuns(Arc<AtomicUsize>);

/// One running hook; dropping it counts it out.
struct HookRun(Arc<AtomicUsize>);

impl HookRuns {
    fn start(&self) -> Option<HookRun> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |running| {
                (running < MAX_HOOKS_AT_ONCE).then_some(running + 1)
            })
            .ok()
            .map(|_| HookRun(self.0.clone()))
    }
}

impl Drop for HookRun {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A reminder that fired, as the shell reports it.
#[derive(Debug, Clone)]
pub struct FiredReminder {
    pub id: String,
    /// The calendar event it is for (vault reminders), if any.
    pub event_id: Option<String>,
    /// The reminder as the daemon keeps it, for the hook.
    pub json: serde_json::Value,
}

impl HookRuns {
    /// Runs the reminder hook `command` with `fired` on its standard input,
    /// on a thread of its own; not at all when [`MAX_HOOKS_AT_ONCE`] hooks
    /// still run.
    pub(crate) fn run(&self, command: String, fired: &FiredReminder) {
        let Some(run) = self.start() else {
            tracing::warn!(
                running = MAX_HOOKS_AT_ONCE,
                "the reminder hook was not started: as many hooks as may run at once still run"
            );
            return;
        };
        let mut input = fired.json.to_string();
        input.push('\n');
        let spawned = std::thread::Builder::new()
            .name("almanac-reminder-hook".into())
            .spawn(move || {
                run_hook(&command, input.as_bytes(), HOOK_TIMEOUT);
                drop(run);
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "could not start the reminder hook");
        }
    }
}

/// How a hook's run ended.
#[derive(Debug, PartialEq, Eq)]
enum HookEnd {
    Ran,
    Failed { status: String, last_error: String },
    TooLong,
    NotStarted(String),
}

/// Runs `command` through the system shell with `input` on its standard
/// input, killing it and what it started after `timeout`, and logs how it
/// ended.
fn run_hook(command: &str, input: &[u8], timeout: Duration) {
    match hook(command, input, timeout) {
        HookEnd::Ran => tracing::info!("the reminder hook ran"),
        HookEnd::Failed { status, last_error } => {
            tracing::warn!(%status, last_error, "the reminder hook failed")
        }
        HookEnd::TooLong => tracing::warn!(
            seconds = timeout.as_secs(),
            "the reminder hook ran too long and was stopped, with what it started"
        ),
        HookEnd::NotStarted(error) => {
            tracing::warn!(%error, "the reminder hook could not be started")
        }
    }
}

fn hook(command: &str, input: &[u8], timeout: Duration) -> HookEnd {
    let mut shell = if cfg!(windows) {
        let mut shell = Command::new("cmd");
        shell.arg("/C");
        shell
    } else {
        let mut shell = Command::new("sh");
        shell.arg("-c");
        shell
    };
    // A group of its own, so what the hook starts can be stopped with it.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut shell, 0);
    let child = shell
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(error) => return HookEnd::NotStarted(error.to_string()),
    };
    let errors = child.stderr.take().map(drain);
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that does not read its input closes the pipe: not an error.
        let _ = stdin.write_all(input);
    }
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) | Err(_) => {
                stop_group(&mut child);
                break None;
            }
        }
    };
    // The errors written so far: a process the hook left running in the
    // background may hold the pipe open, so wait a moment, not for it.
    let errors = errors
        .and_then(|tail| tail.recv_timeout(Duration::from_secs(1)).ok())
        .unwrap_or_default();
    match status {
        Some(status) if status.success() => HookEnd::Ran,
        Some(status) => HookEnd::Failed {
            status: status.to_string(),
            last_error: errors.lines().last().unwrap_or_default().to_string(),
        },
        None => HookEnd::TooLong,
    }
}

/// Reads `stderr` to its end on a thread of its own, keeping only the last
/// [`KEPT_ERROR_BYTES`]; the tail arrives on the channel once the pipe closes.
fn drain(mut stderr: ChildStderr) -> mpsc::Receiver<String> {
    let (tail, received) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("almanac-hook-errors".into())
        .spawn(move || {
            let mut kept: Vec<u8> = Vec::new();
            let mut chunk = [0u8; 4096];
            while let Ok(read) = stderr.read(&mut chunk) {
                if read == 0 {
                    break;
                }
                kept.extend_from_slice(&chunk[..read]);
                if kept.len() > KEPT_ERROR_BYTES {
                    kept.drain(..kept.len() - KEPT_ERROR_BYTES);
                }
            }
            let _ = tail.send(String::from_utf8_lossy(&kept).into_owned());
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "the reminder hook's errors cannot be read");
    }
    received
}

/// Kills the hook and every process of its group, and reaps it.
fn stop_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group
        // (the hook's own, made at spawn); it has no memory effects.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_hook_past_its_time_is_stopped_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("alive");
        // The hook starts a process in the background that would write a
        // file after the deadline, then waits: both must be gone by then.
        let command = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let started = Instant::now();
        assert_eq!(
            hook(&command, b"{}", Duration::from_millis(300)),
            HookEnd::TooLong
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the run did not wait for it"
        );
        std::thread::sleep(Duration::from_secs(3));
        assert!(!marker.exists(), "a process the hook started outlived it");
    }

    #[test]
    fn endless_errors_are_drained_and_only_their_end_kept() {
        // 1 MiB of errors, far past a pipe's buffer, then a last line.
        let command = "head -c 1048576 /dev/zero | tr '\\0' x >&2; echo >&2; echo 'the last line' >&2; exit 3";
        match hook(command, b"{}", Duration::from_secs(30)) {
            HookEnd::Failed { status, last_error } => {
                assert!(status.contains('3'), "{status}");
                assert_eq!(last_error, "the last line");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_more_than_a_few_hooks_run_at_once() {
        let runs = HookRuns::default();
        let held: Vec<HookRun> = (0..MAX_HOOKS_AT_ONCE)
            .map(|_| runs.start().unwrap())
            .collect();
        assert!(runs.start().is_none());
        drop(held);
        assert!(runs.start().is_some());
    }

    /// docs/reminders.md's push recipe, run exactly as written with ntfy's
    /// address pointed at a receiver on loopback: one POST of the title,
    /// with the recipe's headers.
    #[test]
    fn the_push_recipe_in_the_docs_posts_the_title() {
        use std::io::BufRead;

        let docs = include_str!("../../../docs/reminders.md");
        let recipe = docs
            .lines()
            .filter_map(|line| line.trim().strip_prefix("\"hookCommand\": \""))
            .find(|line| line.contains("ntfy.sh"))
            .and_then(|line| line.strip_suffix('"'))
            .expect("the push recipe in docs/reminders.md");
        let receiver = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", receiver.local_addr().unwrap());
        let command = recipe.replace("https://ntfy.sh", &address);
        let received = std::thread::spawn(move || {
            let (stream, _) = receiver.accept().unwrap();
            let mut reader = std::io::BufReader::new(stream);
            let mut head = Vec::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim_end().is_empty() {
                    break;
                }
                head.push(line.trim_end().to_string());
            }
            let length: usize = head
                .iter()
                .find_map(|h| {
                    h.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_string)
                })
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            reader
                .get_mut()
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .unwrap();
            (head, String::from_utf8(body).unwrap())
        });
        let reminder = br#"{"id":"dentist","title":"Dentist","body":"Bring the forms","trigger_at_epoch":1795683600,"action_url":"","source":"vault"}"#;
        assert_eq!(
            hook(&command, reminder, Duration::from_secs(30)),
            HookEnd::Ran
        );
        let (head, body) = received.join().unwrap();
        assert_eq!(head[0], "POST /your-topic HTTP/1.1", "{head:?}");
        assert!(
            head.contains(&"Title: Almanac reminder".to_string()),
            "{head:?}"
        );
        assert!(head.contains(&"Tags: calendar".to_string()), "{head:?}");
        assert_eq!(body, "Dentist\n");
    }
}
