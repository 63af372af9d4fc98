//! A webhook receiver that verifies every delivery with the Standard
//! Webhooks reference library (`webhook_receiver/receiver.py`, in the venv
//! `scripts/webhooks-venv.sh` makes), for the core's and the app's tests.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;

use serde_json::Value;

use crate::venv::venv;
use crate::wait::PATIENCE;

/// The receiver process; killed when dropped.
pub struct WebhookReceiver {
    child: Child,
    stdin: ChildStdin,
    port: u16,
    reports: mpsc::Receiver<Value>,
}

impl WebhookReceiver {
    /// A receiver on a free loopback port, answering every delivery with
    /// `status`. Panics (never skips) when its venv cannot be made.
    pub fn start(status: u16) -> Self {
        let python = venv("webhooks-venv.sh").join("bin/python");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("webhook_receiver/receiver.py");
        let mut child = Command::new(python)
            .arg(script)
            .env("RECEIVER_STATUS", status.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the webhook receiver starts");
        let stdin = child.stdin.take().expect("piped");
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let port = lines
            .next()
            .expect("the receiver prints its port")
            .expect("a line")
            .parse()
            .expect("a port");
        let (sender, reports) = mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let report = serde_json::from_str(&line).expect("the receiver reports JSON");
                if sender.send(report).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            stdin,
            port,
            reports,
        }
    }

    /// The URL to point a hook at.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    /// Tells the receiver the secret deliveries are signed with (it cannot
    /// know it earlier: the secret is made with the hook, which needs the URL).
    pub fn knows(&mut self, secret: &str) {
        writeln!(self.stdin, "{secret}").expect("the receiver reads its secret");
    }

    /// The receiver's report of the next delivery: `error` (null when it
    /// verifies), `replayError` (the same six minutes later),
    /// `tamperedError`, `headers`, `body`. Blocks, at most [`PATIENCE`].
    pub fn next(&self) -> Value {
        self.reports
            .recv_timeout(PATIENCE)
            .expect("a delivery reaches the receiver")
    }
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
