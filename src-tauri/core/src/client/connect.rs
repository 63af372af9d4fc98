//! Which backend a command uses: the running instance when one holds the
//! data folder's lock (one process writes the vault), the vault directly
//! when none does.

use std::path::PathBuf;

use chrono_tz::Tz;

use super::Backend;
use super::direct::DirectBackend;
use super::failure::{ClientError, Exit};
use super::remote::RemoteBackend;
use super::token::{TOKEN_FILE_VAR, TOKEN_VAR, TokenSources, default_file};
use crate::data_lock::{DataLock, DataLockError};
use crate::paths::Paths;
use crate::settings::Settings;

/// The backend for the instance at `paths`; `token_file` is `--token-file`.
pub fn connect(paths: Paths, token_file: Option<PathBuf>) -> Result<Box<dyn Backend>, ClientError> {
    let tokens = TokenSources::from_env(token_file, &paths);
    match DataLock::acquire(&paths) {
        // Held for the command's whole run: an app starting meanwhile
        // waits for it (a run is short) rather than start a second engine.
        Ok(lock) => {
            let secret = tokens.secret()?;
            Ok(Box::new(DirectBackend::open(
                paths,
                lock,
                secret.as_deref(),
            )?))
        }
        Err(DataLockError::Held(_)) => remote(&paths, &tokens),
        Err(other) => Err(ClientError::failed(other.to_string())),
    }
}

fn remote(paths: &Paths, tokens: &TokenSources) -> Result<Box<dyn Backend>, ClientError> {
    let settings = read_settings(paths)?;
    if !settings.rest_server_enabled {
        return Err(ClientError::new(
            Exit::Unreachable,
            format!(
                "Almanac is running with its REST server off, and only through it can this \
                 command reach the running app. Switch it on (tray menu: Enable REST Server, \
                 or Settings › API & Security; on a server, stop almanac-server and set \
                 \"restServerEnabled\": true in {}), or stop Almanac to work on the vault \
                 directly; then run this again",
                paths.settings_file().display()
            ),
        ));
    }
    let Some(secret) = tokens.secret()? else {
        return Err(ClientError::new(
            Exit::NotAuthorized,
            format!(
                "Almanac is running, so this command goes through its REST server, which \
                 needs a token: set {TOKEN_VAR}, or put the token in a file only you can \
                 read (chmod 600) and name it with --token-file or {TOKEN_FILE_VAR} (default \
                 {}). Make one in Settings › API & Security",
                default_file(paths).display()
            ),
        ));
    };
    let zone: Tz = settings.display_timezone.parse().unwrap_or(Tz::UTC);
    let backend = RemoteBackend::new(
        settings.local_server_port,
        settings.reminders.daemon_port,
        secret,
        zone,
    );
    backend.check_listener(paths, settings.local_server_port)?;
    Ok(Box::new(backend))
}

/// The running instance's settings, read without writing anything (the
/// instance owns the file).
fn read_settings(paths: &Paths) -> Result<Settings, ClientError> {
    let file = paths.settings_file();
    let bytes = std::fs::read(&file)
        .map_err(|e| ClientError::failed(format!("cannot read {}: {e}", file.display())))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ClientError::failed(format!("cannot read {}: {e}", file.display())))
}
