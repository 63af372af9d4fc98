//! The registry of source kinds: every kind of calendar source Almanac
//! reads, and what each one can do.
//!
//! [`Kind`] lists the kinds; each capability is one method with one
//! exhaustive `match` over them (as mini-redis's `Command` does for its
//! commands), so a new kind does not compile until every capability has an
//! answer for it. Code elsewhere asks these methods, never matches kinds
//! with a fall-through (`_ =>`, `matches!`).
//!
//! A kind's data comes in two forms: [`KindSettings`] as the settings write
//! it (`settings`, with a Tasks source's [`TaskDateField`]), and
//! `ResolvedKind` resolved against the vault, derived from the first by
//! `SourceConfig::from_settings` in the engine (`calendar::sources::resolved`).
//! What each kind reads and writes lives in its own module of
//! `calendar::sources` (`fullnote`, `dailynote`, `ical`, `caldav`, `tasks`).
//!
//! Why here, below both the settings and the engine: the settings hold a
//! source's kind and ask it questions (does it sign in with a password, can
//! it be published), and the engine routes on it. So this module imports
//! neither (only the shipped holiday data, to check a `holidays` source's
//! country), and no import circle runs through it.
//!
//! Adding a kind: a variant in [`Kind`], [`KindSettings`] and `ResolvedKind`,
//! then whatever the compiler asks for: every capability below, the
//! settings' questions in `settings`, the mapping and the engine's questions
//! in `calendar/sources/resolved.rs`. A read-only kind needs nothing else
//! but its own module of `calendar/sources`; a writable one also its writer
//! in `dispatch`. That no match outside `kinds/` falls through is checked
//! on the source (`tests/layout/no_fall_through.rs`).

mod settings;
mod task_date;

use serde::Serialize;

pub use settings::{CaldavAccount, KindSettings};
pub use task_date::TaskDateField;

/// Every kind of calendar source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One note per event (settings type `local`).
    FullNote,
    /// List items under a heading of daily notes.
    DailyNote,
    /// A remote ICS feed.
    Ical,
    /// A calendar on a CalDAV server.
    Caldav,
    /// Obsidian Tasks lines in any note of a folder.
    Tasks,
    /// A country's public holidays, from data Almanac ships.
    Holidays,
    /// One `.ics` file of the vault.
    IcsFile,
}

/// Where a kind's events come from, and so what keeps them fresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Notes of the vault: read by the vault scan, kept fresh by the file
    /// watcher.
    Notes,
    /// A document fetched over HTTP, cached on disk and refreshed by the
    /// feed worker.
    Feed,
    /// A calendar on a server, mirrored on disk and synced both ways by the
    /// feed worker.
    Server,
    /// Data compiled into Almanac: read when the sources are configured,
    /// with the feeds' copies, and never fetched.
    Shipped,
}

/// What a kind does with a client's writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// Refused with [`CalendarError::ReadOnly`](crate::calendar::CalendarError::ReadOnly).
    ReadOnly,
    /// Written into notes; events move between note calendars.
    Notes,
    /// Written to the server (through the mirror's queue).
    Server,
    /// Only a task's own line is edited (ticked, re-dated); tasks are made,
    /// deleted and moved in Obsidian.
    TaskLines,
}

/// How a kind's calendar is kept in a CalDAV account's collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publishing {
    /// Not published.
    No,
    /// The vault's changes go out; what is changed on the server is not
    /// pulled: the vault's version of an event edited or deleted there is
    /// put back at the next pass.
    OneWay,
    /// Both ways: what the phone changes comes back into the notes (as far
    /// as the kind's writes reach: a Tasks line is only ticked or re-dated).
    BothWays,
}

impl Kind {
    /// Every kind, in the order the settings document them.
    pub const ALL: [Kind; 7] = [
        Kind::FullNote,
        Kind::DailyNote,
        Kind::Ical,
        Kind::Caldav,
        Kind::Tasks,
        Kind::Holidays,
        Kind::IcsFile,
    ];

