//! The index: the in-memory cache every read is served from, and the reads
//! over it.
//!
//! - `cache`: per source, the events read from each note;
//! - `occurrence_index`: every range read's occurrences; `read`: the reads
//!   over it (spending a query's cost ceiling, `almanac_model::budget`);
//! - `event_json`: an entry's event kept as JSON bytes, which answers are
//!   written from;
//! - [`per_day`]: the window's capped day view; [`search`]: the window's
//!   search, one match per event;
//! - `journal`: which notes changed, and `note_occurrences`: their
//!   occurrences in a window, for followers such as vault reminders;
//! - `listing`: a whole calendar unexpanded (CalDAV collections, feeds).
//!
//! May import: the model crate (`almanac_model`: the event, its series
//! expanded, the cost ceiling) and the sources'
//! parsed notes. The engine fills it; the index never calls the engine back,
//! except for the few readers (`per_day`, `listing`, `note_occurrences`) that
//! are `impl Calendar` blocks answering from it.
//!
//! Circles inside, all around the occurrence index: the cache owns it and
//! it points back at the cache's entries (`cache` ↔ `occurrence_index`);
//! its tests read through `read`, which reads it (`read` ↔ `occurrence_index`).

pub(crate) mod cache;
pub(in crate::calendar) mod event_json;
pub(in crate::calendar) mod journal;
pub(in crate::calendar) mod listing;
pub(in crate::calendar) mod note_occurrences;
pub(in crate::calendar) mod occurrence_index;
pub mod per_day;
pub(in crate::calendar) mod read;
pub mod search;
