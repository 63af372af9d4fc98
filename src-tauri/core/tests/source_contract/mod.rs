//! The contract every calendar source kind keeps, as vdirsyncer's storage
//! tests do for its storages: one set of checks ([`checks`]) runs against
//! each kind through a fixture ([`fixtures`]) that knows how to put an
//! event into the kind's store and how to break it.
//!
//! - ids are stable across restarts;
//! - read-only kinds refuse every write with the same error
//!   (`CalendarError::ReadOnly`, code `read_only`), changing nothing;
//! - an edit leaves every byte outside the changed fields as it was
//!   (writable kinds);
//! - an event moves to another calendar and back (kinds that move events;
//!   a Tasks calendar refuses, naming `calendarId`; a CalDAV event holding
//!   what a note cannot keep, as the contract's does, is refused with `409`);
//! - an unreachable or malformed source says so in its status, and keeps
//!   what it had;
//! - its events show over REST, over the CalDAV server, and as vault
//!   reminders (every kind: an event reminds by its own alarm, else by the
//!   default minutes).
//!
//! Which checks apply follows the kind's capabilities in the registry
//! (`almanac_core::kinds::Kind`), never its name.
//!
//! A check a kind is known to fail is marked, not skipped silently:
//! `contract!(kind, Fixture, edit_ignored = "why")` runs it only with
//! `--ignored`.
//!
//! **Adding a kind:** implement [`fixtures::KindFixture`] for it (a file in
//! `fixtures/`), then add one line below, e.g.
//! `contract!(ics_file, crate::source_contract::fixtures::IcsFile);`. A kind of fixed data
//! (`holidays`) names an event its data has instead of writing one, and,
//! when a user cannot break it once configured, what a change is refused
//! and a settings file from before an update may still name
//! (`fixtures::Broken::Refused`).
//!
//! Run under `scripts/session.sh` (CalDAV passwords and tokens live in the
//! OS keyring): `scripts/session.sh cargo nextest run -p almanac-core -E
//! 'test(/^source_contract::/)'`. The CalDAV kind starts a real Radicale server.

use crate::common;

mod checks;
mod fixtures;
mod radicale;
mod served;

/// The contract's checks for the kind whose fixture is `$fixture`, as the
/// tests of module `$name`.
macro_rules! contract {
    ($name:ident, $fixture:ty $(, edit_ignored = $gap:literal)?) => {
        mod $name {
            #[test]
            fn ids_are_stable_across_restarts() {
                crate::source_contract::checks::ids_are_stable::<$fixture>();
            }

            #[test]
            fn a_read_only_kind_refuses_every_write_alike() {
                crate::source_contract::checks::read_only_refuses::<$fixture>();
            }

            #[test]
            $(#[ignore = $gap])?
            fn an_edit_keeps_every_byte_outside_its_fields() {
                crate::source_contract::checks::edit_keeps_bytes::<$fixture>();
            }

            #[test]
            fn an_event_moves_to_another_calendar_and_back() {
                crate::source_contract::checks::moves::<$fixture>();
            }

            #[test]
            fn a_broken_source_says_so_and_keeps_its_events() {
                crate::source_contract::checks::broken::<$fixture>();
            }

            #[tokio::test(flavor = "multi_thread")]
            async fn its_events_show_over_rest_caldav_and_as_reminders() {
                crate::source_contract::served::everywhere::<$fixture>().await;
            }
        }
    };
}

contract!(full_note, crate::source_contract::fixtures::FullNote);
contract!(daily_note, crate::source_contract::fixtures::DailyNote);
contract!(tasks, crate::source_contract::fixtures::Tasks);
contract!(ics_feed, crate::source_contract::fixtures::IcsFeed);
contract!(ics_file, crate::source_contract::fixtures::IcsFile);
contract!(caldav, crate::source_contract::fixtures::Caldav);
contract!(holidays, crate::source_contract::fixtures::Holidays);
