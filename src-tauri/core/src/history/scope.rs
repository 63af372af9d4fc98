//! The engine's side: a change is open while the engine holds its write
//! lock ([`History::begin`]), and each file the engine writes meanwhile is
//! recorded just before it is written ([`record`]).
//!
//! The open change is kept per thread, like the author
//! ([`super::author`]): the engine's writers are plain functions over the
//! vault, and this way only the few that touch a file know of the history.

use std::cell::RefCell;
use std::path::Path;
use std::sync::{Arc, Mutex};

use chrono::Utc;

use super::History;
use super::author;
use super::journal::{Journal, Meta, read_state};
use almanac_model::error::CalendarError;

struct Open {
    journal: Arc<Mutex<Journal>>,
    meta: Meta,
    /// Given with its first op.
    id: Option<u64>,
}

thread_local! {
    static OPEN: RefCell<Option<Open>> = const { RefCell::new(None) };
}

/// The change the engine is making on this thread; it is finished when
/// this is dropped (before the engine's write lock is released).
#[must_use = "the change is recorded only while the scope lives"]
pub struct ChangeScope {
    // Bound to the thread whose writes it records.
    _thread: std::marker::PhantomData<*const ()>,
}

impl History {
    /// Opens a change made in the vault `vault` by this thread's author
    /// ([`author::acting_as`]); `undoes` when it undoes one. A disabled
    /// history records nothing.
    pub(crate) fn begin(&self, vault: &Path, undoes: Option<u64>) -> ChangeScope {
        if let Some(journal) = &self.journal {
            let meta = Meta {
                at: Utc::now(),
                author: author::current(),
                undoes,
                vault: vault.to_path_buf(),
            };
            OPEN.with(|open| {
                *open.borrow_mut() = Some(Open {
                    journal: journal.clone(),
                    meta,
                    id: None,
                })
            });
        }
        ChangeScope {
            _thread: std::marker::PhantomData,
        }
    }
}

impl ChangeScope {
    /// The id of the change, once it wrote a file.
    pub fn recorded(&self) -> Option<u64> {
        OPEN.with(|open| open.borrow().as_ref().and_then(|open| open.id))
    }
}

impl Drop for ChangeScope {
    fn drop(&mut self) {
        if let Some(Open {
            journal,
            id: Some(id),
            ..
        }) = OPEN.with(|open| open.borrow_mut().take())
        {
            lock(&journal).finish(id);
        }
    }
}

/// Writes the vault file `rel` (at `path`) with `write`, recorded in the
/// open change with its bytes before and `after` (`None`: removed). The op
/// is in the journal, fsynced, before `write` runs; if it cannot be, the
/// file is not written. Without an open change, just writes.
pub(crate) fn record<T>(
    rel: &str,
    path: &Path,
    after: Option<&[u8]>,
    write: impl FnOnce() -> Result<T, CalendarError>,
) -> Result<T, CalendarError> {
    let Some((journal, meta, id)) = OPEN.with(|open| {
        open.borrow()
            .as_ref()
            .map(|open| (open.journal.clone(), open.meta.clone(), open.id))
    }) else {
        return write();
    };
    let before = read_state(path).map_err(|e| CalendarError::io(path, e))?;
    let id = {
        let mut journal = lock(&journal);
        journal
            .begin_op(id, &meta, rel, before, after)
            .map_err(|e| CalendarError::io(journal.path(), e))?
    };
    OPEN.with(|open| {
        if let Some(open) = open.borrow_mut().as_mut() {
            open.id = Some(id);
        }
    });
    write().inspect_err(|_| lock(&journal).fail_op(id))
}

pub(super) fn lock(journal: &Mutex<Journal>) -> std::sync::MutexGuard<'_, Journal> {
    journal.lock().unwrap_or_else(|p| p.into_inner())
}