    /// The settings' `type` (and `GET /calendars`' `type`). A Full Note
    /// source is `local`, as in Obsidian Full Calendar's settings.
    pub fn wire_name(self) -> &'static str {
        match self {
            Kind::FullNote => "local",
            Kind::DailyNote => "dailynote",
            Kind::Ical => "ical",
            Kind::Caldav => "caldav",
            Kind::Tasks => "tasks",
            Kind::Holidays => "holidays",
            Kind::IcsFile => "icsfile",
        }
    }

    /// Where its events come from.
    pub fn origin(self) -> Origin {
        match self {
            // A vault `.ics` file is found and watched as notes are.
            Kind::FullNote | Kind::DailyNote | Kind::Tasks | Kind::IcsFile => Origin::Notes,
            Kind::Ical => Origin::Feed,
            Kind::Caldav => Origin::Server,
            Kind::Holidays => Origin::Shipped,
        }
    }

    /// Whether the feed worker fetches it (and keeps its copy on disk):
    /// what is not read from the vault's notes.
    pub fn refreshed(self) -> bool {
        match self.origin() {
            Origin::Notes | Origin::Shipped => false,
            Origin::Feed | Origin::Server => true,
        }
    }

    /// What it does with writes.
    pub fn writes(self) -> Writes {
        match self {
            Kind::FullNote | Kind::DailyNote => Writes::Notes,
            Kind::Ical | Kind::Holidays | Kind::IcsFile => Writes::ReadOnly,
            Kind::Caldav => Writes::Server,
            Kind::Tasks => Writes::TaskLines,
        }
    }

    /// Whether it refuses every write: the one place read-only is stated.
    pub fn read_only(self) -> bool {
        match self.writes() {
            Writes::ReadOnly => true,
            Writes::Notes | Writes::Server | Writes::TaskLines => false,
        }
    }

    /// The iCalendar components its calendar holds (its CalDAV collection's
    /// `supported-calendar-component-set`): note calendars hold events and
    /// tasks, a Tasks calendar tasks only, a feed or CalDAV calendar what
    /// Almanac keeps of it, events.
    pub fn components(self) -> &'static [&'static str] {
        match self {
            Kind::FullNote | Kind::DailyNote => &["VEVENT", "VTODO"],
            Kind::Tasks => &["VTODO"],
            Kind::Ical | Kind::Caldav | Kind::Holidays | Kind::IcsFile => &["VEVENT"],
        }
    }

    /// How its calendar can be kept in a CalDAV account's collection
    /// ([`crate::publish`]): both ways when its events are written back key
    /// by key (notes, daily-note lines, Tasks lines), one way when it takes
    /// no writes; a CalDAV calendar is on a server already.
    pub fn publishing(self) -> Publishing {
        match self {
            Kind::FullNote | Kind::DailyNote | Kind::Tasks => Publishing::BothWays,
            Kind::Ical | Kind::Holidays | Kind::IcsFile => Publishing::OneWay,
            Kind::Caldav => Publishing::No,
        }
    }

    /// Whether its calendar can be published at all.
    pub fn publishable(self) -> bool {
        match self.publishing() {
            Publishing::BothWays | Publishing::OneWay => true,
            Publishing::No => false,
        }
    }

    /// Whether it signs in with a password kept in the OS keyring under
    /// the source id (forgotten when the source goes; never imported
    /// unattended).
    pub fn uses_password(self) -> bool {
        match self {
            Kind::Caldav => true,
            Kind::FullNote
            | Kind::DailyNote
            | Kind::Ical
            | Kind::Tasks
            | Kind::Holidays
            | Kind::IcsFile => false,
        }
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.wire_name())
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.wire_name())
    }
}

/// Lets callers compare with the wire name (`info.kind == "ical"`).
impl PartialEq<&str> for Kind {
    fn eq(&self, other: &&str) -> bool {
        self.wire_name() == *other
    }
}

/// One settings entry of `kind`, as a user writes it (the registry's tests
/// and the resolved form's).
#[cfg(test)]
pub(crate) fn settings_entry(kind: Kind) -> serde_json::Value {
    let mut entry = serde_json::json!({ "type": kind.wire_name() });
    let extra = match kind {
        Kind::FullNote | Kind::Tasks => serde_json::json!({ "directory": "events" }),
        Kind::DailyNote => serde_json::json!({ "heading": "Events" }),
        Kind::Ical => serde_json::json!({ "url": "https://example.com/a.ics" }),
        Kind::Caldav => serde_json::json!({ "url": "https://example.com/", "username": "u" }),
        Kind::Holidays => serde_json::json!({ "country": "FR" }),
        Kind::IcsFile => serde_json::json!({ "path": "calendars/a.ics" }),
    };
    entry
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_wire_name() {
        for kind in Kind::ALL {
            let read: KindSettings = serde_json::from_value(settings_entry(kind)).unwrap();
            assert_eq!(read.kind(), kind);
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.wire_name());
            assert_eq!(
                serde_json::to_value(&read).unwrap()["type"],
                kind.wire_name()
            );
        }
    }

    #[test]
    fn read_only_kinds_are_the_ones_neither_edited_nor_moved() {
        for kind in Kind::ALL {
            assert_eq!(kind.read_only(), kind.writes() == Writes::ReadOnly);
            assert!(!kind.components().is_empty(), "{kind}");
            // A kind read from notes has a folder in its settings, or
            // (a vault `.ics` file) a file.
            let source: KindSettings = serde_json::from_value(settings_entry(kind)).unwrap();
            assert_eq!(
                kind.origin() == Origin::Notes,
                source.directory().is_some() || source.vault_file().is_some(),
                "{kind}"
            );
            assert_eq!(kind.refreshed(), source.url().is_some(), "{kind}");
        }
        assert!(Kind::Ical.read_only());
        assert!(!Kind::Caldav.read_only());
    }
}
