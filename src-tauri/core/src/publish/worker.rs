//! The worker that keeps every published calendar in sync: a vault edit is
//! pushed [`DEBOUNCE`] after the calendar last changed (edits in a burst go
//! out together), the server is asked for the phone's changes every
//! `pollSeconds`, and [`SyncNow`] asks at once. A busy server's
//! `Retry-After` holds that calendar's passes back until it has passed.
//! Passes run one at a time, off the async workers; each reads the
//! account's password from the keyring when it starts.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::pass::PassError;
use super::{Published, Publisher, password_key};
use crate::calendar::Calendar;
use crate::calendar::sources::caldav::DavError;
use crate::calendar::sources::caldav::password::Passwords;
use crate::settings::{PublishedCalendar, Settings, SettingsStore};

/// How long after the last vault change its push starts: long enough for
/// an editor's burst of saves (a rename is a delete and a create), short
/// enough that an edit is on the server within a second or two.
pub const DEBOUNCE: Duration = Duration::from_millis(500);

/// Asks the worker for a pass of every published calendar now.
#[derive(Clone, Default)]
pub struct SyncNow(Arc<Notify>);

impl SyncNow {
    pub fn request(&self) {
        self.0.notify_one();
    }
}

/// Starts the worker on the current tokio runtime. It holds the publisher
/// and the settings weakly: it stops once the engine they belong to is
/// dropped.
pub fn start(
    publisher: &Arc<Publisher>,
    settings: &Arc<SettingsStore>,
    calendar: &Calendar,
) -> SyncNow {
    let now = SyncNow::default();
    tokio::spawn(run(
        Arc::downgrade(publisher),
        Arc::downgrade(settings),
        calendar.subscribe(),
        settings.subscribe(),
        now.0.clone(),
    ));
    now
}

async fn run(
    publisher: Weak<Publisher>,
    settings: Weak<SettingsStore>,
    mut edits: tokio::sync::watch::Receiver<u64>,
    mut changed_settings: tokio::sync::watch::Receiver<Arc<Settings>>,
    asked: Arc<Notify>,
) {
    // By calendar id: when its next poll is due (absent: now), and until
    // when its server asked to be left alone.
    let mut due: HashMap<String, Instant> = HashMap::new();
    let mut busy_until: HashMap<String, Instant> = HashMap::new();
    let mut push_at: Option<Instant> = None;
    loop {
        let Some(published) = settings
            .upgrade()
            .map(|s| s.get().published_calendars.clone())
        else {
            return;
        };
        due.retain(|id, _| published.iter().any(|p| p.calendar_id == *id));
        let start = Instant::now();
        let push = push_at.is_some_and(|at| at <= start);
        if push {
            push_at = None;
        }
        for entry in &published {
            let id = &entry.calendar_id;
            let polled = due.get(id).is_none_or(|at| *at <= start);
            let held = busy_until.get(id).is_some_and(|until| *until > start);
            if held || !(push || polled) {
                continue;
            }
            let Some(publisher) = publisher.upgrade() else {
                return;
            };
            let wait = pass(publisher, entry).await;
            let poll = Duration::from_secs(u64::from(entry.poll_seconds));
            match wait {
                Some(busy) => {
                    busy_until.insert(id.clone(), Instant::now() + busy);
                    due.insert(id.clone(), Instant::now() + busy.max(poll));
                }
                None => {
                    busy_until.remove(id);
                    due.insert(id.clone(), Instant::now() + poll);
                }
            }
        }
        let wake = due.values().chain(push_at.iter()).min().copied();
        tokio::select! {
            changed = edits.changed() => {
                if changed.is_err() {
                    return;
                }
                if !published.is_empty() {
                    push_at = Some(Instant::now() + DEBOUNCE);
                }
            }
            changed = changed_settings.changed() => {
                if changed.is_err() {
                    return;
                }
                // A calendar published or changed: its first pass now.
                due.clear();
            }
            () = asked.notified() => {
                due.clear();
                busy_until.clear();
            }
            () = sleep_until(wake) => {}
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// One pass of `entry`, off the async workers; how long its server asked
/// to be left alone, if it did.
async fn pass(publisher: Arc<Publisher>, entry: &PublishedCalendar) -> Option<Duration> {
    let published = Published {
        calendar_id: entry.calendar_id.clone(),
        collection_url: entry.url.clone(),
        username: entry.username.clone(),
    };
    let result = tokio::task::spawn_blocking(move || {
        let password = match Passwords::default().get(&password_key(&published.calendar_id)) {
            Ok(password) => password.unwrap_or_default(),
            Err(error) => {
                tracing::warn!(%error, calendar = %published.calendar_id, "no keyring for the published calendar's password");
                String::new()
            }
        };
        publisher.sync(&published, &password)
    })
    .await;
    match result {
        Ok(Ok(outcome)) => {
            tracing::debug!(calendar = %entry.calendar_id, ?outcome, "published calendar synced");
            None
        }
        Ok(Err(PassError::Server(DavError::Busy(wait)))) => Some(wait),
        Ok(Err(error)) => {
            tracing::warn!(calendar = %entry.calendar_id, %error, "published calendar not synced");
            None
        }
        Err(error) => {
            tracing::error!(calendar = %entry.calendar_id, %error, "a publish pass failed");
            None
        }
    }
}
