//! The history of changes through the API ([`crate::history`]): listing,
//! undoing one change, and undoing everything a token did since a time.
//!
//! Scope `events:write` for all three, as for writing events: seeing what
//! was written holds the notes' text, and an undo is a write. Tokens are
//! not limited to some calendars, so a token that may write events sees
//! and undoes the changes to every calendar.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use super::authorized::AuthorizedApi;
use super::error::ApiError;
use crate::calendar::{RangeSide, parse_range_bound};
use crate::history::{Change, ChangeFilter, UndoError, UndoneAll, acting_as};
use crate::tokens::Scope;

/// Most changes in one page of [`AuthorizedApi::list_changes`].
pub const MAX_PAGE: usize = 500;

/// One page of the history, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangePage {
    pub changes: Vec<Change>,
    /// `before` for the next page (older changes); absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<u64>,
}

/// What undoing several changes did.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    /// The changes the undos made, newest first (each `undoes` the one it
    /// took back).
    pub undone: Vec<Change>,
    /// The change it stopped at, and why; absent when it undid them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<Refused>,
}

/// A change that could not be undone.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Refused {
    pub id: u64,
    pub message: String,
}

impl AuthorizedApi {
    /// A `since` as a client sends it (RFC 3339, a local date-time or a
    /// date in the display zone, epoch milliseconds) as an instant.
    pub fn parse_since(&self, since: &str) -> Result<DateTime<Utc>, ApiError> {
        let zone = self.plugin.calendar.display_timezone();
        parse_range_bound(since, RangeSide::Start, zone)
            .ok()
            .and_then(DateTime::from_timestamp_millis)
            .ok_or_else(|| {
                ApiError::bad_request(
                    "since",
                    format!(
                        "`{since}` is not a time: send a date (2026-05-01), a date-time \
                         (2026-05-01T09:00, 2026-05-01T09:00:00Z) or epoch milliseconds"
                    ),
                )
            })
    }

    /// The changes matching `filter`, newest first, at most `limit`
    /// (1 to [`MAX_PAGE`]). Scope `events:write`.
    pub fn list_changes(
        &self,
        filter: &ChangeFilter,
        limit: usize,
    ) -> Result<ChangePage, ApiError> {
        self.require(Scope::EventsWrite)?;
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(ApiError::bad_request(
                "limit",
                format!("must be 1 to {MAX_PAGE}"),
            ));
        }
        let mut changes = self.plugin.calendar.history().list(filter, limit + 1);
        let next = (changes.len() > limit).then(|| {
            changes.truncate(limit);
            changes.last().map_or(0, |last| last.id)
        });
        Ok(ChangePage { changes, next })
    }

    /// The change `id` (404 when the history has none). Scope
    /// `events:write`.
    pub fn get_change(&self, id: u64) -> Result<Change, ApiError> {
        self.require(Scope::EventsWrite)?;
        self.plugin
            .calendar
            .history()
            .get(id)
            .ok_or_else(|| UndoError::NotFound(id).into())
    }

    /// Undoes change `id`: its files back byte for byte, refused (409,
    /// naming the note) when one changed since. Returns the change the
    /// undo made. Scope `events:write`.
    pub fn undo_change(&self, id: u64) -> Result<Change, ApiError> {
        self.require(Scope::EventsWrite)?;
        let _author = acting_as(self.author());
        Ok(self.plugin.calendar.undo(id)?)
    }

    /// Undoes the changes matching `filter` (everything a token did since
    /// a time), newest first, stopping at the first that cannot be undone.
    /// Scope `events:write`.
    pub fn undo_changes(&self, filter: &ChangeFilter) -> Result<UndoReport, ApiError> {
        self.require(Scope::EventsWrite)?;
        let _author = acting_as(self.author());
        Ok(self.plugin.calendar.undo_all(filter).into())
    }
}

impl From<UndoneAll> for UndoReport {
    fn from(done: UndoneAll) -> Self {
        UndoReport {
            undone: done.undone,
            refused: done.refused.map(|(id, error)| Refused {
                id,
                message: ApiError::from(error).to_string(),
            }),
        }
    }
}

impl From<UndoError> for ApiError {
    fn from(error: UndoError) -> Self {
        match error {
            UndoError::NotFound(_) => ApiError::NotFound(error.to_string()),
            UndoError::OtherVault { .. } | UndoError::Nothing(_) => {
                ApiError::Conflict(error.to_string())
            }
            UndoError::Calendar(error) => error.into(),
            UndoError::Unreadable(_) => ApiError::Internal(error.to_string()),
        }
    }
}
