//! Proof that the program on the REST port is this user's Almanac, asked for
//! before a token is sent to it.
//!
//! The command line and `almanac mcp` send the user's token to
//! `127.0.0.1:<localServerPort>`. Any local program can listen there while
//! Almanac is not (another user's, or one started to catch tokens), and
//! loopback says nothing about who it is. So at start an instance writes a
//! random key into its data folder, which only its user can read; a client
//! sends a random challenge with a request that carries no token, and sends
//! its token only if the answer carries the challenge's HMAC under that key.
//! A listener that cannot read the user's data folder cannot answer.

use std::io;

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

use crate::paths::Paths;

/// The request header carrying a client's challenge (hex).
pub const CHALLENGE_HEADER: &str = "almanac-challenge";
/// The answer header carrying the proof (hex).
pub const PROOF_HEADER: &str = "almanac-proof";

/// Bytes of a challenge; longer or shorter ones are not answered.
const CHALLENGE_BYTES: usize = 32;

/// An instance's key, made anew at each start.
pub struct InstanceKey([u8; 32]);

impl InstanceKey {
    /// A new key, written (owner only) where the instance's clients look.
    /// Call only with the data folder's lock held.
    pub fn create(paths: &Paths) -> io::Result<InstanceKey> {
        let mut key = [0; 32];
        rand::rng().fill_bytes(&mut key);
        crate::fsutil::atomic_write_private(&paths.instance_key_file(), hex(&key).as_bytes())?;
        Ok(InstanceKey(key))
    }

    /// The key of the instance running at `paths`, as a client reads it.
    fn read(paths: &Paths) -> io::Result<InstanceKey> {
        let text = std::fs::read_to_string(paths.instance_key_file())?;
        let bytes = unhex(text.trim())
            .filter(|bytes| bytes.len() == 32)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "not a key"))?;
        let mut key = [0; 32];
        key.copy_from_slice(&bytes);
        Ok(InstanceKey(key))
    }

    /// The proof for `challenge`, if it is one.
    pub fn prove(&self, challenge: &str) -> Option<String> {
        let challenge = unhex(challenge).filter(|bytes| bytes.len() == CHALLENGE_BYTES)?;
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key");
        mac.update(&challenge);
        Some(hex(&mac.finalize().into_bytes()))
    }
}

impl std::fmt::Debug for InstanceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InstanceKey(<redacted>)")
    }
}

/// A client's challenge to the listener on the REST port.
pub struct Challenge(String);

impl Challenge {
    pub fn new() -> Challenge {
        let mut bytes = [0; CHALLENGE_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        Challenge(hex(&bytes))
    }

    /// The value of [`CHALLENGE_HEADER`].
    pub fn header(&self) -> &str {
        &self.0
    }

    /// Whether `proof` (the answer's [`PROOF_HEADER`]) shows the listener is
    /// the instance running at `paths`; the reason to refuse it otherwise.
    pub fn check(&self, paths: &Paths, port: u16, proof: Option<&str>) -> Result<(), String> {
        let key = InstanceKey::read(paths).map_err(|error| {
            format!(
                "cannot check that the program on 127.0.0.1:{port} is this user's Almanac \
                 ({}: {error}), so the token was not sent to it",
                paths.instance_key_file().display()
            )
        })?;
        let expected = key.prove(&self.0).expect("a challenge of ours");
        match proof {
            Some(proof) if constant_time_eq(proof.as_bytes(), expected.as_bytes()) => Ok(()),
            _ => Err(format!(
                "the program listening on 127.0.0.1:{port} is not this user's Almanac (it \
                 could not prove it), so the token was not sent to it. Is another program \
                 using the port Almanac is set to (localServerPort)?"
            )),
        }
    }
}

impl Default for Challenge {
    fn default() -> Self {
        Challenge::new()
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |diff, (x, y)| diff | (x ^ y)) == 0
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_key_in_the_users_data_folder_answers_a_challenge() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let key = InstanceKey::create(&paths).unwrap();
        let challenge = Challenge::new();
        let proof = key.prove(challenge.header()).unwrap();
        challenge.check(&paths, 8540, Some(&proof)).unwrap();

        let other = tempfile::tempdir().unwrap();
        let impostor = InstanceKey::create(&Paths::new(other.path(), other.path()));
        let wrong = impostor.unwrap().prove(challenge.header()).unwrap();
        let refused = challenge.check(&paths, 8540, Some(&wrong)).unwrap_err();
        assert!(refused.contains("not this user's Almanac"), "{refused}");
        assert!(challenge.check(&paths, 8540, None).is_err());
        assert!(key.prove("not hex").is_none());
        assert!(key.prove("00").is_none(), "too short to be a challenge");
    }
}
