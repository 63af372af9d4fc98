//! One sync pass of a published calendar: what changed on each side since
//! the last agreement (the [`Status`]), and what to do about it.
//!
//! | vault    | server   | what the pass does                                          |
//! |----------|----------|-------------------------------------------------------------|
//! | same     | same     | nothing                                                     |
//! | changed  | same     | `PUT` (`If-Match` its ETag, `If-None-Match: *` when new), or `DELETE` (`If-Match`) |
//! | same     | changed  | the notes updated through the CalDAV write path, a new note, or the notes moved to `.trash/` |
//! | changed  | changed  | equal contents: agreed. Else the vault's version is kept and pushed, and the server's is written beside it as a conflict note; a side's delete loses to the other's edit |
//!
//! Nothing is written on a guess: a `412` leaves the item for the next pass,
//! which reads the server's new version and compares (no retry loop); a
//! server resource that does not parse changes no note (its error is the
//! status' last error until it changes); a busy server (`429`, `503`) or
//! one that cannot be reached ends the pass, keeping what was agreed so far.
//! Offline, nothing needs queueing: an edit is the difference between the
//! note and the status, which stays on disk until a pass gets it through.

use std::collections::{BTreeMap, BTreeSet};

use super::local::{LocalItem, Vault};
use super::remote::{Remote, ServerState};
use super::status::{Conflict, Item, Status, StatusStore};
use crate::calendar::sources::caldav::DavError;
use crate::ics::series::read_series;

/// Items between two saves of the status in a long pass (a first publish).
const SAVE_EVERY: usize = 25;
/// Per-event errors named in the status' last error.
const NAMED_ERRORS: usize = 3;

/// What a pass did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Events written to the server (put or deleted).
    pub pushed: usize,
    /// Events written to the vault (updated, created or trashed).
    pub pulled: usize,
    /// Conflict notes written.
    pub conflicts: usize,
    /// Events left as they were, each with why.
    pub errors: Vec<String>,
}

/// Why a pass stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    #[error("{0}")]
    Server(#[from] DavError),
    #[error("the calendar `{0}` is not in the vault's settings, or cannot be read now")]
    NoCalendar(String),
    #[error("{0}")]
    Vault(String),
    #[error("the sync status cannot be saved: {0}")]
    Status(String),
}

/// The server's side of one event in this pass.
struct Theirs<'s> {
    href: String,
    etag: String,
    /// Empty when unchanged since the status (not fetched).
    ics: &'s str,
}

/// Syncs the published calendar once, both ways.
pub fn run(vault: &Vault<'_>, remote: &Remote, store: &StatusStore) -> Result<Outcome, PassError> {
    let mut status = store.load(vault.calendar_id);
    let server = match remote.state(&status) {
        Ok(server) => server,
        Err(error) => {
            status.last_error = Some(error.to_string());
            save(store, vault.calendar_id, &status)?;
            return Err(error.into());
        }
    };
    // Only once the server answered: a pass that cannot reach it changes
    // no note.
    vault.pin_uids().map_err(PassError::Vault)?;
    if status.collection_url != remote.collection.as_str() {
        // Another collection: nothing agreed there yet.
        status = Status {
            collection_url: remote.collection.to_string(),
            conflicts: status.conflicts,
            ..Status::default()
        };
    }
    let mut pass = Pass {
        vault,
        remote,
        store,
        status,
        outcome: Outcome::default(),
        relist: Vec::new(),
        since_save: 0,
    };
    let result = pass.reconcile(&server);
    pass.finish(&server, result.as_ref().err())?;
    result.map(|()| pass.outcome)
}

struct Pass<'a, 'v> {
    vault: &'a Vault<'v>,
    remote: &'a Remote,
    store: &'a StatusStore,
    status: Status,
    outcome: Outcome,
    /// Events written into the vault, whose vault ETag is read once at the
    /// end: (uid, href, server ETag).
    relist: Vec<(String, String, String)>,
    since_save: usize,
}

