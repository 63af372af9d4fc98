//! The history of changes: every file the engine writes in the vault is
//! recorded with its bytes before and after, who made the change and when,
//! so that any change can be listed and undone byte for byte.
//!
//! - [`author`]: who made a change ([`Author`]), said by each surface with
//!   [`acting_as`] around its call into the engine.
//! - [`record`]: a [`Change`] as listed, and the journal's lines.
//! - `journal`: the file and its index in memory, the bounds, recovery.
//! - `scope`: the engine's side — a change open while it holds its write
//!   lock, and each file recorded just before it is written.
//! - [`undo`]: what undoing a change puts back (the restore data); the
//!   engine writes it (`Calendar::undo`, in `calendar/write/undo.rs`).
//! - [`stack`]: which change the window's Ctrl+Z (or Ctrl+Shift+Z) undoes.
//!
//! # Where it is recorded
//!
//! Every write of the engine to a vault file goes through three functions
//! of `calendar::write` (create a note, replace one, remove one) and the
//! Tasks line edit; each calls [`scope::record`]. One engine write (a move:
//! a new note and the old one removed; a detached occurrence: a new note
//! and the series edited) is one change of several files, because the
//! engine's write lock opens and closes it. Who made it comes from the
//! thread ([`author`]); the REST server, MCP, the CalDAV server and the
//! command line all call the engine through [`crate::api::AuthorizedApi`],
//! which names its token (or the command line, for the owner), and the
//! window names itself.
//!
//! # Why a journal file
//!
//! An append-only file of JSON lines, one fsync per file written: the
//! smallest thing that is crash-safe here. sled (the reminders' store)
//! would add a second database with its own flush rules, background
//! threads and a far larger footprint on disk, for what is a log read
//! once at start. The journal lives in the data folder
//! ([`crate::paths::Paths::history_file`]), 0600 in a 0700 folder. It holds
//! notes' text and token names; never a token's secret (nothing that
//! writes it has one).
//!
//! # Crash safety: a change is recorded and done, or neither
//!
//! For each file, in order: (1) its op line — path, bytes before (read from
//! the disk), bytes after — is appended and fsynced; (2) the file is
//! written, atomically (`fsutil`); (3) if that failed, a `failed` line
//! (fsynced) takes the op back. When the engine's write is over, a `done`
//! line closes the change (not fsynced: step 4 below re-derives it).
//!
//! A `kill -9` (or power cut) can stop this anywhere:
//! - during (1): the line is torn or missing, and the file was not
//!   written — opening leaves the torn line out and cuts it off;
//! - between (1) and (2), or during (2): the file still holds its bytes
//!   before, since the write is atomic;
//! - after (2), before `done`: the file holds its bytes after.
//!
//! (4) So on opening, each change without `done` is settled against the
//! disk: an op whose file holds its after-state was written and is kept,
//! any other op was not and is dropped; a change left with none is
//! dropped. Every change kept was done, and every file written is recorded.
//! (A file edited by hand between the crash and the next start may make
//! its op look unwritten; it is dropped, and never undone over the edit.)
//!
//! # Bounds
//!
//! At most [`MAX_CHANGES`] changes, none older than [`MAX_AGE_DAYS`] days;
//! the oldest are pruned as new ones come, and the file is rewritten
//! without them once a tenth of the bound is dead. Memory holds where each
//! op's line is, not the bytes; an undo reads them back.

pub mod author;
mod journal;
pub mod record;
mod scope;
pub mod stack;
pub mod undo;

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

pub use author::{Acting, Author, acting_as};
pub use journal::{Limits, MAX_AGE_DAYS, MAX_CHANGES};
pub use record::{Change, FileAction, FileChange};
pub use scope::ChangeScope;
pub(crate) use scope::record as record_write;
pub use stack::Step;
pub use undo::{RestoreFile, UndoError, UndoneAll};

use journal::Journal;
use scope::lock;

/// The history of one data folder. Cheap to clone; every clone is the
/// same history.
#[derive(Clone, Default)]
pub struct History {
    /// `None`: the history could not be opened (the reason was logged);
    /// writes go on unrecorded rather than stop.
    journal: Option<Arc<Mutex<Journal>>>,
}

/// Which changes [`History::list`] answers.
#[derive(Debug, Clone, Default)]
pub struct ChangeFilter {
    /// Only those made with the token of this name.
    pub token: Option<String>,
    /// Only those made at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only those older than this id (the page after one ending there).
    pub before: Option<u64>,
}

impl History {
    /// Opens (or creates) the history in `file`, settling any change a
    /// crash left open (see the module doc).
    pub fn open(file: &Path) -> io::Result<History> {
        Self::open_bounded(file, Limits::default())
    }

    /// [`History::open`] with other bounds than the defaults (tests).
    pub fn open_bounded(file: &Path, limits: Limits) -> io::Result<History> {
        let journal = Journal::open(file, limits)?;
        Ok(History {
            journal: Some(Arc::new(Mutex::new(journal))),
        })
    }

    /// The history of `file`, or a disabled one (logged) if it cannot be
    /// opened.
    pub fn open_or_log(file: &Path) -> History {
        History::open(file).unwrap_or_else(|error| {
            tracing::error!(%error, file = %file.display(), "cannot open the history of changes; changes are not recorded");
            History::default()
        })
    }

    /// The finished changes matching `filter`, newest first, at most
    /// `limit`.
    pub fn list(&self, filter: &ChangeFilter, limit: usize) -> Vec<Change> {
        let Some(journal) = &self.journal else {
            return Vec::new();
        };
        let journal = lock(journal);
        journal
            .changes()
            .rev()
            .filter(|change| filter.before.is_none_or(|before| change.id < before))
            .filter(|change| filter.since.is_none_or(|since| change.at >= since))
            .filter(|change| {
                filter
                    .token
                    .as_deref()
                    .is_none_or(|token| change.author.token_name() == Some(token))
            })
            .take(limit)
            .cloned()
            .collect()
    }

    /// The finished change `id`.
    pub fn get(&self, id: u64) -> Option<Change> {
        let journal = lock(self.journal.as_ref()?);
        journal
            .changes()
            .rev()
            .find(|change| change.id == id)
            .cloned()
    }

    /// The change `author`'s next undo (or redo) undoes, from the whole
    /// history ([`stack::next_step`]).
    pub fn next_step(&self, author: &Author, step: Step) -> Option<u64> {
        let journal = lock(self.journal.as_ref()?);
        let changes: Vec<&Change> = journal.changes().collect();
        stack::next_step(&changes, author, step)
    }

    fn ops(&self, id: u64) -> io::Result<Option<(std::path::PathBuf, Vec<record::Op>)>> {
        match &self.journal {
            Some(journal) => lock(journal).ops(id),
            None => Ok(None),
        }
    }
}
