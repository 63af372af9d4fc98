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
//! How far the server's side is taken follows the calendar's kind
//! ([`Publishing`]): a read-only calendar (holidays, a feed, a vault `.ics`
//! file) is published one way — an event edited or deleted on the server is
//! put back as the vault has it, and no note is written; a Tasks calendar
//! takes a task ticked or re-dated, and a task deleted on the phone is put
//! back (its line is deleted in Obsidian). Tasks (`VTODO`s) go only to a
//! collection that takes them (its `supported-calendar-component-set`,
//! asked once).
//!
//! Nothing is written on a guess: a `412` (the resource changed between the
//! read and the write: the phone wrote in between) re-reads that resource
//! once and compares it as a change on both sides; a second `412` leaves it
//! for the next pass (no retry loop); a
//! server resource that does not parse changes no note (its error is the
//! status' last error until it changes); a busy server (`429`, `503`) or
//! one that cannot be reached ends the pass, keeping what was agreed so far.
//! Offline, nothing needs queueing: an edit is the difference between the
//! note and the status, which stays on disk until a pass gets it through.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::local::{LocalItem, Vault};
use super::remote::{Remote, ServerState};
use super::status::{Conflict, Item, Status, StatusStore};
use crate::calendar::sources::caldav::DavError;
use crate::ics::series::read_series;
use crate::kinds::{Publishing, Writes};

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
    /// How long the pass waited on the server's answers (of its whole
    /// time: the rest is the vault's side).
    pub server_wait: Duration,
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
    ics: std::borrow::Cow<'s, str>,
}

/// What a pass takes from the server, by the calendar's kind.
#[derive(Debug, Clone, Copy)]
struct Ways {
    /// The server's edits and new events are written into the vault.
    pulls: bool,
    /// An event deleted on the server moves its notes to `.trash/` (else
    /// it is put back).
    trashes: bool,
}

/// Whether a `412` is answered by reading the resource again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On412 {
    Reread,
    /// Already re-read in this pass: left for the next one.
    Leave,
}

/// Syncs the published calendar once, both ways.
pub fn run(vault: &Vault<'_>, remote: &Remote, store: &StatusStore) -> Result<Outcome, PassError> {
    let mut status = store.load(vault.calendar_id);
    let started = Instant::now();
    let server = remote.state(&status);
    let mut server_wait = started.elapsed();
    let server = match server {
        Ok(server) => server,
        Err(error) => {
            status.last_error = Some(error.to_string());
            save(store, vault.calendar_id, &status)?;
            return Err(error.into());
        }
    };
    let kind = vault
        .kind()
        .ok_or_else(|| PassError::NoCalendar(vault.calendar_id.to_string()))?;
    let ways = match kind.publishing() {
        Publishing::BothWays => Ways {
            pulls: true,
            trashes: kind.writes() == Writes::Notes,
        },
        Publishing::OneWay => Ways {
            pulls: false,
            trashes: false,
        },
        Publishing::No => return Err(PassError::NoCalendar(vault.calendar_id.to_string())),
    };
    // Only once the server answered: a pass that cannot reach it changes
    // no note.
    if ways.pulls {
        vault.pin_uids().map_err(PassError::Vault)?;
    }
    if status.collection_url != remote.collection.as_str() {
        // Another collection: nothing agreed there yet.
        status = Status {
            collection_url: remote.collection.to_string(),
            conflicts: status.conflicts,
            ..Status::default()
        };
    }
    if status.takes_tasks.is_none() {
        let started = Instant::now();
        let takes = remote.takes_tasks();
        server_wait += started.elapsed();
        match takes {
            Ok(takes) => status.takes_tasks = Some(takes),
            Err(error) => {
                status.last_error = Some(error.to_string());
                save(store, vault.calendar_id, &status)?;
                return Err(error.into());
            }
        }
    }
    let mut pass = Pass {
        vault,
        remote,
        store,
        ways,
        status,
        outcome: Outcome {
            server_wait,
            ..Outcome::default()
        },
        relist: Vec::new(),
        since_save: 0,
    };
    let result = pass.reconcile(&server);
    pass.finish(&server, result.as_ref().err())?;
    result.map(|()| pass.outcome)
}