impl Pass<'_, '_> {
    fn reconcile(&mut self, server: &ServerState) -> Result<(), PassError> {
        let local = self
            .vault
            .items()
            .ok_or_else(|| PassError::NoCalendar(self.vault.calendar_id.to_string()))?;
        self.remote.sending.expect(waiting(&self.status, &local));
        let known: BTreeSet<String> = self.status.items.values().map(|i| i.href.clone()).collect();
        // Resources the status does not know, by the UID they hold.
        let mut new_theirs: BTreeMap<String, Theirs<'_>> = BTreeMap::new();
        for (href, resource) in &server.resources {
            if known.contains(href) {
                continue;
            }
            match read_series(&resource.ics, self.vault.calendar.display_timezone()) {
                Ok(series) => {
                    new_theirs.insert(
                        series.master.uid,
                        Theirs {
                            href: href.clone(),
                            etag: resource.etag.clone(),
                            ics: &resource.ics,
                        },
                    );
                }
                Err(why) => self.event_error(href, &why),
            }
        }
        let uids: BTreeSet<String> = self
            .status
            .items
            .keys()
            .chain(local.keys())
            .chain(new_theirs.keys())
            .cloned()
            .collect();
        for uid in uids {
            let item = self.status.items.get(&uid).cloned();
            let theirs = match &item {
                Some(item) => server.resources.get(&item.href).map(|r| Theirs {
                    href: item.href.clone(),
                    etag: r.etag.clone(),
                    ics: &r.ics,
                }),
                None => new_theirs.remove(&uid),
            };
            self.one(&uid, item.as_ref(), local.get(&uid), theirs)?;
        }
        Ok(())
    }

    /// Brings event `uid` to agreement.
    fn one(
        &mut self,
        uid: &str,
        item: Option<&Item>,
        ours: Option<&LocalItem>,
        theirs: Option<Theirs<'_>>,
    ) -> Result<(), PassError> {
        let ours_changed = ours.map(|l| &l.etag) != item.map(|i| &i.local_etag);
        let theirs_changed =
            theirs.as_ref().map(|t| &t.etag) != item.and_then(|i| i.remote_etag.as_ref());
        match (ours_changed, theirs_changed, ours, theirs) {
            (false, false, ..) => Ok(()),
            (true, false, Some(ours), theirs) => {
                let if_match = theirs.as_ref().map(|t| t.etag.as_str());
                self.push(uid, item.map(|i| i.href.clone()), ours, if_match)
            }
            (true, false, None, Some(theirs)) => self.delete(uid, &theirs),
            (false, true, ours, Some(theirs)) => self.pull(uid, ours, &theirs),
            (false, true, Some(ours), None) => self.trash(uid, ours),
            // Both changed.
            (true, true, Some(ours), Some(theirs)) => self.both(uid, ours, &theirs),
            // Edited here, deleted there: put back as new.
            (true, true, Some(ours), None) => {
                self.push(uid, item.map(|i| i.href.clone()), ours, None)
            }
            // Deleted here, edited there: the edit comes back as a note.
            (true, true, None, Some(theirs)) => self.pull(uid, None, &theirs),
            // Gone from both sides.
            (_, _, None, None) => {
                self.status.items.remove(uid);
                Ok(())
            }
        }
    }

    fn push(
        &mut self,
        uid: &str,
        href: Option<String>,
        ours: &LocalItem,
        if_match: Option<&str>,
    ) -> Result<(), PassError> {
        let href = match href {
            Some(href) => href,
            None => self.remote.href_for(&ours.name)?.to_string(),
        };
        match self.remote.put(&href, &ours.ics, if_match) {
            Ok(etag) => {
                self.agreed(uid, href, etag, ours.etag.clone());
                self.outcome.pushed += 1;
                Ok(())
            }
            Err(error) => self.write_failed(&href, error),
        }
    }

    fn delete(&mut self, uid: &str, theirs: &Theirs<'_>) -> Result<(), PassError> {
        match self.remote.delete(&theirs.href, &theirs.etag) {
            Ok(()) => {
                self.status.items.remove(uid);
                self.outcome.pushed += 1;
                self.saved()
            }
            Err(error) => self.write_failed(&theirs.href, error),
        }
    }

    fn pull(
        &mut self,
        uid: &str,
        ours: Option<&LocalItem>,
        theirs: &Theirs<'_>,
    ) -> Result<(), PassError> {
        match self.vault.apply(uid, ours, theirs.ics) {
            Ok(()) => {
                self.outcome.pulled += 1;
                self.relist
                    .push((uid.to_string(), theirs.href.clone(), theirs.etag.clone()));
                Ok(())
            }
            Err(why) => {
                self.event_error(&theirs.href, &why);
                Ok(())
            }
        }
    }

    fn trash(&mut self, uid: &str, ours: &LocalItem) -> Result<(), PassError> {
        self.vault.trash(ours).map_err(PassError::Vault)?;
        self.status.items.remove(uid);
        self.outcome.pulled += 1;
        self.saved()
    }

