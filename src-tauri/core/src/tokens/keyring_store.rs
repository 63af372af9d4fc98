//! The OS keyring as a [`SecretStore`], through the keyring ecosystem's
//! `keyring-core` API.
//!
//! On Linux and the BSDs the store is the Secret Service (gnome-keyring,
//! KWallet…) reached over D-Bus by the pure-Rust zbus client; on macOS the
//! login Keychain, on Windows the Credential Manager. Each secret is one
//! keyring item: service `almanac-pat`, user = the token's id, labelled with the
//! token's name so keyring managers show something meaningful. Other secrets
//! (CalDAV passwords) use a store of their own service, keyed by name.
//!
//! All keyring traffic runs on one dedicated thread that owns the connection.
//! When zbus is built in tokio mode (as the desktop build is: the reminder
//! daemon's notifier asks for it) its blocking calls — connecting, every
//! request, and dropping the connection — enter a runtime of their own, which
//! panics on a thread that drives async tasks; on the keyring thread they never
//! can. The connection is made on first use and dropped after a platform
//! failure, so a keyring that starts late or restarts is picked up again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, mpsc};

use keyring_core::{CredentialStore, Entry, Error};
use uuid::Uuid;

use super::secret::{Secret, SecretHash};
use super::secret_store::{SecretStore, SecretStoreError};

/// The keyring "service" all of Almanac's token secrets are filed under.
const SERVICE: &str = "almanac-pat";

/// The keyring thread's state: the connection, if one is open.
type Connection = Option<Arc<CredentialStore>>;

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// Token secrets in the OS keyring.
pub struct KeyringSecretStore {
    jobs: Mutex<mpsc::Sender<Job>>,
    service: &'static str,
}

impl Default for KeyringSecretStore {
    fn default() -> Self {
        Self::new()
    }
}

impl KeyringSecretStore {
    /// A store whose keyring thread connects when first used. The thread ends
    /// (closing the connection) when the store is dropped.
    pub fn new() -> Self {
        Self::for_service(SERVICE)
    }

    /// A store filing its secrets under keyring service `service`.
    pub fn for_service(service: &'static str) -> Self {
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("almanac-keyring".into())
            .spawn(move || {
                let mut connection: Connection = None;
                for job in queue {
                    job(&mut connection);
                }
            })
            .expect("the OS can start the keyring thread");
        Self {
            jobs: Mutex::new(jobs),
            service,
        }
    }

    /// Runs `operation` on the keyring thread and waits for its answer.
    fn run<T: Send + 'static>(
        &self,
        operation: impl FnOnce(&mut Connection) -> Result<T, SecretStoreError> + Send + 'static,
    ) -> Result<T, SecretStoreError> {
        let (answer, answered) = mpsc::sync_channel(1);
        let job: Job = Box::new(move |connection| {
            let _ = answer.send(operation(connection));
        });
        let gone = || SecretStoreError::Unavailable("the keyring thread has stopped".into());
        self.jobs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send(job)
            .map_err(|_| gone())?;
        answered.recv().map_err(|_| gone())?
    }
}

/// The entry of `user` in `service`, connecting first if needed.
fn entry(
    connection: &mut Connection,
    service: &str,
    user: &str,
    label: Option<&str>,
) -> Result<Entry, SecretStoreError> {
    let store = match connection {
        Some(store) => store.clone(),
        None => connection.insert(platform_store()?).clone(),
    };
    // Only the Secret Service takes a label (keyring managers show it); the
    // Keychain and Credential Manager stores refuse modifiers they do not know.
    let secret_service = cfg!(all(
        unix,
        not(any(
            target_os = "macos",
            target_os = "ios",
            target_os = "android"
        ))
    ));
    let modifiers = label
        .filter(|_| secret_service)
        .map(|label| HashMap::from([("label", label)]));
    store
        .build(service, user, modifiers.as_ref())
        .map_err(|e| classify(connection, e))
}

