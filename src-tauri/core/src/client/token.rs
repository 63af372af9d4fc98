//! The token the command line presents: `ALMANAC_TOKEN`, else a token file
//! (`--token-file`, `ALMANAC_TOKEN_FILE`, else `<config>/cli-token` if it
//! exists). A file must be the user's own and readable by no one else: a
//! secret others can read is refused, not used.

use std::path::{Path, PathBuf};

use super::failure::{ClientError, Exit};
use crate::paths::Paths;

/// The variable holding a token's secret.
pub const TOKEN_VAR: &str = "ALMANAC_TOKEN";
/// The variable naming a token file.
pub const TOKEN_FILE_VAR: &str = "ALMANAC_TOKEN_FILE";

/// The default token file of the instance at `paths`.
pub fn default_file(paths: &Paths) -> PathBuf {
    paths.config_dir().join("cli-token")
}

/// Where a token was looked for.
#[derive(Debug, Clone, Default)]
pub struct TokenSources {
    /// `ALMANAC_TOKEN`'s value.
    pub secret: Option<String>,
    /// `--token-file`, else `ALMANAC_TOKEN_FILE`.
    pub file: Option<PathBuf>,
    /// Used only if it exists.
    pub default_file: Option<PathBuf>,
}

impl TokenSources {
    /// The sources this process has: its environment, `file` from the
    /// command line, and the instance's default file.
    pub fn from_env(file: Option<PathBuf>, paths: &Paths) -> Self {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        Self {
            secret: var(TOKEN_VAR),
            file: file.or_else(|| var(TOKEN_FILE_VAR).map(PathBuf::from)),
            default_file: Some(default_file(paths)),
        }
    }

    /// The token's secret, `None` when none was given. A named file that
    /// cannot be read, or is readable by others, is an error.
    pub fn secret(&self) -> Result<Option<String>, ClientError> {
        if let Some(secret) = &self.secret {
            return Ok(Some(secret.trim().to_string()));
        }
        if let Some(file) = &self.file {
            return read_private(file).map(Some);
        }
        match &self.default_file {
            Some(file) if file.exists() => read_private(file).map(Some),
            _ => Ok(None),
        }
    }
}

/// A token file's secret, if the file is private to this user.
pub fn read_private(path: &Path) -> Result<String, ClientError> {
    let refuse = |why: String| {
        ClientError::new(
            Exit::NotAuthorized,
            format!("token file {}: {why}", path.display()),
        )
    };
    let metadata = std::fs::metadata(path).map_err(|e| refuse(e.to_string()))?;
    if !metadata.is_file() {
        return Err(refuse("not a file".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(refuse(format!(
                "its mode is {mode:o}, so others can read the secret in it; refused \
                 (make it yours alone: chmod 600 {})",
                path.display()
            )));
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if metadata.uid() != me {
            return Err(refuse(
                "it belongs to another user, who could change it; refused".into(),
            ));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| refuse(e.to_string()))?;
    let secret = text.trim();
    if secret.is_empty() || secret.contains(char::is_whitespace) {
        return Err(refuse(
            "it should hold one token secret and nothing else".into(),
        ));
    }
    Ok(secret.to_string())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_file_others_can_read_is_refused_and_a_private_one_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "ofc_pat_secret\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = read_private(&file).unwrap_err();
        assert_eq!(refused.exit, Exit::NotAuthorized);
        assert!(refused.message.contains("chmod 600"), "{refused}");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read_private(&file).unwrap(), "ofc_pat_secret");

        let sources = TokenSources {
            secret: None,
            file: None,
            default_file: Some(dir.path().join("absent")),
        };
        assert_eq!(sources.secret().unwrap(), None);
    }
}
