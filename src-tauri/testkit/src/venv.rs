//! The Python virtualenvs of real servers and clients (Radicale, the CalDAV
//! client libraries), each made on first use by its `scripts/*-venv.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `scripts/<script>` and returns the virtualenv it prints. Panics
/// (never skips) when it cannot be made: a test of a real server or client
/// must not pass without it.
pub fn venv(script: &str) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(script);
    let output = Command::new(&script)
        .output()
        .unwrap_or_else(|e| panic!("{} cannot run: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} could not make its virtualenv:\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}
