//! Undo from the windows, through the same undo the API runs, as the user:
//! Ctrl+Z and Ctrl+Shift+Z in the calendar window (and the Undo of its
//! notice after an edit), where the core decides which change a step undoes
//! ([`almanac_core::history::stack`]); and in Settings, a token's changes
//! listed and everything it did since one of them undone.

use std::sync::Arc;

use almanac_core::api::ApiError;
use almanac_core::api::history::UndoReport;
use almanac_core::history::stack::what_it_did;
use almanac_core::history::{Author, Change, ChangeFilter, Step, acting_as};
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
        calendar
            .undo(id)
            .map_err(|error| EditError::from(ApiError::from(error)))?;
        Ok(match step {
            Step::Undo => format!("Undid {said}."),
            Step::Redo => format!("Redid {said}."),
        })
    })
    .await
    .map_err(|e| EditError::from(ApiError::Internal(e.to_string())))?
}

/// How many of a token's changes Settings lists.
const TOKEN_CHANGES_SHOWN: usize = 100;

/// The newest changes made with the token named `name`, newest first:
/// Settings' "Changes…" on a token's row.
#[tauri::command]
pub fn token_changes(services: State<'_, Arc<Services>>, name: String) -> Vec<Change> {
    let filter = ChangeFilter {
        token: Some(name),
        ..ChangeFilter::default()
    };
    services
        .core
        .calendar
        .history()
        .list(&filter, TOKEN_CHANGES_SHOWN)
}

/// Undoes everything the token named `name` did since its change `from`
/// (that one included), newest first, stopping at the first change that
/// cannot be undone; as the user, as `POST /history/undo` does for a token.
#[tauri::command]
pub async fn token_undo_since(
    services: State<'_, Arc<Services>>,
    name: String,
    from: u64,
) -> EditResult<UndoReport> {
    let calendar = services.core.calendar.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let since = calendar
            .history()
            .get(from)
            .filter(|change| change.author.token_name() == Some(name.as_str()))
            .ok_or_else(|| {
                EditError::from(ApiError::bad_request(
                    "from",
                    format!("change {from} is not one made with “{name}”"),
                ))
            })?
            .at;
        let filter = ChangeFilter {
            token: Some(name),
            since: Some(since),
            before: None,
        };
        let _user = acting_as(Author::Window);
        Ok(UndoReport::from(calendar.undo_all(&filter)))
    })
    .await
    .map_err(|e| EditError::from(ApiError::Internal(e.to_string())))?
}
