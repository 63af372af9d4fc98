//! The command line's client: the operations `almanac events|agenda|
//! calendars|reminders` need, behind one small trait with two backends.
//!
//! - [`remote`]: the running instance over its REST server (127.0.0.1, the
//!   port from the settings), with a personal access token ([`token`]);
//! - [`direct`]: no instance runs, so the vault is opened in-process under
//!   the data folder's lock and the in-process API answers.
//!
//! [`connect`] chooses between them; [`fields`] turns `--start`/`--end`
//! values into an event's fields; [`rows`] prints what comes back (human,
//! `--json`, `--tsv`), [`published`] a published calendar's sync; [`failure`] gives every refusal its exit code.
//!
//! Both backends speak the REST wire shapes (JSON objects, camelCase), so
//! an event, a calendar and an id are the same whichever answered, and an id
//! printed here is one `DELETE /api/v1/events/{id}` accepts.

pub mod connect;
pub mod direct;
pub mod failure;
pub mod fields;
pub mod published;
pub mod remote;
pub mod rows;
pub mod sse;
pub mod token;

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde_json::Value;

pub use connect::connect;
pub use failure::{ClientError, Exit};

/// Which events `events list` and `agenda` ask for; every present criterion
/// must hold. Range bounds are in any form `GET /api/v1/events` takes (a
/// date, a date-time, epoch milliseconds), read in the display zone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub start: Option<String>,
    pub end: Option<String>,
    pub calendars: Option<Vec<String>>,
    pub text: Option<String>,
    /// `Some(true)`: only tasks.
    pub tasks: Option<bool>,
}

/// `events list`'s answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed {
    pub events: Vec<Value>,
    /// Why recurring series were left out of `events` (each needed more
    /// than its share of the query's expansion), for people.
    pub left_out: Vec<String>,
}

/// A quick-add line and how to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickLine {
    pub text: String,
    /// When the line names no calendar.
    pub calendar: Option<String>,
    /// The moment "tomorrow" counts from; now when absent.
    pub now: Option<DateTime<Utc>>,
    /// Only read the line, write nothing.
    pub dry_run: bool,
}

/// What the command line asks of Almanac. Events, calendars and reminders
/// are JSON objects in the REST API's shapes, each with its `id`.
pub trait Backend {
    /// The zone dates and times are read and shown in.
    fn display_zone(&self) -> Tz;
    /// Events matching `query`, series expanded, sorted by start.
    fn list_events(&self, query: &ListQuery) -> Result<Listed, ClientError>;
    /// One event with its note and line (`GET /events/{id}`'s `details`).
    fn show_event(&self, id: &str) -> Result<Value, ClientError>;
    /// Creates an event from `fields` (`POST /events`' `event`).
    fn create_event(&self, calendar: &str, fields: Value) -> Result<Value, ClientError>;
    /// Reads a line by the quick-add grammar; creates its event unless a
    /// dry run. Answers the event created, or on a dry run the fields read
    /// with their `calendarId`.
    fn quick_add(&self, line: &QuickLine) -> Result<Value, ClientError>;
    /// Changes event `id` (a merge patch), only its `occurrence` of a
    /// series when given, or moves it to calendar `move_to`.
    fn update_event(
        &self,
        id: &str,
        fields: Value,
        occurrence: Option<NaiveDate>,
        move_to: Option<&str>,
    ) -> Result<Value, ClientError>;
    /// Deletes event `id`, or only its `occurrence` of a series.
    fn delete_event(&self, id: &str, occurrence: Option<NaiveDate>) -> Result<(), ClientError>;
    /// The configured calendars, each published one with its sync's
    /// status as `published` ([`published::merged`]).
    fn calendars(&self) -> Result<Vec<Value>, ClientError>;
    /// Reminders still to fire, soonest first, as [`rows::reminder`] shapes
    /// them.
    fn upcoming_reminders(&self) -> Result<Vec<Value>, ClientError>;
    /// The changes in the history (`GET /history`'s `changes`), newest
    /// first, made with token `token` and at or after `since` when given.
    fn history(&self, token: Option<&str>, since: Option<&str>) -> Result<Vec<Value>, ClientError>;
    /// Undoes change `id`; answers the change the undo made.
    fn undo(&self, id: u64) -> Result<Value, ClientError>;
    /// Undoes everything token `token` did since `since`, newest first,
    /// stopping at the first refusal (`POST /history/undo`'s answer:
    /// `undone`, `refused`).
    fn undo_since(&self, token: &str, since: &str) -> Result<Value, ClientError>;
}
