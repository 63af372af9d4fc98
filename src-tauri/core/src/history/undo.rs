//! Undoing a change: each file it touched is put back to its bytes before
//! the change, through the engine's write path ([`Calendar::restore`]), so
//! the cache, the change feed, webhooks and CalDAV clients see it as any
//! other write, and it is recorded as a change of its own (undoing that
//! one redoes).
//!
//! It never clobbers a newer edit: every file must still hold the bytes
//! the change left (checked under the engine's write lock, so nothing can
//! come in between), or nothing is written.

use crate::calendar::{Calendar, CalendarError};

use super::History;
use super::record::Change;

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

/// Undoes change `id` as this thread's author
/// ([`super::acting_as`]); returns the change the undo made.
pub fn undo(calendar: &Calendar, id: u64) -> Result<Change, UndoError> {
    let history = calendar.history();
    let (vault, ops) = history
        .ops(id)
        .map_err(|e| UndoError::Unreadable(e.to_string()))?
        .ok_or(UndoError::NotFound(id))?;
    if vault != calendar.vault_root() {
        return Err(UndoError::OtherVault {
            id,
            vault: vault.display().to_string(),
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
    let made = calendar
        .restore(&files, id)?
        .ok_or(UndoError::Nothing(id))?;
    history.get(made).ok_or(UndoError::NotFound(made))
}

/// What [`undo_all`] did: the changes undone (newest first) and, if it
/// stopped early, the change it could not undo and why.
#[derive(Debug)]
pub struct UndoneAll {
    pub undone: Vec<Change>,
    pub refused: Option<(u64, UndoError)>,
}

/// Undoes the changes matching `filter`, newest first, stopping at the
/// first that cannot be undone. Undos (and the changes they undid) are
/// left alone: "everything token X did" means its own edits.
pub fn undo_all(calendar: &Calendar, filter: &super::ChangeFilter) -> UndoneAll {
    let history: &History = calendar.history();
    let changes = history.list(filter, usize::MAX);
    let undone_already: Vec<u64> = history
        .list(&super::ChangeFilter::default(), usize::MAX)
        .iter()
        .filter_map(|c| c.undoes)
        .collect();
    let mut report = UndoneAll {
        undone: Vec::new(),
        refused: None,
    };
    for change in changes
        .iter()
        .filter(|c| c.undoes.is_none() && !undone_already.contains(&c.id))
    {
        match undo(calendar, change.id) {
            Ok(undo) => report.undone.push(undo),
            Err(UndoError::Nothing(_)) => {}
            Err(error) => {
                report.refused = Some((change.id, error));
                break;
            }
        }
    }
    report
}
