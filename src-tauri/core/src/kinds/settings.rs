//! A source's kind as the settings write it (`"type": "local"`, …): what
//! the user configured, before it is resolved against the vault
//! ([`ResolvedKind`](super::ResolvedKind)). Its accessors are the registry's
//! questions about settings; no code outside `kinds` matches its variants
//! to ask them.

use serde::{Deserialize, Serialize};

use super::Kind;
use crate::settings::TaskDateField;

/// What a calendar source reads from. Serialized as `"type": "local" |
/// "dailynote" | "ical" | "caldav" | "tasks" | "holidays" | "icsfile"`, like Obsidian Full Calendar's own settings: the
/// wire name of a Full Note source is `local`, an external contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum KindSettings {
    /// One note per event in `directory` (relative to the vault, or absolute
    /// inside it).
    #[serde(rename = "local")]
    FullNote { directory: String },
    /// Events are list items under `heading` in the daily notes of `directory`.
    DailyNote {
        #[serde(default)]
        directory: String,
        heading: String,
    },
    /// A remote ICS feed, read-only and cached on disk.
    Ical {
        url: String,
        /// Lets the feed (and its redirects) reach loopback, link-local and
        /// private addresses, which are otherwise refused. Only the user can
        /// set it, in Almanac's settings or its settings file; no token can.
        #[serde(default, rename = "allowPrivateNetwork")]
        allow_private_network: bool,
    },
    /// A calendar on a CalDAV server, read and written both ways. The
    /// password (or app password) is in the OS keyring under the source id,
    /// never here.
    Caldav {
        /// The server's address, as the user gave it (discovery starts here).
        url: String,
        username: String,
        /// The calendar collection found by discovery (or chosen by the
        /// user); empty until discovered.
        #[serde(default, rename = "calendarUrl")]
        calendar_url: String,
    },
    /// Obsidian Tasks lines (`- [ ] Pay rent 📅 2026-11-30`) in every note
    /// of `directory` (empty: the whole vault), read from the Markdown.
    Tasks {
        /// The notes' folder, relative to the vault (or absolute inside
        /// it); empty: the whole vault.
        #[serde(default)]
        directory: String,
        /// The date that places a task: `due` (📅, the default),
        /// `scheduled` (⏳) or `start` (🛫). A task without it is placed by
        /// its other dates, in the order due, scheduled, start.
        #[serde(default, rename = "dateField")]
        date_field: TaskDateField,
    },
    /// The public holidays of `country` (ISO 3166-1 alpha-2), and of its
    /// `subdivision` when set, from the data Almanac ships; read-only.
    Holidays {
        country: String,
        /// A state or region code of the country (`CA`, `BY`); empty: the
        /// whole country's holidays only. Always written, so a settings
        /// patch that names it empty reads back whole.
        #[serde(default)]
        subdivision: String,
    },
    /// The iCalendar file at `path` in the vault (relative to it, or
    /// absolute inside it), watched like notes; read-only.
    #[serde(rename = "icsfile")]
    IcsFile { path: String },
}

/// A CalDAV source's account as the settings hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaldavAccount<'a> {
    /// The server's address, as the user gave it.
    pub url: &'a str,
    pub username: &'a str,
    /// The discovered calendar collection, `""` until found.
    pub calendar_url: &'a str,
}

impl KindSettings {
    /// Which kind of source this is.
    pub fn kind(&self) -> Kind {
        match self {
            KindSettings::FullNote { .. } => Kind::FullNote,
            KindSettings::DailyNote { .. } => Kind::DailyNote,
            KindSettings::Ical { .. } => Kind::Ical,
            KindSettings::Caldav { .. } => Kind::Caldav,
            KindSettings::Tasks { .. } => Kind::Tasks,
            KindSettings::Holidays { .. } => Kind::Holidays,
            KindSettings::IcsFile { .. } => Kind::IcsFile,
        }
    }

    /// The http(s) address the source reads from, if it reads one.
    pub fn url(&self) -> Option<&str> {
        match self {
            KindSettings::Ical { url, .. } | KindSettings::Caldav { url, .. } => Some(url),
            KindSettings::FullNote { .. }
            | KindSettings::DailyNote { .. }
            | KindSettings::Tasks { .. }
            | KindSettings::Holidays { .. }
            | KindSettings::IcsFile { .. } => None,
        }
    }

    /// The vault folder of its notes as configured, if it reads notes.
    pub fn directory(&self) -> Option<&str> {
        match self {
            KindSettings::FullNote { directory }
            | KindSettings::DailyNote { directory, .. }
            | KindSettings::Tasks { directory, .. } => Some(directory),
            KindSettings::Ical { .. }
            | KindSettings::Caldav { .. }
            | KindSettings::Holidays { .. }
            | KindSettings::IcsFile { .. } => None,
        }
    }

