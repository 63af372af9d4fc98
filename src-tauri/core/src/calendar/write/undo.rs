//! Undoing a change recorded in the history: the history says what goes
//! back ([`History::restore_plan`](crate::history::History::restore_plan)),
//! the engine writes it through its write path ([`Calendar::restore`]), as
//! this thread's author ([`crate::history::acting_as`]).

use crate::calendar::Calendar;
use crate::history::{Change, ChangeFilter, UndoError, UndoneAll};

impl Calendar {
    /// Undoes change `id`: its files back byte for byte, refused
    /// ([`UndoError::Calendar`], a conflict naming the note) when one
    /// changed since. Returns the change the undo made.
    pub fn undo(&self, id: u64) -> Result<Change, UndoError> {
        let history = self.history();
        let files = history.restore_plan(id, &self.vault_root())?;
        let made = self.restore(&files, id)?.ok_or(UndoError::Nothing(id))?;
        history.get(made).ok_or(UndoError::NotFound(made))
    }

    /// Undoes the changes matching `filter`, newest first, stopping at the
    /// first that cannot be undone (see [`crate::history::History::undoable`]).
    pub fn undo_all(&self, filter: &ChangeFilter) -> UndoneAll {
        let mut report = UndoneAll {
            undone: Vec::new(),
            refused: None,
        };
        for change in self.history().undoable(filter) {
            match self.undo(change.id) {
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
}
