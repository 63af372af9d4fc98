//! The in-process API (spec C): what scripts inside the process use, and the
//! layer the REST server is a thin shell over.
//!
//! - [`registry`]: plugin objects by id; the calendar's is under
//!   [`PLUGIN_ID`] (`full-calendar`).
//! - [`plugin`]: [`CalendarPlugin`] — `with_token`, `request_access`, and the
//!   token check the REST server shares.
//! - [`authorized`]: [`AuthorizedApi`] — every operation, each behind its scope.
//! - [`quick_add`]: [`AuthorizedApi::quick_add`], a line read as an event;
//!   [`quick_line`]: the line read against the running calendar (its zone,
//!   its calendars' names, the calendar the event goes to).
//! - [`event_times`]: [`EventTimes`], an event's start and end in UTC and
//!   in the display zone, as REST and MCP answer them.
//! - [`request`]: the `getEvents` filter and the event-write `options`.
//! - [`ui`] / [`consent`]: what the API needs from the desktop shell (windows,
//!   a consent dialog), with headless implementations; [`consent_gate`]
//!   rate-limits and queues access requests, [`shown_text`] makes a
//!   request's text safe to show.
//! - [`history`]: the history of changes, listed and undone.
//! - `query_slots`: the threads that event queries run on, shared by
//!   REST's `GET /events` and MCP's tool calls, each token its share; it
//!   answers with its own `QueryRefused`, which each server turns into its
//!   answer.
//! - [`state`]: `getInternalState()`'s answer.
//! - [`error`]: [`ApiError`], with its REST status and code.

pub mod authorized;
pub mod changes;
pub mod client_calendars;
pub mod consent;
pub mod consent_gate;
pub mod error;
pub mod event_times;
pub mod history;
pub mod idempotency;
pub mod plugin;
pub(crate) mod query_slots;
pub mod quick_add;
pub mod quick_line;
pub mod registry;
pub mod request;
mod scope_check;
pub mod shown_text;
pub mod state;
pub mod ui;

pub use authorized::AuthorizedApi;
pub use consent::{
    AccessRequest, Consent, ConsentPrompt, DeclineAll, ShownRequest, ShownWrite, WriteConfirmation,
};
pub use consent_gate::MAX_REQUESTS_PER_MINUTE;
pub use error::ApiError;
pub use event_times::{EventTimes, TimedDetails, TimedEvent, Timing};
pub use idempotency::IdempotencyKey;
pub use plugin::{CalendarPlugin, MAX_REASON_CHARS, PLUGIN_ID};
pub use quick_add::QuickAdded;
pub use registry::Registry;
pub use request::{DateRange, EventFilter, EventOptions};
pub use state::InternalState;
pub use ui::{HeadlessUi, UiController, UiUnavailable};
