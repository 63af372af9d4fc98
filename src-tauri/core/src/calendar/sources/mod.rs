//! Calendar sources: where events come from and how each kind is read.
//! What kinds there are, and what each can do, is the registry's
//! ([`crate::kinds`]); here a source's settings are resolved against the
//! vault ([`resolved`]) and read.
//!
//! - [`fullnote`]: one note per event, the event in the YAML frontmatter;
//! - [`dailynote`]: list items under a heading of daily notes, named by
//!   [`dateformat`] as Obsidian's [`dailyconfig`] says;
//! - [`ical`]: a remote ICS feed (read-only, cached on disk), fetched
//!   through [`net_guard`] (public addresses only, unless allowed), read by
//!   [`vcalendar`], the one reader of iCalendar into events (also for
//!   `caldav`, `ics_file` and `holidays`);
//! - [`caldav`]: a calendar on a CalDAV server, read and written both ways;
//! - [`tasks`]: Obsidian Tasks lines (`- [ ] Pay rent 📅 2026-11-30`) in any
//!   note of a folder.

pub mod caldav;
pub mod dailyconfig;
pub mod dailynote;
pub mod dateformat;
pub mod fullnote;
pub mod holidays;
pub mod ical;
pub mod ics_file;
pub mod net_guard;
pub mod tasks;
pub mod vcalendar;

mod resolved;

pub use resolved::{NoteCalendar, ParsedNote, ResolvedKind, Skipped, SourceConfig};
