//! The calendar engine: Markdown notes (Obsidian Full Calendar's vault format)
//! and remote ICS feeds, cached in memory and kept fresh by a file watcher.
//!
//! [`Calendar`] is the one entry point. Reads ([`Calendar::query`],
//! [`Calendar::details`]) answer from the in-memory cache and never touch the
//! disk; writes go to the notes atomically and update the cache before they
//! return; external edits arrive through the watcher. [`Calendar::subscribe`]
//! tells anyone interested (the UI, tests) that the cache changed.
//!
//! # Rooms
//!
//! Each folder holds one concern and says in its module doc what lives there
//! and what it may import:
//! The event model (the event as clients see it, what they send, ids,
//! queries, status, the one error type, the validated internal form) and
//! series expansion are not rooms of the engine but a crate below it,
//! `almanac_model` (`src-tauri/model`), so that nothing they hold can import
//! the engine, a source or a server: every room here, and every module of
//! the crate that reads or serves events (`ics`, `api`, `rest`, …), imports
//! them from there. The names most used are re-exported here.
//!
//! - [`index`]: the in-memory cache, the occurrence index and the reads over
//!   them, the journal of changed notes;
//! - `engine`: the [`Calendar`] handle and its state, and how its `impl`
//!   blocks are composed across the rooms; the watcher, the feed worker, the
//!   settings followed;
//! - `write`: writes routed by source kind and written into notes;
//! - [`sources`]: a source's settings resolved against the vault
//!   (`resolved`), and reading (and writing) each source kind (`fullnote`,
//!   `dailynote`, `ical`, `caldav`, `tasks`, …); the CalDAV client, engine
//!   side included, is all in `sources::caldav`.
//!
//! And at the root, the vault on disk: [`frontmatter`] (YAML frontmatter
//! split / parse / order-preserving rewrite), `vault` (every path confined
//! to the vault) and `vault_folder` (a note created through opened folder
//! handles).

mod engine;
pub mod frontmatter;
pub mod index;
pub mod sources;
mod vault;
#[cfg(unix)]
mod vault_folder;
mod write;

pub use almanac_model::error::CalendarError;
pub use almanac_model::event::{
    Alarm, AlarmAction, Completion, DayOfWeek, DisplayMode, Event, EventDetails, EventType,
    FileRef, Location, Relation, RepeatOn,
};
pub use almanac_model::fields::EventFields;
pub use almanac_model::id::EventId;
pub use almanac_model::query::{
    EventClock, EventMembers, EventQuery, JsonAnswer, QueryAnswer, RangeSide, busy_periods,
    parse_range_bound,
};
pub use almanac_model::status::{CacheStats, SeriesLeftOut, SkippedNote, VaultStatus};
pub use engine::source_info::SourceInfo;
pub use engine::{Calendar, WeakCalendar};
pub use index::journal::NoteKey;
pub(crate) use index::listing::{EntryMemo, MatchedEntry, Remembered};
pub use index::note_occurrences::{NoteEvents, NoteOccurrence, NoteOccurrences, Notes};
pub use write::notes::TakenName;
