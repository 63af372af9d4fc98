//! The calendar engine: Markdown notes (Obsidian Full Calendar's vault format)
//! and remote ICS feeds, cached in memory and kept fresh by a file watcher.
//!
//! [`Calendar`] is the one entry point. Reads ([`Calendar::query`],
//! [`Calendar::details`]) answer from the in-memory cache and never touch the
//! disk; writes go to the notes atomically and update the cache before they
//! return; external edits arrive through the watcher. [`Calendar::subscribe`]
//! tells anyone interested (the UI, tests) that the cache changed.
//!
//! Modules, one concept each:
//! - [`event`], [`fields`], [`query`], [`status`], [`error`]: the public model;
//! - [`id`]: event ids, parsed and formatted in one place;
//! - [`frontmatter`]: YAML frontmatter split / parse / order-preserving rewrite;
//! - [`kinds`]: the registry of source kinds, one `match` per capability,
//!   and a source's settings resolved against the vault;
//! - [`sources`]: reading each source type (`fullnote`, `dailynote`, `ical`,
//!   `caldav`, `tasks`);
//! - `spec`: the validated internal form every source converts to;
//! - `recurrence`: time spans and series expansion; `recurrence_set`: the
//!   iCalendar series (several rules, RDATE, EXDATE, EXRULE); `rule_text`:
//!   RRULE text shared with the iCalendar writer;
//! - `cache`: the in-memory index; `scan`: the parallel vault scan;
//!   `occurrence_index`: every range read's occurrences, and `read`: the
//!   reads over it; `event_json`: an entry's event kept as JSON bytes, which
//!   answers are written from; `per_day`: the window's capped day view;
//!   `search`: the window's search, one match per event;
//! - `budget`: a query's cost ceiling; `memo`: the bounded memo of expanded
//!   series years;
//! - `journal`: which notes changed, and `note_occurrences`: their
//!   occurrences in a window, for followers such as vault reminders;
//! - `api`: every public method of [`Calendar`] (the reads, and the entry
//!   points of everything else); `engine`: the handle and its state;
//!   `listing`: a whole calendar unexpanded (CalDAV collections, feeds);
//!   `reread`: re-reading notes into the cache; `feeds`: the ICS feed
//!   worker; `dispatch`: writes, routed by source type; `detach`: one
//!   occurrence of a note series edited or cancelled on its own; `adopt`:
//!   putting settings in place;
//! - `watcher`: external changes; `write`: creates, updates, deletes;
//! - `follow`: adopting settings changes, retrying an unavailable vault;
//! - `vault`: confining every path to the vault; `written`: the rules for
//!   what clients write (no control characters, no sub-hourly series).

mod adopt;
mod api;
mod budget;
pub(crate) mod cache;
mod caldav_move;
mod caldav_source;
mod caldav_write;
mod detach;
mod dispatch;
mod engine;
pub mod error;
pub mod event;
mod event_json;
mod feeds;
pub mod fields;
mod follow;
pub mod frontmatter;
pub mod id;
mod journal;
pub mod kinds;
mod listing;
mod memo;
mod note_occurrences;
mod occurrence_index;
pub mod per_day;
pub mod query;
mod read;
pub(crate) mod recurrence;
pub(crate) mod recurrence_set;
mod reread;
pub(crate) mod rule_parse;
pub(crate) mod rule_text;
mod scan;
pub mod search;
pub mod sources;
pub(crate) mod spec;
pub mod status;
mod vault;
#[cfg(unix)]
mod vault_folder;
mod watcher;
mod write;
mod written;

pub use engine::{Calendar, WeakCalendar};
pub use error::CalendarError;
pub use event::{
    Alarm, AlarmAction, Completion, DayOfWeek, DisplayMode, Event, EventDetails, EventType,
    FileRef, Location, Relation, RepeatOn,
};
pub use fields::EventFields;
pub use id::EventId;
pub use journal::NoteKey;
pub(crate) use listing::{EntryMemo, MatchedEntry, Remembered};
pub use note_occurrences::{NoteEvents, NoteOccurrence, NoteOccurrences, Notes};
pub use query::{
    EventClock, EventMembers, EventQuery, JsonAnswer, QueryAnswer, RangeSide, busy_periods,
    parse_range_bound,
};
pub use status::{CacheStats, SeriesLeftOut, SkippedNote, SourceInfo, VaultStatus};
pub use write::TakenName;
