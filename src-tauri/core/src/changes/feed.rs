//! The numbered history of changes, and waiting for the next one.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::watch;
use utoipa::ToSchema;

/// Entries kept; a cursor further behind is [`Gone`].
pub const HISTORY: usize = 10_000;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub enum ChangeKind {
    #[serde(rename = "event.created")]
    EventCreated,
    #[serde(rename = "event.updated")]
    EventUpdated,
    #[serde(rename = "event.deleted")]
    EventDeleted,
    /// The calendar's status changed (fetched, failing, recovered, added or
    /// removed).
    #[serde(rename = "calendar.status")]
    CalendarStatus,
    /// A reminder fired (on time; not the summary of those missed while
    /// Almanac was closed).
    #[serde(rename = "reminder.fired")]
    ReminderFired,
}

/// What an entry is about, before the feed numbers it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct About {
    #[serde(rename = "type")]
    pub kind: ChangeKind,
    /// The calendar; absent for a reminder that belongs to no event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calendar_id: Option<String>,
    /// The event's id (a series: the series); absent for `calendar.status`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
    /// `reminder.fired`: the reminder's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reminder_id: Option<String>,
}

impl About {
    /// An entry about event `event` of calendar `calendar`, or about the
    /// calendar itself.
    pub fn calendar(kind: ChangeKind, calendar: &str, event: Option<&str>) -> Self {
        Self {
            kind,
            calendar_id: Some(calendar.to_string()),
            event_id: event.map(str::to_string),
            reminder_id: None,
        }
    }
}

/// One entry of the feed.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// One more than the entry before it.
    pub id: u64,
    /// When the change was seen (RFC 3339, UTC).
    pub at: String,
    #[serde(flatten)]
    pub about: About,
}

/// A cursor the feed can no longer answer from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gone {
    /// The newest entry's id (0 before the first): follow on from here.
    pub current: u64,
}

/// The feed. Cheap to clone; every clone is the same feed.
#[derive(Debug, Clone)]
pub struct ChangeFeed {
    entries: Arc<Mutex<VecDeque<Change>>>,
    last: Arc<watch::Sender<u64>>,
}

impl Default for ChangeFeed {
    fn default() -> Self {
        Self {
            entries: Arc::default(),
            last: Arc::new(watch::channel(0).0),
        }
    }
}

impl ChangeFeed {
    /// Appends one entry per change and wakes followers.
    pub fn push(&self, changes: impl IntoIterator<Item = About>) {
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut entries = self.lock();
        let mut last = *self.last.borrow();
        for about in changes {
            last += 1;
            entries.push_back(Change {
                id: last,
                at: at.clone(),
                about,
            });
            if entries.len() > HISTORY {
                entries.pop_front();
            }
        }
        self.last.send_replace(last);
    }

    /// The newest entry's id (0 before the first).
    pub fn last_id(&self) -> u64 {
        *self.last.borrow()
    }

    /// The entries after `since`, oldest first.
    pub fn since(&self, since: u64) -> Result<Vec<Change>, Gone> {
        let entries = self.lock();
        let current = self.last_id();
        let first = entries.front().map_or(current + 1, |c| c.id);
        if since > current || since + 1 < first {
            return Err(Gone { current });
        }
        let skip = (since + 1 - first) as usize;
        Ok(entries.iter().skip(skip).cloned().collect())
    }

    /// Waits until there is an entry after `since`, at most `timeout`.
    pub async fn wait_after(&self, since: u64, timeout: Duration) {
        let mut last = self.last.subscribe();
        let _ = tokio::time::timeout(timeout, last.wait_for(|id| *id > since)).await;
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<Change>> {
        // A panic while holding it cannot leave the queue half-written.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn created(feed: &ChangeFeed, n: usize) {
        feed.push(
            (0..n).map(|i| About::calendar(ChangeKind::EventCreated, "c", Some(&format!("e{i}")))),
        );
    }

    #[test]
    fn ids_rise_by_one_and_a_cursor_reads_what_follows_it() {
        let feed = ChangeFeed::default();
        assert_eq!(feed.since(0), Ok(vec![]));
        created(&feed, 3);
        let all = feed.since(0).unwrap();
        assert_eq!(all.iter().map(|c| c.id).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(feed.since(2).unwrap()[0].id, 3);
        assert_eq!(feed.since(3), Ok(vec![]));
    }

    #[test]
    fn a_cursor_past_the_history_or_from_another_run_is_gone() {
        let feed = ChangeFeed::default();
        created(&feed, HISTORY + 5);
        assert_eq!(
            feed.since(0),
            Err(Gone {
                current: HISTORY as u64 + 5
            })
        );
        assert_eq!(feed.since(5).unwrap().len(), HISTORY);
        assert_eq!(
            feed.since(999_999),
            Err(Gone {
                current: HISTORY as u64 + 5
            })
        );
    }

    #[tokio::test]
    async fn a_waiter_wakes_on_the_next_entry() {
        let feed = ChangeFeed::default();
        let waiter = {
            let feed = feed.clone();
            tokio::spawn(async move { feed.wait_after(0, Duration::from_secs(60)).await })
        };
        created(&feed, 1);
        tokio::time::timeout(Duration::from_secs(10), waiter)
            .await
            .expect("woken")
            .unwrap();
    }
}
