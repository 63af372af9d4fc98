//! What undoing a change puts back: each file it touched goes back to its
//! bytes before the change ([`History::restore_plan`]), and the changes an
//! "undo everything since" undoes ([`History::undoable`]).
//!
//! Driving the engine is the engine's part (`Calendar::undo` and
//! `Calendar::undo_all`, in `calendar/write/undo.rs`): the files are written
//! through its write path, so the cache, the change feed, webhooks and
//! CalDAV clients see an undo as any other write, and it is recorded as a
//! change of its own (undoing that one redoes). The history names no part
//! of the engine.
//!
//! An undo never clobbers a newer edit: every file must still hold the
//! bytes the change left (checked by the engine under its write lock, so
//! nothing can come in between), or nothing is written.

use std::path::Path;

use almanac_model::error::CalendarError;

use super::record::Change;
use super::{ChangeFilter, History};

/// One file an undo writes: what it must hold now, and what it gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreFile {
    /// The note, vault-relative.
    pub path: String,
    /// Its bytes now, as the change left them (`None`: no file).
    pub expect: Option<Vec<u8>>,
    /// Its bytes back as they were (`None`: removed).
    pub target: Option<Vec<u8>>,
}

/// Why a change was not undone. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    #[error("no change {0} in the history (it keeps the last changes of 90 days)")]
    NotFound(u64),
    #[error("change {id} was made in another vault ({vault}); open that vault to undo it")]
    OtherVault { id: u64, vault: String },
    #[error("change {0} left every file as it found it: there is nothing to undo")]
    Nothing(u64),
    /// A note changed since (or the vault refused the write).
    #[error("{0}")]
    Calendar(CalendarError),
    #[error("the history cannot be read: {0}")]
    Unreadable(String),
}

impl From<CalendarError> for UndoError {
    fn from(error: CalendarError) -> Self {
        UndoError::Calendar(error)
    }
}

/// What an "undo everything since" did: the changes undone (newest first)
/// and, if it stopped early, the change it could not undo and why.
#[derive(Debug)]
pub struct UndoneAll {
    pub undone: Vec<Change>,
    pub refused: Option<(u64, UndoError)>,
}

impl History {
    /// The files undoing change `id` writes, in the order to write them,
    /// when the vault open now is `vault`. A file the change left as it
    /// found it is not among them.
    pub fn restore_plan(&self, id: u64, vault: &Path) -> Result<Vec<RestoreFile>, UndoError> {
        let (made_in, ops) = self
            .ops(id)
            .map_err(|e| UndoError::Unreadable(e.to_string()))?
            .ok_or(UndoError::NotFound(id))?;
        if made_in != vault {
            return Err(UndoError::OtherVault {
                id,
                vault: made_in.display().to_string(),
            });
        }
        // Per file: it must hold what the change's last op left, and gets back
        // what was there before its first.
        let mut files: Vec<RestoreFile> = Vec::new();
        for op in ops {
            let after = op.after.map(|bytes| bytes.0);
            match files.iter_mut().find(|file| file.path == op.path) {
                Some(file) => file.expect = after,
                None => files.push(RestoreFile {
                    path: op.path,
                    expect: after,
                    target: op.before.map(|bytes| bytes.0),
                }),
            }
        }
        files.retain(|file| file.expect != file.target);
        // Files brought back first, removals last: a crash in between leaves
        // a note twice, never none.
        files.sort_by_key(|file| file.target.is_none());
        Ok(files)
    }

    /// The changes matching `filter` that an "undo everything since"
    /// undoes, newest first. Undos (and the changes they undid) are left
    /// alone: "everything token X did" means its own edits.
    pub fn undoable(&self, filter: &ChangeFilter) -> Vec<Change> {
        let undone_already: Vec<u64> = self
            .list(&ChangeFilter::default(), usize::MAX)
            .iter()
            .filter_map(|c| c.undoes)
            .collect();
        self.list(filter, usize::MAX)
            .into_iter()
            .filter(|c| c.undoes.is_none() && !undone_already.contains(&c.id))
            .collect()
    }
}