/// An event the pass wrote into the vault: the server's version of it.
struct Pulled {
    uid: String,
    href: String,
    etag: String,
    ics: String,
}

struct Pass<'a, 'v> {
    vault: &'a Vault<'v>,
    remote: &'a Remote,
    store: &'a StatusStore,
    ways: Ways,
    status: Status,
    outcome: Outcome,
    /// Events written into the vault, whose vault ETag is read once at the
    /// end.
    relist: Vec<Pulled>,
    since_save: usize,
}

impl Pass<'_, '_> {
    fn reconcile(&mut self, server: &ServerState) -> Result<(), PassError> {
        let local = self
            .vault
            .items()
            .ok_or_else(|| PassError::NoCalendar(self.vault.calendar_id.to_string()))?;
        let local = published(&self.status, local);
        self.remote.sending.expect(differing(&self.status, &local));
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
                            ics: resource.ics.as_str().into(),
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
                    ics: r.ics.as_str().into(),
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
        if theirs_changed && !self.ways.pulls {
            return self.overrule(uid, item, ours, theirs, ours_changed);
        }
        match (ours_changed, theirs_changed, ours, theirs) {
            (false, false, ..) => Ok(()),
            (true, false, Some(ours), theirs) => {
                let if_match = theirs.as_ref().map(|t| t.etag.as_str());
                let href = item.map(|i| i.href.clone());
                self.push(uid, href, ours, if_match, On412::Reread)
            }
            (true, false, None, Some(theirs)) => self.delete(uid, &theirs),
            (false, true, ours, Some(theirs)) => self.pull(uid, ours, &theirs),
            (false, true, Some(ours), None) if self.ways.trashes => self.trash(uid, ours),
            // Both changed.
            (true, true, Some(ours), Some(theirs)) => self.both(uid, ours, &theirs, On412::Reread),
            // Edited here, deleted there; or deleted there from a calendar
            // whose items are deleted in Obsidian only: put back as new.
            (_, true, Some(ours), None) => {
                let href = item.map(|i| i.href.clone());
                self.push(uid, href, ours, None, On412::Reread)
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

    /// The server changed `uid` in a calendar published one way: the
    /// vault's version is put back (or the server's deleted, when the vault
    /// no longer has it); an event only the server has is left alone.
    fn overrule(
        &mut self,
        uid: &str,
        item: Option<&Item>,
        ours: Option<&LocalItem>,
        theirs: Option<Theirs<'_>>,
        ours_changed: bool,
    ) -> Result<(), PassError> {
        if let (Some(item), Some(theirs), false) = (item, &theirs, ours_changed)
            && item.remote_etag.is_none()
        {
            // Its ETag, which the server did not give with the last PUT.
            let (href, etag) = (item.href.clone(), theirs.etag.clone());
            self.agreed(uid, href, Some(etag), item.local_etag.clone());
            return Ok(());
        }
        match (ours, theirs, item) {
            (Some(ours), theirs, item) => {
                let href = item
                    .map(|i| i.href.clone())
                    .or_else(|| theirs.as_ref().map(|t| t.href.clone()));
                let if_match = theirs.as_ref().map(|t| t.etag.as_str());
                self.push(uid, href, ours, if_match, On412::Leave)
            }
            (None, Some(theirs), Some(_)) => self.delete(uid, &theirs),
            (None, Some(_), None) => Ok(()),
            (None, None, _) => {
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
        on_412: On412,
    ) -> Result<(), PassError> {
        let href = match href {
            Some(href) => href,
            None => self.remote.href_for(&ours.name)?.to_string(),
        };
        let started = Instant::now();
        let put = self.remote.put(&href, &ours.ics, if_match);
        self.outcome.server_wait += started.elapsed();
        match put {
            Ok(etag) => {
                self.agreed(uid, href, etag, ours.etag.clone());
                self.outcome.pushed += 1;
                Ok(())
            }
            Err(DavError::PreconditionFailed) if on_412 == On412::Reread => {
                self.reread(uid, href, ours)
            }
            Err(error) => self.write_failed(&href, error),
        }
    }

    /// A write of `uid` to `href` met a version it had not seen: the
    /// server's version now is read once and compared as a change on both
    /// sides (or, gone meanwhile, the event is put back as new).
    fn reread(&mut self, uid: &str, href: String, ours: &LocalItem) -> Result<(), PassError> {
        let started = Instant::now();
        let now = self.remote.reread(&href);
        self.outcome.server_wait += started.elapsed();
        match now? {
            Some(resource) => {
                let theirs = Theirs {
                    href,
                    etag: resource.etag,
                    ics: resource.ics.into(),
                };
                if self.ways.pulls {
                    self.both(uid, ours, &theirs, On412::Leave)
                } else {
                    self.push(
                        uid,
                        Some(theirs.href),
                        ours,
                        Some(&theirs.etag),
                        On412::Leave,
                    )
                }
            }
            None => self.push(uid, Some(href), ours, None, On412::Leave),
        }
    }

    fn delete(&mut self, uid: &str, theirs: &Theirs<'_>) -> Result<(), PassError> {
        let started = Instant::now();
        let deleted = self.remote.delete(&theirs.href, &theirs.etag);
        self.outcome.server_wait += started.elapsed();
        match deleted {
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
        match self.vault.apply(uid, ours, &theirs.ics) {
            Ok(()) => {
                self.outcome.pulled += 1;
                self.relist.push(Pulled {
                    uid: uid.to_string(),
                    href: theirs.href.clone(),
                    etag: theirs.etag.clone(),
                    ics: theirs.ics.to_string(),
                });
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
    fn both(
        &mut self,
        uid: &str,
        ours: &LocalItem,
        theirs: &Theirs<'_>,
        on_412: On412,
    ) -> Result<(), PassError> {
        let zone = self.vault.calendar.display_timezone();
        let same = match (read_series(&ours.ics, zone), read_series(&theirs.ics, zone)) {
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
        let conflict_note = match self.vault.write_conflict(uid, &theirs.ics, at_millis) {
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
        let href = Some(theirs.href.clone());
        self.push(uid, href, ours, Some(&theirs.etag), on_412)
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

    /// Reads the vault ETags of the events written into the vault (and
    /// pushes those the vault publishes otherwise than the server had them:
    /// the reminder the vault gives a phone's new event), and saves the
    /// status with the pass' result.
    fn finish(
        &mut self,
        server: &ServerState,
        failed: Option<&PassError>,
    ) -> Result<(), PassError> {
        if !self.relist.is_empty() {
            let local = self.vault.items().unwrap_or_default();
            let zone = self.vault.calendar.display_timezone();
            for pulled in std::mem::take(&mut self.relist) {
                let Some(ours) = local.get(&pulled.uid) else {
                    self.status.items.remove(&pulled.uid);
                    continue;
                };
                self.agreed(
                    &pulled.uid,
                    pulled.href.clone(),
                    Some(pulled.etag.clone()),
                    ours.etag.clone(),
                );
                let differs = match (read_series(&ours.ics, zone), read_series(&pulled.ics, zone)) {
                    (Ok(a), Ok(b)) => a != b,
                    _ => false,
                };
                if differs && failed.is_none() {
                    let if_match = Some(pulled.etag.as_str());
                    let href = Some(pulled.href.clone());
                    if let Err(error) = self.push(&pulled.uid, href, ours, if_match, On412::Leave) {
                        // Not agreed on the vault's side: pushed at the next
                        // pass that gets through.
                        if let Some(item) = self.status.items.get_mut(&pulled.uid) {
                            item.local_etag.clear();
                        }
                        self.event_error(&pulled.href, &error.to_string());
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

/// The vault's items this collection takes: without tasks when it takes no
/// `VTODO`s.
fn published(
    status: &Status,
    mut local: BTreeMap<String, LocalItem>,
) -> BTreeMap<String, LocalItem> {
    if status.takes_tasks == Some(false) {
        local.retain(|_, item| !item.is_task());
    }
    local
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
pub fn waiting(status: &Status, local: BTreeMap<String, LocalItem>) -> usize {
    differing(status, &published(status, local))
}

/// How many of `local` (the items the collection takes) differ from the
/// status, deletions included.
fn differing(status: &Status, local: &BTreeMap<String, LocalItem>) -> usize {
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