    /// The address whose path or query may itself be a secret (a private
    /// ICS feed's token), to be hidden from those who may not see it.
    pub fn secret_url_mut(&mut self) -> Option<&mut String> {
        match self {
            KindSettings::Ical { url, .. } => Some(url),
            // A CalDAV password is in the keyring, not in its address.
            KindSettings::Caldav { .. }
            | KindSettings::FullNote { .. }
            | KindSettings::DailyNote { .. }
            | KindSettings::Tasks { .. }
            | KindSettings::Holidays { .. }
            | KindSettings::IcsFile { .. } => None,
        }
    }

    /// Whether the source may reach loopback and private addresses (only
    /// the user may allow it).
    pub fn allows_private_network(&self) -> bool {
        match self {
            KindSettings::Ical {
                allow_private_network,
                ..
            } => *allow_private_network,
            KindSettings::FullNote { .. }
            | KindSettings::DailyNote { .. }
            | KindSettings::Caldav { .. }
            | KindSettings::Tasks { .. }
            | KindSettings::Holidays { .. }
            | KindSettings::IcsFile { .. } => false,
        }
    }

    /// The CalDAV account of a CalDAV source.
    pub fn caldav_account(&self) -> Option<CaldavAccount<'_>> {
        match self {
            KindSettings::Caldav {
                url,
                username,
                calendar_url,
            } => Some(CaldavAccount {
                url,
                username,
                calendar_url,
            }),
            KindSettings::FullNote { .. }
            | KindSettings::DailyNote { .. }
            | KindSettings::Ical { .. }
            | KindSettings::Tasks { .. }
            | KindSettings::Holidays { .. }
            | KindSettings::IcsFile { .. } => None,
        }
    }

    /// The field a kind's own check refuses, and why: a holiday calendar's
    /// country or subdivision the shipped data does not have.
    pub fn invalid_field(&self) -> Option<(&'static str, String)> {
        match self {
            KindSettings::Holidays {
                country,
                subdivision,
            } => crate::holiday_data::holidays(country, Some(subdivision))
                .err()
                .map(|why| match why.contains("the subdivision") {
                    true => ("subdivision", why),
                    false => ("country", why),
                }),
            KindSettings::IcsFile { path } => ics_file_problem(path).map(|why| ("path", why)),
            KindSettings::FullNote { .. }
            | KindSettings::DailyNote { .. }
            | KindSettings::Ical { .. }
            | KindSettings::Caldav { .. }
            | KindSettings::Tasks { .. } => None,
        }
    }

    /// Whether [`KindSettings::invalid_field`] judges it against data shipped
    /// in the binary (which an update may change) rather than its own shape:
    /// a settings file naming such a value still loads, and the source's
    /// status says what is wrong.
    pub fn checked_against_shipped_data(&self) -> bool {
        match self {
            KindSettings::Holidays { .. } => true,
            KindSettings::IcsFile { .. }
            | KindSettings::FullNote { .. }
            | KindSettings::DailyNote { .. }
            | KindSettings::Ical { .. }
            | KindSettings::Caldav { .. }
            | KindSettings::Tasks { .. } => false,
        }
    }

    /// The vault file it reads, as configured, if it reads one file.
    pub fn vault_file(&self) -> Option<&str> {
        match self {
            KindSettings::IcsFile { path } => Some(path),
            KindSettings::FullNote { .. }
            | KindSettings::DailyNote { .. }
            | KindSettings::Ical { .. }
            | KindSettings::Caldav { .. }
            | KindSettings::Tasks { .. }
            | KindSettings::Holidays { .. } => None,
        }
    }
}

/// Why `path` is not an `.ics` file Almanac reads in the vault: empty, not
/// `.ics`, leaving the vault, or in a hidden folder (`.obsidian`), which
/// Almanac never reads.
fn ics_file_problem(path: &str) -> Option<String> {
    let trimmed = path.trim();
    let parts = || std::path::Path::new(trimmed).components();
    let problem = if trimmed.is_empty() {
        "name the .ics file, relative to the vault"
    } else if !trimmed.to_ascii_lowercase().ends_with(".ics") {
        "is not an .ics file"
    } else if parts().any(|part| part == std::path::Component::ParentDir) {
        "leaves the vault; pick a file inside it"
    } else if parts().any(|part| {
        let std::path::Component::Normal(name) = part else {
            return false;
        };
        name.to_string_lossy().starts_with('.')
    }) {
        "is hidden (or in a hidden folder), which Almanac does not read"
    } else {
        return None;
    };
    Some(format!("`{trimmed}` {problem}"))
}
