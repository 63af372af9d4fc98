//! Writes: what a client sends, checked, routed and written into notes.
//!
//! - `dispatch`: each write resolved to its target and handed to that source
//!   kind's writer, then the touched notes re-read;
//! - `notes`: creates, updates, moves and deletes in Markdown notes, atomic
//!   and validated before the first byte (by `model::spec`, with the rules
//!   for what clients write, `model::written`);
//! - `detach`: one occurrence of a note series edited or cancelled on its own;
//! - `undo`: a change of the history undone through the write path (the
//!   history keeps the record and what goes back; the engine writes it).
//!
//! CalDAV calendars' writes live with their source, in `sources::caldav`.
//! May import: `model`, `series`, the sources' readers and writers, the vault
//! guard, the history (`crate::history`) and the engine handle (`dispatch`,
//! `detach` and `undo` are `impl Calendar`).

pub(in crate::calendar) mod detach;
pub(in crate::calendar) mod dispatch;
pub(in crate::calendar) mod notes;
mod undo;
