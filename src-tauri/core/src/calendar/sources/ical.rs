//! ICS calendars: a remote feed, read-only, cached on disk.
//!
//! The feed is fetched over HTTP(S) on a background thread, conditionally
//! (`If-None-Match` / `If-Modified-Since` from the last answer), and kept in
//! the ICS cache folder with its validators so the calendar is there at the
//! next start before the network answers. Feed URLs may embed secrets
//! (private calendar links), so they never appear in logs or error messages.
//!
//! Fetches only reach public addresses, on every redirect too, unless the
//! source allows the private network ([`super::net_guard`]). A body is read
//! as a stream and abandoned past [`MAX_FEED_BYTES`], so a feed that never
//! ends costs at most that much memory.
//!
//! The body is read into events by [`super::vcalendar`] ([`parse`]), its
//! values and zones by [`crate::ics`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::Utc;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::net_guard;
pub use super::vcalendar::{Parsed, override_keys, parse};
use crate::fsutil::atomic_write_private;

/// Feeds larger than this (20 MiB) are refused, and reading stops there (a
/// calendar is kilobytes to a few MB; years of a busy shared calendar stay
/// well under it).
pub const MAX_FEED_BYTES: u64 = 20 * 1024 * 1024;

/// What is remembered about the last successful fetch of a feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedMeta {
    /// Hash of the URL the body came from (the URL itself may be secret).
    pub url_hash: String,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub fetched_at_millis: i64,
}

/// The on-disk copies of the feeds.
#[derive(Debug, Clone)]
pub struct FeedCopies {
    dir: PathBuf,
}

fn hex_digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl FeedCopies {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    fn files(&self, source_id: &str) -> (PathBuf, PathBuf) {
        let stem = hex_digest(source_id);
        (
            self.dir.join(format!("{stem}.ics")),
            self.dir.join(format!("{stem}.json")),
        )
    }

    /// The cached body and its metadata, if they are for `url`.
    pub fn load(&self, source_id: &str, url: &str) -> Option<(String, FeedMeta)> {
        let (body, meta) = self.files(source_id);
        let meta: FeedMeta = serde_json::from_slice(&std::fs::read(meta).ok()?).ok()?;
        if meta.url_hash != hex_digest(url) {
            return None;
        }
        Some((std::fs::read_to_string(body).ok()?, meta))
    }

    /// Stores a body (when it changed) and its metadata, each atomically.
    pub fn store(
        &self,
        source_id: &str,
        body: Option<&str>,
        meta: &FeedMeta,
    ) -> std::io::Result<()> {
        let (body_path, meta_path) = self.files(source_id);
        if let Some(body) = body {
            atomic_write_private(&body_path, body.as_bytes())?;
        }
        let json = serde_json::to_vec_pretty(meta).map_err(std::io::Error::other)?;
        atomic_write_private(&meta_path, &json)
    }
}

/// The outcome of one conditional GET.
#[derive(Debug)]
pub enum Fetched {
    NotModified,
    Body {
        text: String,
        etag: Option<String>,
        last_modified: Option<String>,
    },
}

/// GETs `url`, conditionally on `previous`; public addresses only unless
/// `allow_private_network`. Errors never contain the URL.
pub fn fetch(
    url: &str,
    previous: Option<&FeedMeta>,
    allow_private_network: bool,
) -> Result<Fetched, String> {
    let builder = reqwest::blocking::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(concat!("Almanac/", env!("CARGO_PKG_VERSION")));
    let builder = if allow_private_network {
        builder
    } else {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("invalid feed URL: {e}"))?;
        net_guard::check_url(&parsed, net_guard::public_only).map_err(|e| e.to_string())?;
        net_guard::guard(builder, net_guard::public_only)
    };
    let client = builder
        .build()
        .map_err(|e| format!("cannot build HTTP client: {}", e.without_url()))?;
    let mut request = client.get(url);
    if let Some(meta) = previous {
        if let Some(etag) = &meta.etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(modified) = &meta.last_modified {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, modified);
        }
    }
    let response = request.send().map_err(|e| match net_guard::refusal(&e) {
        Some(refused) => refused.to_string(),
        None => format!("fetch failed: {}", e.without_url()),
    })?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_MODIFIED {
        return Ok(Fetched::NotModified);
    }
    if !status.is_success() {
        return Err(format!("the server answered {status}"));
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_FEED_BYTES)
    {
        return Err(too_large());
    }
    let header = |name: reqwest::header::HeaderName| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let etag = header(reqwest::header::ETAG);
    let last_modified = header(reqwest::header::LAST_MODIFIED);
    let mut bytes = Vec::new();
    response
        .take(MAX_FEED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the feed failed: {e}"))?;
    if bytes.len() as u64 > MAX_FEED_BYTES {
        return Err(too_large());
    }
    Ok(Fetched::Body {
        // Valid UTF-8 (the usual case) becomes the text without a copy.
        text: String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        etag,
        last_modified,
    })
}

fn too_large() -> String {
    format!(
        "the feed is larger than the {} MiB limit; reading stopped there",
        MAX_FEED_BYTES / (1024 * 1024)
    )
}

/// A new metadata record for a body fetched from `url` now.
pub fn meta_for(url: &str, etag: Option<String>, last_modified: Option<String>) -> FeedMeta {
    FeedMeta {
        url_hash: hex_digest(url),
        etag,
        last_modified,
        fetched_at_millis: Utc::now().timestamp_millis(),
    }
}
