//! Ctrl+Z and Ctrl+Shift+Z in the calendar window (and the Undo of its
//! notice after an edit). The core decides which change a step undoes
//! ([`almanac_core::history::stack`]); this only wires it to the window, as
//! the window's own change, through the same undo the API runs.

use std::sync::Arc;

use almanac_core::api::ApiError;
use almanac_core::history::stack::what_it_did;
use almanac_core::history::undo::undo;
use almanac_core::history::{Author, Step, acting_as};
use tauri::State;

use super::editing::{EditError, EditResult};
use crate::wiring::Services;

/// Undoes the window's last change still in effect, or with `redo` redoes
/// its last undo; answers what it did in words ("Undid the move of
/// “Standup”", "Nothing to undo."). A refusal (a note changed since)
/// changes nothing and says why, naming the note.
#[tauri::command]
pub async fn history_step(services: State<'_, Arc<Services>>, redo: bool) -> EditResult<String> {
    let calendar = services.core.calendar.clone();
    let step = if redo { Step::Redo } else { Step::Undo };
    tauri::async_runtime::spawn_blocking(move || {
        let history = calendar.history();
        let Some(id) = history.next_step(&Author::Window, step) else {
            return Ok(match step {
                Step::Undo => "Nothing to undo.".to_string(),
                Step::Redo => "Nothing to redo.".to_string(),
            });
        };
        // A redo undoes an undo: say what the undo took back.
        let said = history
            .get(id)
            .and_then(|change| match step {
                Step::Undo => Some(change),
                Step::Redo => change.undoes.and_then(|undone| history.get(undone)),
            })
            .map(|change| what_it_did(&change))
            .unwrap_or_else(|| "the last change".to_string());
        let _window = acting_as(Author::Window);
        undo(&calendar, id).map_err(|error| EditError::from(ApiError::from(error)))?;
        Ok(match step {
            Step::Undo => format!("Undid {said}."),
            Step::Redo => format!("Redid {said}."),
        })
    })
    .await
    .map_err(|e| EditError::from(ApiError::Internal(e.to_string())))?
}
