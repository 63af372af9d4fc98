//! The CalDAV sources' side of the feed worker: their mirrors loaded at
//! start, then synced (incrementally, see `sources::caldav::sync`) with the
//! ICS feeds' schedule and on demand, each failure recorded on its own
//! source so one calendar's trouble never touches another's.

use chrono_tz::Tz;
use reqwest::Url;

use super::engine::{Inner, lock};
use super::feeds::ICS_MIN_INTERVAL;
use super::sources::caldav::mirror::Mirror;
use super::sources::caldav::{DavClient, DavError, account, discover, sync};
use super::sources::{ParsedNote, SourceConfig, SourceType, ical};

impl Inner {
    /// Shows the on-disk mirror of CalDAV source `index`, if any.
    pub(super) fn load_caldav_mirror(&self, index: usize, source: &SourceConfig) {
        if let Some(mirror) = self.mirrors.load(&source.id) {
            let tz = self.read().cache.display_tz;
            self.apply_mirror(index, source, &mirror, tz, self.waiting(source));
        }
    }

    /// Syncs CalDAV source `index` when due (always with `force`).
    pub(super) fn sync_caldav(&self, index: usize, source: &SourceConfig, force: bool) {
        let fetched_at = self
            .mirrors
            .load(&source.id)
            .and_then(|m| m.fetched_at_millis);
        let now = chrono::Utc::now().timestamp_millis();
        let fresh = fetched_at.is_some_and(|at| now - at < ICS_MIN_INTERVAL.as_millis() as i64);
        if fresh && !force {
            return;
        }
        let tz = self.read().cache.display_tz;
        let _sync = lock(&self.caldav_lock);
        let mut mirror = self.mirrors.load(&source.id).unwrap_or_default();
        // Writes made while offline go first, so the sync reads them back.
        let outcome = self.connect(source).and_then(|(client, calendar)| {
            let notes = self.replay_queued(source, &client)?;
            let changed = sync::sync(&client, &calendar, &mut mirror).map_err(|e| e.to_string())?;
            Ok((changed, notes))
        });
        match outcome {
            Ok((changed, notes)) => {
                if changed && let Err(error) = self.mirrors.store(&source.id, &mirror) {
                    tracing::warn!(source = %source.id, %error, "could not cache the CalDAV calendar on disk");
                }
                let notes = (!notes.is_empty()).then(|| notes.join("; "));
                self.apply_mirror(index, source, &mirror, tz, notes);
            }
            Err(error) => {
                let error = match self.waiting(source) {
                    Some(waiting) => format!("{error}; {waiting}"),
                    None => error,
                };
                self.apply_mirror(index, source, &mirror, tz, Some(error));
            }
        }
    }

    /// A client for `source` with its password from the keyring, and the
    /// calendar's URL (discovered when the settings have none yet).
    pub(super) fn connect(&self, source: &SourceConfig) -> Result<(DavClient, Url), String> {
        let SourceType::Caldav {
            server,
            username,
            calendar,
        } = &source.kind
        else {
            return Err("not a CalDAV calendar".into());
        };
        let password = self
            .passwords
            .get(&source.id)
            .map_err(|e| e.to_string())?
            .ok_or("no password is stored for this calendar; enter it in Settings")?;
        let client = DavClient::new(username, &password).map_err(|e| e.to_string())?;
        let calendar = match calendar.as_str() {
            "" => match self.mirrors.load(&source.id) {
                Some(mirror) if !mirror.calendar_url.is_empty() => {
                    self.remember_calendar_url(source, server, &mirror.calendar_url);
                    mirror.calendar_url
                }
                _ => {
                    let url = discover::calendars(&client, server)
                        .map_err(|e| e.to_string())?
                        .into_iter()
                        .next()
                        .ok_or_else(|| DavError::Protocol("the server has no calendar".into()))
                        .map_err(|e| e.to_string())?
                        .url;
                    self.remember_calendar_url(source, server, &url);
                    url
                }
            },
            url => url.to_string(),
        };
        let calendar = Url::parse(&calendar).map_err(|e| format!("invalid calendar URL: {e}"))?;
        Ok((client, calendar))
    }

    /// Writes the discovered `url` into the settings, so the next start need
    /// not discover it again (the settings' change is adopted like any other).
    fn remember_calendar_url(&self, source: &SourceConfig, server: &str, url: &str) {
        let Some(store) = lock(&self.settings).upgrade() else {
            return;
        };
        if let Err(error) = account::remember_calendar_url(&store, &source.id, server, url) {
            tracing::warn!(source = %source.id, %error, "could not keep the discovered calendar URL in the settings");
        }
    }

    /// Puts the mirror's events into the cache, with the sync's `error` (the
    /// events stay) or the resources that are not iCalendar as the status.
    pub(super) fn apply_mirror(
        &self,
        index: usize,
        source: &SourceConfig,
        mirror: &Mirror,
        tz: Tz,
        error: Option<String>,
    ) {
        let mut parsed = ParsedNote::default();
        let mut unreadable = Vec::new();
        for (href, resource) in &mirror.resources {
            match ical::parse(source, &resource.ics, tz) {
                Ok(note) => {
                    parsed.entries.extend(note.entries);
                    parsed.skipped.extend(note.skipped);
                }
                Err(reason) => {
                    let name = href.rsplit('/').next().unwrap_or(href);
                    unreadable.push(format!("{name} ({reason})"));
                }
            }
        }
        let mut state = self.write();
        // The sources may have been reconfigured while the server answered.
        if state.cache.config(index) != Some(source) {
            return;
        }
        state.cache.put_note(index, "", parsed);
        let fetched = mirror
            .fetched_at_millis
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339());
        state.cache.feed_fetched(index, fetched);
        let problem = error.or_else(|| {
            (!unreadable.is_empty()).then(|| {
                format!(
                    "{} event(s) on the server are not valid iCalendar and are not shown: {}",
                    unreadable.len(),
                    unreadable.join(", ")
                )
            })
        });
        if let Some(problem) = problem {
            tracing::warn!(source = %source.id, error = %problem, "CalDAV calendar not fully updated");
            state.cache.feed_failed(index, problem);
        }
        drop(state);
        self.bump();
    }
}
