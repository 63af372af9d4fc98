//! The token metadata file (`tokens.json` in the data dir).
//!
//! It holds [`TokenRecord`]s only, no secret material, and is replaced
//! atomically. An unreadable file is kept aside rather than overwritten, so a
//! bad edit never silently destroys the list of revoked tokens.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::TokenError;
use super::record::TokenRecord;
use crate::fsutil::atomic_write_private;

#[derive(Serialize, Deserialize)]
struct TokensFile {
    version: u32,
    tokens: Vec<TokenRecord>,
}

const VERSION: u32 = 1;

/// The records in `path`; none when the file does not exist yet.
pub(super) fn load(path: &Path) -> Result<Vec<TokenRecord>, TokenError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(TokenError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    match serde_json::from_slice::<TokensFile>(&bytes) {
        Ok(file) if file.version == VERSION => Ok(file.tokens),
        outcome => {
            let reason = match outcome {
                Err(e) => e.to_string(),
                Ok(file) => format!("unknown version {}", file.version),
            };
            let aside = path.with_extension(format!(
                "json.corrupt-{}",
                chrono::Utc::now().format("%Y%m%dT%H%M%S")
            ));
            tracing::error!(
                file = %path.display(), kept_as = %aside.display(), %reason,
                "token metadata unreadable; starting with no tokens"
            );
            std::fs::rename(path, &aside).map_err(|source| TokenError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            Ok(Vec::new())
        }
    }
}

/// Atomically replaces `path` with `tokens`.
pub(super) fn save(path: &Path, tokens: Vec<TokenRecord>) -> Result<(), TokenError> {
    let file = TokensFile {
        version: VERSION,
        tokens,
    };
    let mut json = serde_json::to_vec_pretty(&file).expect("token records always serialize");
    json.push(b'\n');
    atomic_write_private(path, &json).map_err(|source| TokenError::Io {
        path: path.to_path_buf(),
        source,
    })
}
