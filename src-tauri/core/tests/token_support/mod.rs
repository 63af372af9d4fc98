//! Helpers shared by the token and API tests: the real keyring (asserted to be
//! there), a clock tests can move, captured logs, and a file scanner.

#![allow(dead_code)] // each test binary uses its own subset

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use almanac_core::clock::Clock;
use almanac_core::tokens::{KeyringSecretStore, SecretStore};
use chrono::{DateTime, Duration, Utc};

/// The OS keyring, after proving a Secret Service answers. Fails loudly (never
/// skips) outside `scripts/session.sh`, so a green run means the keyring was real.
pub fn real_keyring() -> Arc<KeyringSecretStore> {
    let keyring = KeyringSecretStore::new();
    if let Err(e) = keyring.probe() {
        panic!(
            "these tests need a reachable Secret Service; run them as \
             `scripts/session.sh cargo test -p almanac-core` ({e})"
        );
    }
    Arc::new(keyring)
}

/// What `secret-tool` (libsecret, a separate client) finds in the keyring for
/// a token id: an independent look at what Almanac stored.
pub fn keyring_lookup(id: uuid::Uuid) -> Option<String> {
    let output = std::process::Command::new("secret-tool")
        .args([
            "lookup",
            "service",
            "almanac-pat",
            "username",
            &id.to_string(),
        ])
        .output()
        .expect("secret-tool (libsecret-tools) is installed");
    output
        .status
        .success()
        .then(|| String::from_utf8(output.stdout).unwrap())
}

/// A clock that stands still until moved.
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self(Mutex::new(Utc::now())))
    }

    pub fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

/// Everything logged by this test process at any level, captured once for the
/// whole binary (tracing events and `log` records of dependencies alike).
pub fn captured_logs() -> &'static Mutex<Vec<u8>> {
    static LOGS: OnceLock<&'static Mutex<Vec<u8>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs: &'static Mutex<Vec<u8>> = Box::leak(Box::default());
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || LogWriter(logs))
            .init();
        logs
    })
}

pub fn logs_text() -> String {
    String::from_utf8_lossy(&captured_logs().lock().unwrap()).into_owned()
}

struct LogWriter(&'static Mutex<Vec<u8>>);

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every file under `dir` whose bytes contain `needle`.
pub fn files_containing(dir: &Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if std::fs::read(&path)
                .unwrap()
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
            {
                found.push(path);
            }
        }
    }
    found
}
