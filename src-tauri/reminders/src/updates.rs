//! Opt-in release awareness for `GET /updates`.
//!
//! When enabled, a background task fetches the configured feed (a JSON
//! document shaped like a GitHub "latest release") at start and then every
//! `interval`, and caches what it learned; the route only reads the cache,
//! so no request ever waits on the network. Disabled, nothing is fetched and
//! the route says `"enabled": false`. [`Updates::reconfigure`] switches
//! checks on or off, or to another feed, while the daemon runs.
//!
//! A feed body is read up to [`MAX_FEED_BYTES`] and no further: a release
//! document is a few kilobytes, and a feed that streams more is reported as
//! an error rather than buffered.
//!
//! The route answers without a token (the daemon has none; its guard keeps
//! web pages out), so what it shows is kept to what a release says: the
//! fetch goes through `almanac-netguard` (public addresses only, checked at
//! connect and on every redirect), only the parsed release fields are kept
//! (each bounded, the link only if it is an http(s) URL), and no error
//! quotes the body.

use std::sync::RwLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use almanac_netguard as netguard;

use crate::clock;
use crate::config::UpdateConfig;

const CURRENT_VERSION: &str = env!("CARGO_PKG_VERSION");
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of a feed body that is read (1 MiB).
pub const MAX_FEED_BYTES: usize = 1024 * 1024;

/// A published release, as the feed describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReleaseInfo {
    pub version: String,
    pub name: String,
    pub html_url: String,
    pub published_at_rfc3339: String,
}

/// The cached state, a superset of FCR Reminder's `/updates` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpdateState {
    pub enabled: bool,
    pub feed_url: Option<String>,
    pub current_version: String,
    pub update_available: bool,
    pub latest_release: Option<ReleaseInfo>,
    /// 0 until the first check.
    pub last_checked_at_epoch: i64,
    pub next_check_at_epoch: Option<i64>,
    pub last_error: Option<String>,
    pub status_label: String,
}

/// The feed document (GitHub's "latest release" fields).
#[derive(Debug, Deserialize)]
struct FeedRelease {
    tag_name: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    published_at: Option<String>,
    #[serde(default)]
    draft: bool,
    #[serde(default)]
    prerelease: bool,
}

/// The cache the route reads and the checker writes.
#[derive(Debug)]
pub struct Updates {
    config: watch::Sender<UpdateConfig>,
    state: RwLock<UpdateState>,
}

/// The state before the first check of `config`.
fn unchecked(config: &UpdateConfig) -> UpdateState {
    let enabled = config.enabled && config.feed_url.is_some();
    let status_label = if enabled {
        "Update check pending"
    } else {
        "Update checks are off"
    };
    UpdateState {
        enabled,
        feed_url: config.feed_url.clone().filter(|_| enabled),
        current_version: CURRENT_VERSION.to_string(),
        update_available: false,
        latest_release: None,
        last_checked_at_epoch: 0,
        next_check_at_epoch: None,
        last_error: None,
        status_label: status_label.to_string(),
    }
}

impl Updates {
    pub fn new(config: UpdateConfig) -> Self {
        Self {
            state: RwLock::new(unchecked(&config)),
            config: watch::Sender::new(config),
        }
    }

    pub fn snapshot(&self) -> UpdateState {
        self.state.read().expect("update lock poisoned").clone()
    }

    /// Follows `config` from now on: the state starts over (what an old
    /// feed said is not about the new one) and the checker checks at once.
    /// An unchanged config changes nothing.
    pub fn reconfigure(&self, config: UpdateConfig) {
        let mut state = self.state.write().expect("update lock poisoned");
        self.config.send_if_modified(|current| {
            if *current == config {
                return false;
            }
            *state = unchecked(&config);
            *current = config;
            true
        });
    }

    /// Checks now and then every interval until shutdown, following
    /// [`Self::reconfigure`]; idle while checks are off.
    pub async fn run(&self, mut shutdown: watch::Receiver<bool>) {
        let mut configs = self.config.subscribe();
        loop {
            let config = configs.borrow_and_update().clone();
            let feed_url = config.feed_url.clone().filter(|_| config.enabled);
            if let Some(feed_url) = feed_url {
                let outcome = match &client(&config) {
                    Ok(client) => tokio::select! {
                        outcome = fetch(client, &feed_url, &config) => outcome,
                        _ = configs.changed() => continue,
                        _ = shutdown.changed() => return,
                    },
                    Err(error) => Err(error.clone()),
                };
                self.record(&config, outcome);
                tokio::select! {
                    () = tokio::time::sleep(config.interval) => {}
                    _ = configs.changed() => {}
                    _ = shutdown.changed() => return,
                }
            } else {
                tokio::select! {
                    _ = configs.changed() => {}
                    _ = shutdown.changed() => return,
                }
            }
        }
    }

