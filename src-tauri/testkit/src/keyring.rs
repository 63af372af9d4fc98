//! The real OS keyring, which token tests run against.

use std::sync::Arc;

use almanac_core::tokens::{KeyringSecretStore, SecretStore};

/// The OS keyring, after proving a Secret Service answers. Fails loudly (never
/// skips) outside `scripts/session.sh`, so a green run means the keyring was real.
pub fn real_keyring() -> Arc<KeyringSecretStore> {
    let keyring = KeyringSecretStore::new();
    if let Err(e) = keyring.probe() {
        panic!(
            "these tests need a reachable Secret Service; run them as \
             `scripts/session.sh cargo nextest run -p almanac-core` ({e})"
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
