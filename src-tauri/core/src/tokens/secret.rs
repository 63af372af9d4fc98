//! Token secrets: generation, hashing, and a type that will not print itself.
//!
//! A secret is `ofc_pat_` followed by 43 base62 characters drawn from a CSPRNG
//! (62^43 ≈ 2^256, so at least 256 random bits). Only its SHA-256 is kept in
//! memory for checks; the secret itself lives in the OS keyring and is handed to
//! the user exactly once.

use std::fmt;

use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

/// Every secret starts with this (the contract: "a fixed prefix ending in `pat_`").
pub const SECRET_PREFIX: &str = "ofc_pat_";

/// Random base62 characters after the prefix: ⌈256 / log2(62)⌉.
const RANDOM_CHARS: usize = 43;

/// A token secret. `Debug` and `Display` are redacted so it cannot reach a log
/// line by accident; [`Secret::expose`] is the one deliberate way out.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A fresh secret from the thread-local CSPRNG (ChaCha, seeded by the OS).
    pub fn generate() -> Self {
        let random: String = rand::rng()
            .sample_iter(Alphanumeric)
            .take(RANDOM_CHARS)
            .map(char::from)
            .collect();
        Self(format!("{SECRET_PREFIX}{random}"))
    }

    /// Wraps a secret read back from the keyring.
    pub(crate) fn from_stored(value: String) -> Self {
        Self(value)
    }

    /// The secret's text, for showing it once or storing it in the keyring.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub(crate) fn hash(&self) -> SecretHash {
        SecretHash::of(&self.0)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// SHA-256 of a secret. Lookup uses its first eight bytes; the decision is a
/// constant-time comparison of all 32 (see `TokenStore`). Opaque outside the
/// crate: a [`super::SecretStore`] hands it back, nobody else makes one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SecretHash(pub(crate) [u8; 32]);

impl SecretHash {
    pub(crate) fn of(presented: &str) -> Self {
        Self(Sha256::digest(presented.as_bytes()).into())
    }

    /// The map key: the hash's leading 64 bits.
    pub(crate) fn lookup_key(&self) -> u64 {
        u64::from_le_bytes(self.0[..8].try_into().expect("32 > 8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_have_the_prefix_and_enough_base62_characters() {
        let secret = Secret::generate();
        let random = secret.expose().strip_prefix(SECRET_PREFIX).unwrap();
        assert_eq!(random.len(), RANDOM_CHARS);
        assert!(random.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert!(62f64.powi(RANDOM_CHARS as i32).log2() >= 256.0);
        assert_ne!(Secret::generate(), secret);
    }

    #[test]
    fn debug_output_is_redacted() {
        let secret = Secret::generate();
        let shown = format!("{secret:?}");
        assert!(!shown.contains(secret.expose()));
        assert!(!shown.contains(SECRET_PREFIX));
    }
}
