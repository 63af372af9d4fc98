//! Subscription feeds: chosen calendars as one read-only ICS file at
//! `/feeds/<secret>.ics`, for calendar apps that can only subscribe.
//!
//! The secret in the URL is the only key, so it is long and random, shown
//! once when the feed is made, and only its SHA-256 is stored (in
//! `feeds.json` in the data folder). Revoking a feed deletes its record; the
//! URL answers `404` from the next request on. The file is read on every
//! lookup (feeds are polled every few minutes at most), so a feed made or
//! revoked from the command line applies to a running Almanac at once.

use std::path::PathBuf;

use rand::Rng;
use rand::distr::Alphanumeric;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::fsutil::atomic_write_private;
use crate::settings::Settings;

/// One feed as stored and listed (no secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Feed {
    pub id: Uuid,
    /// The feed's calendar name in subscribing apps.
    pub name: String,
    /// The calendar ids it serves.
    pub calendars: Vec<String>,
    /// Hex SHA-256 of the secret.
    secret_sha256: String,
    /// RFC 3339.
    pub created: String,
}

/// A feed just made, with its secret: the only time anyone sees it.
#[derive(Debug)]
pub struct NewFeed {
    pub feed: Feed,
    pub secret: String,
}

/// Why a feed could not be made, revoked or listed.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error("a feed needs a name and at least one calendar")]
    Empty,
    #[error("unknown calendar ids {unknown:?}; known: {known}")]
    UnknownCalendars { unknown: Vec<String>, known: String },
    #[error("no feed with id `{0}`")]
    Unknown(Uuid),
    #[error("the feeds file {path} cannot be used: {reason}")]
    File { path: PathBuf, reason: String },
}

/// Random characters in a secret (alphanumeric: about 357 bits).
const SECRET_CHARS: usize = 60;

/// The feeds of one instance.
#[derive(Debug, Clone)]
pub struct FeedStore {
    path: PathBuf,
}

impl FeedStore {
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    /// Every feed, oldest first.
    pub fn list(&self) -> Result<Vec<Feed>, FeedError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.error(e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Makes a feed of `calendars` called `name`.
    pub fn create(&self, name: &str, calendars: Vec<String>) -> Result<NewFeed, FeedError> {
        let name = name.trim();
        if name.is_empty() || calendars.is_empty() {
            return Err(FeedError::Empty);
        }
        let secret: String = rand::rng()
            .sample_iter(Alphanumeric)
            .take(SECRET_CHARS)
            .map(char::from)
            .collect();
        let feed = Feed {
            id: Uuid::new_v4(),
            name: name.to_string(),
            calendars,
            secret_sha256: digest(&secret),
            created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        let mut feeds = self.list()?;
        feeds.push(feed.clone());
        self.save(&feeds)?;
        Ok(NewFeed { feed, secret })
    }

    /// Makes a feed called `name` of `calendars`, each one of `settings`'
    /// calendar sources.
    pub fn create_of(
        &self,
        settings: &Settings,
        name: &str,
        calendars: Vec<String>,
    ) -> Result<NewFeed, FeedError> {
        let known = |id: &String| settings.calendar_sources.iter().any(|s| s.id == *id);
        let unknown: Vec<String> = calendars.iter().filter(|id| !known(id)).cloned().collect();
        if !unknown.is_empty() {
            let known: Vec<&str> = settings
                .calendar_sources
                .iter()
                .map(|s| s.id.as_str())
                .collect();
            return Err(FeedError::UnknownCalendars {
                unknown,
                known: known.join(", "),
            });
        }
        self.create(name, calendars)
    }

    /// Deletes feed `id`: its URL stops working.
    pub fn revoke(&self, id: Uuid) -> Result<(), FeedError> {
        let mut feeds = self.list()?;
        let before = feeds.len();
        feeds.retain(|f| f.id != id);
        if feeds.len() == before {
            return Err(FeedError::Unknown(id));
        }
        self.save(&feeds)
    }

    /// The feed whose secret this is (compared in constant time).
    pub fn find(&self, secret: &str) -> Option<Feed> {
        let wanted = digest(secret);
        let feeds = self
            .list()
            .inspect_err(|e| tracing::error!(error = %e, "feeds unavailable"))
            .ok()?;
        feeds
            .into_iter()
            .find(|f| bool::from(f.secret_sha256.as_bytes().ct_eq(wanted.as_bytes())))
    }

    fn save(&self, feeds: &[Feed]) -> Result<(), FeedError> {
        let json = serde_json::to_vec_pretty(feeds).map_err(|e| self.error(e))?;
        atomic_write_private(&self.path, &json).map_err(|e| self.error(e))
    }

    fn error(&self, reason: impl std::fmt::Display) -> FeedError {
        FeedError::File {
            path: self.path.clone(),
            reason: reason.to_string(),
        }
    }
}

/// The URL feed `secret` is served at by the CalDAV server of `settings`.
pub fn feed_url(settings: &Settings, secret: &str) -> String {
    format!(
        "http://127.0.0.1:{}/feeds/{secret}.ics",
        settings.caldav_server.port
    )
}

fn digest(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_is_found_by_its_secret_until_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let store = FeedStore::new(dir.path().join("feeds.json"));
        let made = store.create("Phone", vec!["work".into()]).unwrap();
        assert_eq!(made.secret.len(), SECRET_CHARS);
        let stored = std::fs::read_to_string(dir.path().join("feeds.json")).unwrap();
        assert!(!stored.contains(&made.secret), "only the digest is stored");
        assert_eq!(store.find(&made.secret).unwrap().id, made.feed.id);
        assert!(store.find("guess").is_none());
        store.revoke(made.feed.id).unwrap();
        assert!(store.find(&made.secret).is_none());
        assert!(matches!(
            store.revoke(made.feed.id),
            Err(FeedError::Unknown(_))
        ));
        assert!(matches!(
            store.create(" ", vec!["a".into()]),
            Err(FeedError::Empty)
        ));
    }
}
