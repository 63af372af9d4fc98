//! Event ids: what an id names, parsed and formatted in this one place.
//!
//! The wire forms are an external contract (clients store them):
//! - `fullnote:<vault-relative note path>`: a Full Note event;
//! - `dailynote:<vault-relative note path>::<item>`: a list item of a daily
//!   note (`item` is a title hash, see `sources::dailynote::item_ids`);
//! - `task:<vault-relative note path>::<item>`: an Obsidian Tasks line
//!   (`item` is its 🆔 or a hash of its text, see `sources::tasks::ids`);
//! - `ical:<calendarId>::<UID>` or `ical:<calendarId>::<UID>::<RECURRENCE-ID>`:
//!   an ICS event, or a modified occurrence of an ICS series.
//!
//! [`EventId`]'s `Display` writes exactly what its `FromStr` reads, so an id
//! survives the round trip byte for byte.

use std::fmt;
use std::str::FromStr;

use super::error::CalendarError;

/// A parsed event id. Paths are not checked here: confining them to the
/// vault is the vault's job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventId {
    FullNote {
        path: String,
    },
    DailyNote {
        path: String,
        item: String,
    },
    Task {
        path: String,
        item: String,
    },
    /// `event` is the UID, followed by `::<RECURRENCE-ID>` for a modified
    /// occurrence.
    Ical {
        calendar_id: String,
        event: String,
    },
}

impl EventId {
    /// The note a note event is written in; `None` for an ICS event.
    pub fn note_path(&self) -> Option<&str> {
        match self {
            EventId::FullNote { path }
            | EventId::DailyNote { path, .. }
            | EventId::Task { path, .. } => Some(path),
            EventId::Ical { .. } => None,
        }
    }

    /// The id of an ICS event, `recurrence` naming a modified occurrence.
    pub fn ical(calendar_id: &str, uid: &str, recurrence: Option<&str>) -> EventId {
        let event = match recurrence {
            Some(recurrence) => format!("{uid}::{recurrence}"),
            None => uid.to_string(),
        };
        EventId::Ical {
            calendar_id: calendar_id.to_string(),
            event,
        }
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventId::FullNote { path } => write!(f, "fullnote:{path}"),
            EventId::DailyNote { path, item } => write!(f, "dailynote:{path}::{item}"),
            EventId::Task { path, item } => write!(f, "task:{path}::{item}"),
            EventId::Ical { calendar_id, event } => write!(f, "ical:{calendar_id}::{event}"),
        }
    }
}

impl FromStr for EventId {
    /// A malformed id names no event: [`CalendarError::NotFound`].
    type Err = CalendarError;

    fn from_str(id: &str) -> Result<Self, Self::Err> {
        let not_found = || CalendarError::NotFound(id.to_string());
        if let Some(path) = id.strip_prefix("fullnote:") {
            return Ok(EventId::FullNote {
                path: path.to_string(),
            });
        }
        if let Some(rest) = id.strip_prefix("dailynote:") {
            // The path may itself contain `::`; the item never does.
            let (path, item) = rest.rsplit_once("::").ok_or_else(not_found)?;
            return Ok(EventId::DailyNote {
                path: path.to_string(),
                item: item.to_string(),
            });
        }
        if let Some(rest) = id.strip_prefix("task:") {
            let (path, item) = rest.rsplit_once("::").ok_or_else(not_found)?;
            return Ok(EventId::Task {
                path: path.to_string(),
                item: item.to_string(),
            });
        }
        if let Some(rest) = id.strip_prefix("ical:") {
            let (calendar_id, event) = rest.split_once("::").ok_or_else(not_found)?;
            return Ok(EventId::Ical {
                calendar_id: calendar_id.to_string(),
                event: event.to_string(),
            });
        }
        Err(not_found())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_byte_for_byte() {
        for id in [
            "fullnote:events/2024-05-01 Standup.md",
            "fullnote:",
            "dailynote:daily/a::b/2024-01-01.md::0a1b2c3d-2",
            "task:Projects/Home.md::0a1b2c3d-2",
            "task:Projects/Home.md::id-abc_1",
            "ical:work::uid::with::colons",
            "ical:work::abc@example.com::20240102T090000",
        ] {
            let parsed: EventId = id.parse().unwrap();
            assert_eq!(parsed.to_string(), id);
        }
    }

    #[test]
    fn parts_are_split_where_the_formats_say() {
        assert_eq!(
            "dailynote:d/x::y.md::ff".parse::<EventId>().unwrap(),
            EventId::DailyNote {
                path: "d/x::y.md".into(),
                item: "ff".into()
            }
        );
        assert_eq!(
            EventId::ical("work", "u", Some("20240102T090000")).to_string(),
            "ical:work::u::20240102T090000"
        );
    }

    #[test]
    fn a_malformed_id_names_no_event() {
        for id in [
            "",
            "fullnote",
            "dailynote:d/x.md",
            "task:d/x.md",
            "ical:work",
            "other:x",
        ] {
            assert!(matches!(
                id.parse::<EventId>(),
                Err(CalendarError::NotFound(named)) if named == id
            ));
        }
    }
}
