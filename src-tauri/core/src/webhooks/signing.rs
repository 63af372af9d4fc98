//! Signing secrets and signatures, as Standard Webhooks specifies them.
//!
//! A secret is `whsec_` followed by the base64 of 32 random bytes; the key
//! is those bytes. A delivery's `webhook-signature` is `v1,` followed by the
//! base64 of HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{body}`).
//! The secret is shown once when the hook is made, then kept only in the
//! OS keyring (service `almanac-webhook`, user = the hook's id).

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use uuid::Uuid;

use crate::tokens::{KeyringSecretStore, Secret, SecretStoreError};

/// Every signing secret starts with this.
pub const SECRET_PREFIX: &str = "whsec_";

/// The keyring "service" signing secrets are filed under.
pub const KEYRING_SERVICE: &str = "almanac-webhook";

/// Random bytes in a key (the specification asks for 24 to 64).
const KEY_BYTES: usize = 32;

/// A signing secret. `Debug` is redacted so it cannot reach a log line by
/// accident; [`SigningSecret::expose`] is the one deliberate way out.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningSecret(String);

impl SigningSecret {
    /// A fresh secret from the thread-local CSPRNG.
    pub fn generate() -> Self {
        let mut key = [0u8; KEY_BYTES];
        rand::rng().fill_bytes(&mut key);
        Self(format!("{SECRET_PREFIX}{}", STANDARD.encode(key)))
    }

    /// A secret read back from the keyring (or, in tests, written out).
    pub fn from_text(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The secret's text, for showing it once or storing it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The HMAC key: the base64 after the prefix, decoded. `None` when the
    /// text is not a secret of this form.
    pub fn key(&self) -> Option<Vec<u8>> {
        let encoded = self.0.strip_prefix(SECRET_PREFIX)?;
        STANDARD.decode(encoded).ok().filter(|key| !key.is_empty())
    }
}

impl fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningSecret(<redacted>)")
    }
}

/// The `webhook-signature` value of a delivery.
pub fn signature(key: &[u8], webhook_id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(webhook_id.as_bytes());
    mac.update(format!(".{timestamp}.").as_bytes());
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// Where signing secrets are kept, by hook id. Blocking (D-Bus round trips).
pub trait SigningSecrets: Send + Sync {
    fn get(&self, hook: Uuid) -> Result<Option<SigningSecret>, SecretStoreError>;
    fn set(&self, hook: Uuid, label: &str, secret: &SigningSecret) -> Result<(), SecretStoreError>;
    /// Removing a missing one succeeds.
    fn delete(&self, hook: Uuid) -> Result<(), SecretStoreError>;
}

/// Signing secrets in the OS keyring.
pub struct KeyringSigningSecrets(KeyringSecretStore);

impl Default for KeyringSigningSecrets {
    fn default() -> Self {
        Self(KeyringSecretStore::for_service(KEYRING_SERVICE))
    }
}

impl SigningSecrets for KeyringSigningSecrets {
    fn get(&self, hook: Uuid) -> Result<Option<SigningSecret>, SecretStoreError> {
        Ok(self
            .0
            .get_named(&hook.to_string())?
            .map(|secret| SigningSecret(secret.expose().to_string())))
    }

    fn set(&self, hook: Uuid, label: &str, secret: &SigningSecret) -> Result<(), SecretStoreError> {
        self.0.set_named(
            &hook.to_string(),
            label,
            &Secret::from_stored(secret.0.clone()),
        )
    }

    fn delete(&self, hook: Uuid) -> Result<(), SecretStoreError> {
        self.0.delete_named(&hook.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification and its
    /// reference libraries' tests.
    #[test]
    fn the_specification_example_signs_alike() {
        let secret = SigningSecret::from_text("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        let key = secret.key().unwrap();
        assert_eq!(
            signature(
                &key,
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                br#"{"test": 2432232314}"#
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn a_new_secret_has_the_prefix_and_32_random_bytes() {
        let (a, b) = (SigningSecret::generate(), SigningSecret::generate());
        assert!(a.expose().starts_with(SECRET_PREFIX));
        assert_eq!(a.key().unwrap().len(), KEY_BYTES);
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "SigningSecret(<redacted>)");
    }

    #[test]
    fn text_that_is_not_a_secret_has_no_key() {
        assert_eq!(SigningSecret::from_text("ofc_pat_abc").key(), None);
        assert_eq!(SigningSecret::from_text("whsec_!!!").key(), None);
        assert_eq!(SigningSecret::from_text("whsec_").key(), None);
    }
}
