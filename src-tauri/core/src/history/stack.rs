//! The window's undo and redo stack, read off the history: which change
//! Ctrl+Z (or Ctrl+Shift+Z) in the calendar window undoes next. Nothing is
//! kept beside the history, so the stack survives a restart and cannot
//! drift from what the journal says.
//!
//! A change's depth follows `undoes`: an edit is 0, its undo 1, the undo
//! of that undo (a redo) 2, and so on; an odd depth takes something back,
//! an even one puts something in effect. A change is in effect while
//! nothing (made by anyone) undoes it.
//!
//! - Undo: the newest of the author's changes of even depth still in
//!   effect (a redo counts as in effect).
//! - Redo: the newest of the author's changes of odd depth still in effect,
//!   when no fresh edit (depth 0) of the author came after it: a new edit
//!   clears the redo stack, as in every editor.

use std::collections::{HashMap, HashSet};

use super::author::Author;
use super::record::{Change, FileAction};

/// Which way a step goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Undo,
    Redo,
}

/// The change `author`'s next `step` undoes (undoing an undo redoes), from
/// `changes` in any order; `None` when there is nothing to undo (or redo).
/// A chain of undos that leaves the history (its oldest changes pruned)
/// is counted as far as it goes: what it undid is taken for an edit.
pub fn next_step(changes: &[&Change], author: &Author, step: Step) -> Option<u64> {
    let by_id: HashMap<u64, &Change> = changes.iter().map(|c| (c.id, *c)).collect();
    let undone: HashSet<u64> = changes.iter().filter_map(|c| c.undoes).collect();
    let depth = |change: &Change| {
        let mut depth = 0usize;
        let mut at = change;
        while let Some(undoes) = at.undoes {
            depth += 1;
            match by_id.get(&undoes) {
                Some(before) => at = before,
                None => break,
            }
        }
        depth
    };
    let mut own: Vec<&Change> = changes
        .iter()
        .copied()
        .filter(|c| &c.author == author)
        .collect();
    own.sort_by_key(|c| std::cmp::Reverse(c.id));
    let in_effect = |c: &&&Change| !undone.contains(&c.id);
    match step {
        Step::Undo => own
            .iter()
            .filter(in_effect)
            .find(|c| depth(c) % 2 == 0)
            .map(|c| c.id),
        Step::Redo => {
            let newest_edit = own.iter().find(|c| c.undoes.is_none()).map(|c| c.id);
            own.iter()
                .filter(in_effect)
                .find(|c| depth(c) % 2 == 1)
                .filter(|c| newest_edit.is_none_or(|edit| c.id > edit))
                .map(|c| c.id)
        }
    }
}

