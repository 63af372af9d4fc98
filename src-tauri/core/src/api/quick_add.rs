//! Quick-add through the API: a line read by [`crate::quick_add`] and, unless
//! only previewed, created as [`AuthorizedApi::create_event`] creates.

use chrono::{DateTime, Utc};

use super::authorized::AuthorizedApi;
use super::error::ApiError;
use super::quick_line::{self, QuickEvent};
use super::request::EventOptions;
use crate::calendar::Event;
use crate::tokens::Scope;

/// What quick-add did with a line: what it read, and the event as now
/// stored unless it was a dry run.
#[derive(Debug, Clone)]
pub struct QuickAdded {
    pub read: QuickEvent,
    pub created: Option<Event>,
}

impl AuthorizedApi {
    /// Reads `text` as a new event at `now` (the current time when `None`)
    /// in the display zone, going to the calendar the line names, else
    /// `calendar_id`, else the first writable one; creates it unless
    /// `dry_run`. Scope `events:write`, for a dry run too: a preview of a
    /// write is for those who may write.
    pub fn quick_add(
        &self,
        text: &str,
        calendar_id: Option<&str>,
        now: Option<DateTime<Utc>>,
        dry_run: bool,
    ) -> Result<QuickAdded, ApiError> {
        self.require(Scope::EventsWrite)?;
        let now = now.unwrap_or_else(Utc::now);
        let read = quick_line::read(&self.plugin.calendar, text, calendar_id, now)?;
        let created = match dry_run {
            true => None,
            false => Some(self.create_event(
                &read.calendar_id,
                read.fields.clone(),
                EventOptions::default(),
            )?),
        };
        Ok(QuickAdded { read, created })
    }

    /// [`AuthorizedApi::quick_add`], creating once per idempotency `key`
    /// when there is one ([`super::idempotency`]); a dry run needs none.
    pub fn quick_add_keyed(
        &self,
        key: Option<&super::IdempotencyKey>,
        text: &str,
        calendar_id: Option<&str>,
        now: Option<DateTime<Utc>>,
        dry_run: bool,
    ) -> Result<QuickAdded, ApiError> {
        let Some(key) = key.filter(|_| !dry_run) else {
            return self.quick_add(text, calendar_id, now, dry_run);
        };
        self.require(Scope::EventsWrite)?;
        let request = ("quick_add", text, calendar_id, now);
        self.plugin
            .idempotency
            .once(self.token_id(), key, request, || {
                self.quick_add(text, calendar_id, now, dry_run)
            })
    }
}
