//! Publishing: a vault calendar kept, both ways, in a collection of the
//! user's CalDAV account (Nextcloud, Fastmail, iCloud, Radicale, Xandikos…),
//! which their phone already syncs — so the phone shows the notes' events
//! and fires their reminders with the laptop asleep, and what the phone
//! changes comes back as note edits. The notes stay the truth.
//!
//! # The model
//!
//! A published calendar is a pair: a vault calendar (by id) and a
//! collection URL of a CalDAV account (user name in the settings, password
//! in the OS keyring, as for CalDAV calendars). The sync is state-based, as
//! vdirsyncer's: a [`status::Status`] per published calendar remembers, per
//! event, what both sides held at their last agreement — the vault
//! resource's ETag (a digest of exactly what is published: the content
//! hash) and the server resource's ETag — and each pass compares both sides
//! with it ([`pass`] has the table of what it then does).
//!
//! - **Both sides speak iCalendar through code that exists.** The vault's
//!   side is the calendar as Almanac's own CalDAV server serves it
//!   (`caldav_server::collection`): one resource per `UID`, a series with
//!   its `skipDates` as `EXDATE`s and its detached notes as `RECURRENCE-ID`
//!   overrides in the same resource. A server's change is applied through
//!   that server's `PUT` path (`caldav_server::resource`), the engine's
//!   ordinary update: only the fields that changed are written, the body
//!   and unknown frontmatter keys are kept byte for byte. The account's side
//!   is the CalDAV source's client (`calendar::sources::caldav`): its
//!   origin-pinned `DavClient` and its `sync` (`sync-collection`, else the
//!   ctag and every ETag). See [`local`] and [`remote`].
//! - **Events are keyed by `UID`, pinned into the note.** A Full Note
//!   without a `uid` is served under its id, which follows its path: a
//!   rename would be a new event on the phone and a delete of the old one.
//!   So before a pass, each such note gets its served `UID` written into its
//!   frontmatter (one key added, the rest of the note untouched, as the
//!   CalDAV server already does when a client renames a note), and a renamed
//!   or moved note keeps its resource. Daily-note items cannot hold a key;
//!   theirs follows their line, as for CalDAV clients today.
//! - **Reminders travel.** Each event that reminds on this machine (its own
//!   alarms; else its `notify`, or the default minutes — the rule of
//!   `vault_reminders`) is pushed with a display `VALARM`. The added alarm is
//!   left out again when the server's copy is read back, so it never turns
//!   into the note's own `alarms`.
//! - **What the kind takes.** Any calendar but a CalDAV one is published
//!   (`Kind::publishing`): note, daily-note and Tasks calendars both ways
//!   (a Tasks line takes only a tick or a new date from the phone; one
//!   deleted there is put back), read-only ones (holidays, feeds, vault
//!   `.ics` files) one way: the server's edits are overruled by the vault's
//!   version. Tasks go as `VTODO`s to a collection that takes them.
//! - **Never lose either side.** Writes carry preconditions (`If-None-Match:
//!   *` for a new resource, `If-Match` otherwise, `DELETE` with `If-Match`).
//!   When both sides changed an event, the note keeps the vault's version
//!   (pushed over the server's), and the server's is written beside it as a
//!   conflict note, both named in the status; when the contents are equal
//!   there is nothing to keep twice. An event deleted on the phone moves its
//!   notes to the vault's `.trash/`, never deleted. A `412` re-reads the
//!   resource once and compares it as a change on both sides (never retried
//!   in a loop); `429`/`503` end the pass and their `Retry-After` is waited
//!   out; a resource that does not parse changes no note.
//! - **Offline costs nothing to keep.** An edit is the difference between
//!   the note and the status, and the status is on disk: there is no queue
//!   to lose or replay out of order. The next pass that reaches the server
//!   pushes whatever differs then.
//! - **Cheap when nothing changed.** A pass asks the server once
//!   (`sync-collection` from the stored token, one small answer when
//!   nothing changed) and lists the vault's events from the CalDAV server's
//!   in-memory listing.
//!
//! # Modules
//!
//! - [`status`]: the per-calendar sync status, a small owner-only JSON file
//!   written atomically under the data folder (`publish/`);
//! - [`remote`]: the collection — its changes, `PUT`, `DELETE`;
//! - [`local`]: the notes — published items, a server's version applied,
//!   trashed, or kept as a conflict note;
//! - [`pass`]: one sync pass, both ways;
//! - [`publisher`]: [`Publisher`], the entry point: a pass of a
//!   [`Published`] calendar, and its status;
//! - [`progress`]: how far a running pass has got sending ("Sending 120
//!   of 1000…");
//! - [`collection`]: a new collection made for a calendar (`MKCALENDAR`);
//! - [`setup`]: publishing from Settings (the account, the collection, the
//!   keyring, `publishedCalendars`) and stopping;
//! - [`worker`]: the passes of the calendars in `publishedCalendars`, a
//!   vault edit pushed within seconds, the server polled, "sync now".

pub mod collection;
pub mod local;
pub mod pass;
pub mod progress;
pub mod publisher;
pub mod remote;
pub mod setup;
pub mod status;
pub mod worker;

pub use publisher::{Published, PublishedReport, Publisher};

/// The keyring entry (service `almanac-caldav`, as CalDAV calendars'
/// passwords) of the account password of the published calendar
/// `calendar_id`.
pub fn password_key(calendar_id: &str) -> String {
    format!("publish:{calendar_id}")
}