    /// Caches the outcome of a check made under `config`, unless the config
    /// changed meanwhile (then the outcome is about a feed no longer asked).
    fn record(&self, config: &UpdateConfig, outcome: Result<Option<ReleaseInfo>, String>) {
        let mut state = self.state.write().expect("update lock poisoned");
        if *self.config.borrow() != *config {
            return;
        }
        let now = clock::now_epoch();
        let interval = i64::try_from(config.interval.as_secs()).unwrap_or(i64::MAX);
        state.last_checked_at_epoch = now;
        state.next_check_at_epoch = Some(now.saturating_add(interval));
        match outcome {
            Ok(release) => {
                state.last_error = None;
                state.update_available = release
                    .as_ref()
                    .is_some_and(|release| is_newer(&release.version, CURRENT_VERSION));
                state.status_label = match &release {
                    Some(release) if state.update_available => format!(
                        "Update available: {} (current {CURRENT_VERSION})",
                        release.version
                    ),
                    Some(_) => format!("You are up to date on {CURRENT_VERSION}"),
                    None => "No published release".to_string(),
                };
                state.latest_release = release;
            }
            Err(error) => {
                state.status_label = format!("Update check failed: {error}");
                state.last_error = Some(error);
            }
        }
    }
}

/// The client for `config`'s checks: guarded unless the config allows the
/// private network.
fn client(config: &UpdateConfig) -> Result<reqwest::Client, String> {
    let builder = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .user_agent(concat!("almanac-reminders/", env!("CARGO_PKG_VERSION")));
    let builder = if config.allow_private_network {
        builder
    } else {
        netguard::guard(builder, netguard::public_only)
    };
    builder
        .build()
        .map_err(|error| format!("cannot build an HTTP client: {error}"))
}

async fn fetch(
    client: &reqwest::Client,
    url: &str,
    config: &UpdateConfig,
) -> Result<Option<ReleaseInfo>, String> {
    let parsed = reqwest::Url::parse(url).map_err(|_| format!("invalid feed URL {url}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("{url} is not an http(s) URL"));
    }
    // A host written as an IP address is never resolved: checked here.
    if !config.allow_private_network {
        netguard::check_url(&parsed, netguard::public_only).map_err(|e| e.to_string())?;
    }
    let response = client
        .get(parsed)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|error| match netguard::refusal(&error) {
            Some(refused) => refused.to_string(),
            None => format!("cannot reach {url}: {}", error.without_url()),
        })?;
    if !response.status().is_success() {
        return Err(format!("{url} answered HTTP {}", response.status()));
    }
    let body = read_capped(response, MAX_FEED_BYTES).await?;
    // serde's message may quote the body: only where it broke is said.
    let release: FeedRelease = serde_json::from_slice(&body).map_err(|error| {
        format!(
            "unreadable release feed ({:?} error at line {}, column {})",
            error.classify(),
            error.line(),
            error.column()
        )
    })?;
    if release.draft || release.prerelease {
        return Ok(None);
    }
    Ok(Some(release_info(release)))
}

/// The longest text kept of a release field.
const MAX_FIELD_CHARS: usize = 256;

/// What `/updates` shows of a release: its fields, bounded, the link only
/// when it is an http(s) URL.
fn release_info(release: FeedRelease) -> ReleaseInfo {
    let bounded = |text: &str| text.chars().take(MAX_FIELD_CHARS).collect::<String>();
    let html_url = release
        .html_url
        .filter(|link| link.len() <= 2048)
        .and_then(|link| reqwest::Url::parse(&link).ok())
        .filter(|link| matches!(link.scheme(), "http" | "https"))
        .map(String::from)
        .unwrap_or_default();
    ReleaseInfo {
        version: bounded(release.tag_name.trim_start_matches('v')),
        name: bounded(release.name.as_deref().unwrap_or(&release.tag_name)),
        html_url,
        published_at_rfc3339: bounded(release.published_at.as_deref().unwrap_or_default()),
    }
}

/// The body of `response`, refused (and left unread) past `max_bytes`.
async fn read_capped(mut response: reqwest::Response, max_bytes: usize) -> Result<Vec<u8>, String> {
    let too_large =
        || format!("the release feed is larger than {max_bytes} bytes; stopped reading it");
    if response
        .content_length()
        .is_some_and(|length| length > max_bytes as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| format!("cannot read the release feed: {error}"))?
    {
        if body.len() + chunk.len() > max_bytes {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Whether `candidate` is a newer semantic version than `current`;
/// unparsable versions are never newer.
fn is_newer(candidate: &str, current: &str) -> bool {
    match (
        semver::Version::parse(candidate),
        semver::Version::parse(current),
    ) {
        (Ok(candidate), Ok(current)) => candidate > current,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_semantically() {
        assert!(is_newer("0.10.0", "0.9.9"));
        assert!(!is_newer("0.1.0", "0.1.0"));
        assert!(!is_newer("1.0.0-rc.1", "1.0.0"));
        assert!(!is_newer("garbage", "0.1.0"));
    }

    #[test]
    fn only_bounded_release_fields_are_kept() {
        let release = FeedRelease {
            tag_name: format!("v1.{}", "9".repeat(1000)),
            name: None,
            html_url: Some("javascript:alert(1)".into()),
            published_at: None,
            draft: false,
            prerelease: false,
        };
        let info = release_info(release);
        assert_eq!(info.version.chars().count(), MAX_FIELD_CHARS);
        assert_eq!(info.name.chars().count(), MAX_FIELD_CHARS);
        assert_eq!(info.html_url, "", "only http(s) links are kept");
    }

    #[test]
    fn disabled_updates_say_so() {
        let updates = Updates::new(UpdateConfig {
            enabled: false,
            feed_url: Some("http://127.0.0.1:1/feed".into()),
            ..UpdateConfig::default()
        });
        let state = updates.snapshot();
        assert!(!state.enabled);
        assert_eq!(state.feed_url, None);
    }
}
