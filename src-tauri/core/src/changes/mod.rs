//! The change feed: what changed in the calendar, as a numbered list that a
//! script follows (`GET /api/v1/changes`, long-polled or streamed) instead
//! of polling the events.
//!
//! - [`ChangeFeed`] keeps the last [`HISTORY`] entries. Ids rise by exactly
//!   one, so a follower that sees a gap knows it missed an entry; a cursor
//!   older than the history (or from before a restart: ids start again at 1
//!   with each run) is [`Gone`], with the current id to start again from.
//! - `follow` fills it: a thread follows the calendar engine's generation,
//!   whatever made the change (a note edited on disk, CalDAV, the window,
//!   REST, a feed refresh), and compares each calendar's events and status
//!   with what it saw before. The shell reports reminders firing
//!   ([`crate::app::Core::reminder_fired`]).
//! - Who sees what is decided in the API ([`crate::api::AuthorizedApi::changes_since`]).

mod feed;
mod follow;

pub use feed::{About, Change, ChangeFeed, ChangeKind, Gone, HISTORY};
pub use follow::follow;
