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
//! - [`model`]: the event as clients see it, what they send, ids, queries,
//!   status, the one error type, and the validated internal form (`spec`);
//! - `series`: wall-clock times to instants, series to occurrences;
//! - [`index`]: the in-memory cache, the occurrence index and the reads over
//!   them, the journal of changed notes;
//! - `engine`: the [`Calendar`] handle and its state, and how its `impl`
//!   blocks are composed across the rooms; the watcher, the feed worker, the
//!   settings followed;
//! - `write`: writes routed by source kind and written into notes;
//! - [`kinds`]: the registry of source kinds, one `match` per capability,
//!   and a source's settings resolved against the vault;
//! - [`sources`]: reading (and writing) each source kind (`fullnote`,
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
pub mod kinds;
pub mod model;
pub(crate) mod series;
pub mod sources;
mod vault;
#[cfg(unix)]
mod vault_folder;
mod write;

pub use engine::{Calendar, WeakCalendar};
pub use index::journal::NoteKey;
pub(crate) use index::listing::{EntryMemo, MatchedEntry, Remembered};
pub use index::note_occurrences::{NoteEvents, NoteOccurrence, NoteOccurrences, Notes};
pub use model::error::CalendarError;
pub use model::event::{
    Alarm, AlarmAction, Completion, DayOfWeek, DisplayMode, Event, EventDetails, EventType,
    FileRef, Location, Relation, RepeatOn,
};
pub use model::fields::EventFields;
pub use model::id::EventId;
pub use model::query::{
    EventClock, EventMembers, EventQuery, JsonAnswer, QueryAnswer, RangeSide, busy_periods,
    parse_range_bound,
};
pub use model::status::{CacheStats, SeriesLeftOut, SkippedNote, SourceInfo, VaultStatus};
pub use write::notes::TakenName;
