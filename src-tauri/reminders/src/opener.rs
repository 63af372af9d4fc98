//! Opening a reminder's `action_url` when its notification is activated.
//!
//! The daemon only ever opens URLs whose scheme passed the allowlist; the
//! opener itself hands the URL to the desktop as one argument (no shell), so
//! nothing in a URL is ever interpreted as a command.

use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("this reminder has no action_url")]
    NoUrl,
    #[error("the scheme of {0:?} is not allowed")]
    SchemeRefused(String),
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: &'static str,
        source: std::io::Error,
    },
}

/// Opens URLs with the desktop's handler for their scheme.
pub trait Opener: Send + Sync + 'static {
    fn open(&self, url: &str) -> Result<(), OpenError>;
}

/// `xdg-open` on Linux and the BSDs, `open` on macOS, the URL protocol
/// handler on Windows.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemOpener;

impl Opener for SystemOpener {
    fn open(&self, url: &str) -> Result<(), OpenError> {
        let (program, prefix): (&'static str, &[&str]) = if cfg!(target_os = "macos") {
            ("open", &[])
        } else if cfg!(windows) {
            ("rundll32", &["url.dll,FileProtocolHandler"])
        } else {
            ("xdg-open", &[])
        };
        let mut child = Command::new(program)
            .args(prefix)
            .arg(url)
            .spawn()
            .map_err(|source| OpenError::Spawn { program, source })?;
        // Reap the helper when it exits so no zombie is left behind.
        std::thread::spawn(move || child.wait());
        Ok(())
    }
}