    /// Both sides changed `uid` since the last agreement.
    fn both(&mut self, uid: &str, ours: &LocalItem, theirs: &Theirs<'_>) -> Result<(), PassError> {
        let zone = self.vault.calendar.display_timezone();
        let same = match (read_series(&ours.ics, zone), read_series(theirs.ics, zone)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same {
            // The same change on both sides (or a pass cut short after its
            // write): agreed as they are.
            self.agreed(
                uid,
                theirs.href.clone(),
                Some(theirs.etag.clone()),
                ours.etag.clone(),
            );
            return self.saved();
        }
        let at_millis = chrono::Utc::now().timestamp_millis();
        let conflict_note = match self.vault.write_conflict(uid, theirs.ics, at_millis) {
            Ok(note) => note,
            Err(why) => {
                // The server's version cannot be kept: nothing is overwritten.
                self.event_error(&theirs.href, &why);
                return Ok(());
            }
        };
        let note = ours.events[0]
            .file_path
            .clone()
            .unwrap_or_else(|| ours.events[0].id.clone());
        self.status.add_conflict(Conflict {
            uid: uid.to_string(),
            note,
            conflict_note,
            at_millis,
        });
        self.outcome.conflicts += 1;
        self.push(uid, Some(theirs.href.clone()), ours, Some(&theirs.etag))
    }

    /// A write to the server failed: a busy or unreachable server ends the
    /// pass; a `412` or a refusal leaves this event for the next pass.
    fn write_failed(&mut self, href: &str, error: DavError) -> Result<(), PassError> {
        match error {
            DavError::PreconditionFailed => {
                self.event_error(
                    href,
                    "it changed on the server meanwhile; the next sync compares both versions",
                );
                Ok(())
            }
            DavError::Protocol(why) => {
                self.event_error(href, &format!("the server refused it ({why})"));
                Ok(())
            }
            other => Err(other.into()),
        }
    }

    fn agreed(&mut self, uid: &str, href: String, remote_etag: Option<String>, local_etag: String) {
        self.status.items.insert(
            uid.to_string(),
            Item {
                href,
                remote_etag,
                local_etag,
            },
        );
        self.since_save += 1;
        if self.since_save >= SAVE_EVERY {
            // A pass cut short later keeps what it agreed on so far.
            let _ = self.saved();
        }
    }

    fn saved(&mut self) -> Result<(), PassError> {
        self.since_save = 0;
        save(self.store, self.vault.calendar_id, &self.status)
    }

    fn event_error(&mut self, href: &str, why: &str) {
        let name = href.rsplit('/').next().unwrap_or(href);
        tracing::warn!(event = name, %why, "published calendar: an event was left as it is");
        self.outcome.errors.push(format!("{name}: {why}"));
    }

    /// Reads the vault ETags of the events written into the vault, and
    /// saves the status with the pass' result.
    fn finish(
        &mut self,
        server: &ServerState,
        failed: Option<&PassError>,
    ) -> Result<(), PassError> {
        if !self.relist.is_empty() {
            let local = self.vault.items().unwrap_or_default();
            for (uid, href, etag) in std::mem::take(&mut self.relist) {
                match local.get(&uid) {
                    Some(ours) => {
                        let local_etag = ours.etag.clone();
                        self.agreed(&uid, href, Some(etag), local_etag);
                    }
                    None => {
                        self.status.items.remove(&uid);
                    }
                }
            }
        }
        self.status.last_error = match failed {
            Some(error) => Some(error.to_string()),
            None => {
                // Only a pass that got through moves the collection's token
                // on: a cut one leaves the rest to be read again.
                self.status.sync_token = server.sync_token.clone();
                self.status.ctag = server.ctag.clone();
                self.status.last_sync_millis = Some(chrono::Utc::now().timestamp_millis());
                summary(&self.outcome.errors)
            }
        };
        save(self.store, self.vault.calendar_id, &self.status)
    }
}

/// The per-event errors of a pass in one line, or `None`.
fn summary(errors: &[String]) -> Option<String> {
    if errors.is_empty() {
        return None;
    }
    let named = errors
        .iter()
        .take(NAMED_ERRORS)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    Some(match errors.len().saturating_sub(NAMED_ERRORS) {
        0 => format!("{} event(s) not synced: {named}", errors.len()),
        more => format!(
            "{} event(s) not synced: {named}; and {more} more",
            errors.len()
        ),
    })
}

fn save(store: &StatusStore, calendar_id: &str, status: &Status) -> Result<(), PassError> {
    store
        .store(calendar_id, status)
        .map_err(|e| PassError::Status(e.to_string()))
}

/// How many of the vault's events wait to reach the server.
pub fn waiting(status: &Status, local: &BTreeMap<String, LocalItem>) -> usize {
    let changed = local
        .iter()
        .filter(|(uid, ours)| {
            status
                .items
                .get(*uid)
                .is_none_or(|i| i.local_etag != ours.etag)
        })
        .count();
    let deleted = status
        .items
        .keys()
        .filter(|uid| !local.contains_key(*uid))
        .count();
    changed + deleted
}