/// Maps a keyring error to ours; a platform failure also drops the
/// connection so the next call reconnects.
fn classify(connection: &mut Connection, error: Error) -> SecretStoreError {
    match error {
        Error::PlatformFailure(_) | Error::NoStorageAccess(_) | Error::NoDefaultStore => {
            *connection = None;
            SecretStoreError::Unavailable(error.to_string())
        }
        other => SecretStoreError::Failed(other.to_string()),
    }
}

#[cfg(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
))]
fn platform_store() -> Result<Arc<CredentialStore>, SecretStoreError> {
    let store = zbus_secret_service_keyring_store::Store::new()
        .map_err(|e| SecretStoreError::Unavailable(e.to_string()))?;
    Ok(store)
}

/// The login keychain (the legacy keychain API: the data-protection keychain
/// needs a signed app with an entitlement).
#[cfg(target_os = "macos")]
fn platform_store() -> Result<Arc<CredentialStore>, SecretStoreError> {
    let store = apple_native_keyring_store::keychain::Store::new()
        .map_err(|e| SecretStoreError::Unavailable(e.to_string()))?;
    Ok(store)
}

/// Windows Credential Manager (generic credentials of the user).
#[cfg(target_os = "windows")]
fn platform_store() -> Result<Arc<CredentialStore>, SecretStoreError> {
    let store = windows_native_keyring_store::Store::new()
        .map_err(|e| SecretStoreError::Unavailable(e.to_string()))?;
    Ok(store)
}

#[cfg(not(any(
    all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    ),
    target_os = "macos",
    target_os = "windows"
)))]
fn platform_store() -> Result<Arc<CredentialStore>, SecretStoreError> {
    Err(SecretStoreError::Unavailable(
        "Almanac has no keyring support for this platform yet".to_string(),
    ))
}

impl KeyringSecretStore {
    /// The secret stored under `user`, or `None`.
    pub fn get_named(&self, user: &str) -> Result<Option<Secret>, SecretStoreError> {
        let (service, user) = (self.service, user.to_string());
        self.run(
            move |connection| match entry(connection, service, &user, None)?.get_password() {
                Ok(value) => Ok(Some(Secret::from_stored(value))),
                Err(Error::NoEntry) => Ok(None),
                Err(e) => Err(classify(connection, e)),
            },
        )
    }

    /// Stores (or replaces) the secret of `user`, labelled `label`.
    pub fn set_named(
        &self,
        user: &str,
        label: &str,
        secret: &Secret,
    ) -> Result<(), SecretStoreError> {
        let (service, user) = (self.service, user.to_string());
        let (label, secret) = (label.to_string(), secret.clone());
        self.run(move |connection| {
            entry(connection, service, &user, Some(&label))?
                .set_password(secret.expose())
                .map_err(|e| classify(connection, e))
        })
    }

    /// Removes the secret of `user`; removing a missing one succeeds.
    pub fn delete_named(&self, user: &str) -> Result<(), SecretStoreError> {
        let (service, user) = (self.service, user.to_string());
        self.run(move |connection| {
            match entry(connection, service, &user, None)?.delete_credential() {
                Ok(()) | Err(Error::NoEntry) => Ok(()),
                Err(e) => Err(classify(connection, e)),
            }
        })
    }
}

impl SecretStore for KeyringSecretStore {
    fn probe(&self) -> Result<(), SecretStoreError> {
        // Reading an id that cannot exist proves the service answers and is
        // unlocked, without creating anything.
        self.hash(Uuid::nil()).map(drop)
    }

    fn hash(&self, id: Uuid) -> Result<Option<SecretHash>, SecretStoreError> {
        Ok(self.get_named(&id.to_string())?.map(|secret| secret.hash()))
    }

    fn set(&self, id: Uuid, label: &str, secret: &Secret) -> Result<(), SecretStoreError> {
        self.set_named(&id.to_string(), label, secret)
    }

    fn delete(&self, id: Uuid) -> Result<(), SecretStoreError> {
        self.delete_named(&id.to_string())
    }
}