/// What `change` did, in words, for "Undid …" and "Redid …": "the move of
/// “Standup”", "the deletion of “Standup”", or for several notes their
/// names ("the change to “A”, “B”"). A note is named by its file name
/// without `.md` and without the `YYYY-MM-DD ` an event's note starts with.
pub fn what_it_did(change: &Change) -> String {
    let name = |path: &str| {
        let file = path.rsplit('/').next().unwrap_or(path);
        let file = file.strip_suffix(".md").unwrap_or(file);
        // A space at byte 10 makes 10 and 11 char boundaries.
        let dated = file.len() > 11
            && file.as_bytes()[10] == b' '
            && chrono::NaiveDate::parse_from_str(&file[..10], "%Y-%m-%d").is_ok();
        format!("“{}”", if dated { &file[11..] } else { file })
    };
    let of = |action: FileAction| {
        change
            .files
            .iter()
            .filter(move |f| f.action == action)
            .map(|f| f.path.as_str())
    };
    let created: Vec<&str> = of(FileAction::Created).collect();
    let deleted: Vec<&str> = of(FileAction::Deleted).collect();
    match change.files.as_slice() {
        [one] => {
            let what = match one.action {
                FileAction::Created => "the creation",
                FileAction::Edited => "the edit",
                FileAction::Deleted => "the deletion",
            };
            format!("{what} of {}", name(&one.path))
        }
        // A move (or rename): a note created and the old one removed.
        [_, _] if created.len() == 1 && deleted.len() == 1 => {
            format!("the move of {}", name(deleted[0]))
        }
        files => {
            let names: Vec<String> = files.iter().map(|f| name(&f.path)).collect();
            format!("the change to {}", names.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::record::FileChange;

    fn change(id: u64, author: Author, undoes: Option<u64>) -> Change {
        Change {
            id,
            at: chrono::Utc::now(),
            author,
            undoes,
            files: vec![FileChange {
                path: format!("events/{id}.md"),
                action: FileAction::Edited,
            }],
        }
    }

    fn window(id: u64, undoes: Option<u64>) -> Change {
        change(id, Author::Window, undoes)
    }

    fn step(changes: &[Change], step: Step) -> Option<u64> {
        let refs: Vec<&Change> = changes.iter().collect();
        next_step(&refs, &Author::Window, step)
    }

    #[test]
    fn undo_walks_back_and_redo_walks_forward() {
        // Edits 1 and 2; undo 2 (3), undo 1 (4).
        let mut changes = vec![window(1, None), window(2, None)];
        assert_eq!(step(&changes, Step::Undo), Some(2));
        assert_eq!(step(&changes, Step::Redo), None);
        changes.push(window(3, Some(2)));
        assert_eq!(step(&changes, Step::Undo), Some(1));
        changes.push(window(4, Some(1)));
        assert_eq!(step(&changes, Step::Undo), None);
        // Redo 1 first (the newest undo), then 2.
        assert_eq!(step(&changes, Step::Redo), Some(4));
        changes.push(window(5, Some(4)));
        assert_eq!(step(&changes, Step::Redo), Some(3));
        changes.push(window(6, Some(3)));
        assert_eq!(step(&changes, Step::Redo), None);
        // A redo is in effect: Ctrl+Z undoes it.
        assert_eq!(step(&changes, Step::Undo), Some(6));
        changes.push(window(7, Some(6)));
        assert_eq!(step(&changes, Step::Undo), Some(5));
        // And that undo of a redo is redone again.
        assert_eq!(step(&changes, Step::Redo), Some(7));
    }

    #[test]
    fn a_new_edit_clears_the_redo_stack() {
        let changes = vec![window(1, None), window(2, Some(1)), window(3, None)];
        assert_eq!(step(&changes, Step::Redo), None);
        assert_eq!(step(&changes, Step::Undo), Some(3));
    }

    #[test]
    fn others_changes_are_not_on_the_windows_stack() {
        let token = || Author::Token { name: "bot".into() };
        let changes = vec![
            window(1, None),
            change(2, token(), None),
            // The token undid the window's edit: not in effect any more.
            window(3, None),
            change(4, token(), Some(3)),
        ];
        assert_eq!(step(&changes, Step::Undo), Some(1));
        // Nothing the window undid is there to redo.
        assert_eq!(step(&changes, Step::Redo), None);
        assert_eq!(step(&[change(1, token(), None)], Step::Undo), None);
    }

    #[test]
    fn the_order_given_does_not_matter() {
        let changes = vec![window(3, Some(2)), window(1, None), window(2, None)];
        assert_eq!(step(&changes, Step::Undo), Some(1));
        assert_eq!(step(&changes, Step::Redo), Some(3));
    }

    #[test]
    fn changes_are_said_by_what_they_did() {
        let mut moved = window(1, None);
        moved.files = vec![
            FileChange {
                path: "work/2026-01-15 Standup.md".into(),
                action: FileAction::Created,
            },
            FileChange {
                path: "events/2026-01-15 Standup.md".into(),
                action: FileAction::Deleted,
            },
        ];
        assert_eq!(what_it_did(&moved), "the move of “Standup”");
        moved.files[1].path = "events/2026-01-15.md".into();
        assert_eq!(what_it_did(&moved), "the move of “2026-01-15”");
        let mut deleted = window(2, None);
        deleted.files[0].action = FileAction::Deleted;
        assert_eq!(what_it_did(&deleted), "the deletion of “2”");
        assert_eq!(what_it_did(&window(3, None)), "the edit of “3”");
        let mut two = window(4, None);
        two.files.push(FileChange {
            path: "events/5.md".into(),
            action: FileAction::Edited,
        });
        assert_eq!(what_it_did(&two), "the change to “4”, “5”");
    }
}
