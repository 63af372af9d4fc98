//! The change feed ([`crate::changes`]) as a token sees it: `events:read` to
//! follow it at all, and each entry only if the token's scopes cover it
//! (`calendar.status` needs `providers:read`, as the calendar list does).

use std::time::Duration;

use super::authorized::AuthorizedApi;
use super::error::ApiError;
use crate::changes::{Change, ChangeKind};
use crate::tokens::{Scope, ScopeSet};

/// The longest a caller may wait for a change.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// What changed after a cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePage {
    /// The entries this token may see, oldest first. Their ids rise by one
    /// where none was hidden from the token.
    pub changes: Vec<Change>,
    /// The newest entry's id: the cursor to read from next.
    pub last: u64,
}

impl AuthorizedApi {
    /// The entries after `since`. Scope `events:read`; a cursor older than
    /// the kept history, or from before a restart, is
    /// [`ApiError::ChangesGone`].
    pub fn changes_since(&self, since: u64) -> Result<ChangePage, ApiError> {
        let grant = self.require(Scope::EventsRead)?;
        let feed = &self.plugin.changes;
        let last = feed.last_id();
        let changes = feed
            .since(since)
            .map_err(|gone| ApiError::ChangesGone {
                current: gone.current,
            })?
            .into_iter()
            .filter(|change| visible(change.about.kind, &grant.scopes))
            .collect::<Vec<_>>();
        let last = changes.last().map_or(last, |c| c.id.max(last));
        Ok(ChangePage { changes, last })
    }

    /// The newest entry's id: where a new follower starts. Scope
    /// `events:read`.
    pub fn changes_cursor(&self) -> Result<u64, ApiError> {
        self.require(Scope::EventsRead)?;
        Ok(self.plugin.changes.last_id())
    }

    /// Waits, at most `timeout` (capped at [`MAX_WAIT`]), until the feed has
    /// an entry after `since`. Scope `events:read`.
    pub async fn wait_for_changes(&self, since: u64, timeout: Duration) -> Result<(), ApiError> {
        self.require(Scope::EventsRead)?;
        self.plugin
            .changes
            .wait_after(since, timeout.min(MAX_WAIT))
            .await;
        Ok(())
    }
}

/// Whether a token with `scopes` sees entries of `kind`.
fn visible(kind: ChangeKind, scopes: &ScopeSet) -> bool {
    match kind {
        ChangeKind::EventCreated
        | ChangeKind::EventUpdated
        | ChangeKind::EventDeleted
        | ChangeKind::ReminderFired => scopes.grants(Scope::EventsRead),
        ChangeKind::CalendarStatus => scopes.grants(Scope::ProvidersRead),
    }
}
