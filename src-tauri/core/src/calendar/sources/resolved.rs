//! A source resolved against the vault ([`SourceConfig`]): its folder made
//! vault-relative, a daily-note source's naming read from Obsidian. Derived
//! from the settings' [`KindSettings`] by [`SourceConfig::from_settings`], the
//! one place that maps one onto the other.

use std::path::{Component, Path};

use chrono_tz::Tz;

use crate::calendar::index::cache::Indexed;
use crate::calendar::sources::dateformat::DateFormat;
use crate::calendar::sources::{dailyconfig, dailynote, fullnote, holidays, ical, ics_file, tasks};
use crate::kinds::Kind;
use crate::kinds::{KindSettings, TaskDateField};
use crate::settings::CalendarSource;
use almanac_model::error::CalendarError;
use almanac_model::status::SkippedNote;

/// A configured source with its folder made vault-relative.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceConfig {
    pub id: String,
    pub name: String,
    pub color: String,
    pub kind: ResolvedKind,
    /// Kept for CalDAV clients (see [`CalendarSource::order`]).
    pub order: Option<i64>,
    /// See [`CalendarSource::components`].
    pub components: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResolvedKind {
    /// `dir` is vault-relative, `/`-separated, `""` for the vault root.
    FullNote { dir: String },
    DailyNote {
        dir: String,
        heading: String,
        /// How daily notes are named, or why they cannot be read (an
        /// unsupported Obsidian date format): the source then reads nothing
        /// and reports the problem.
        format: Result<DateFormat, String>,
    },
    Ical {
        url: String,
        allow_private_network: bool,
    },
    /// `server` as configured; `calendar` the discovered collection, `""`
    /// until discovery found it.
    Caldav {
        server: String,
        username: String,
        calendar: String,
    },
    /// `dir` as for [`ResolvedKind::FullNote`]; `date_field` the date that
    /// places a task first.
    Tasks {
        dir: String,
        date_field: TaskDateField,
    },
    /// `country` and `subdivision` as in the settings (checked there).
    Holidays {
        country: String,
        subdivision: String,
    },
    /// `path` vault-relative, `/`-separated; `file` the same path in the
    /// vault, asked whether it is there for the source's status.
    IcsFile {
        path: String,
        file: std::path::PathBuf,
    },
}

impl ResolvedKind {
    /// Which kind of source this is.
    pub fn kind(&self) -> Kind {
        match self {
            ResolvedKind::FullNote { .. } => Kind::FullNote,
            ResolvedKind::DailyNote { .. } => Kind::DailyNote,
            ResolvedKind::Ical { .. } => Kind::Ical,
            ResolvedKind::Caldav { .. } => Kind::Caldav,
            ResolvedKind::Tasks { .. } => Kind::Tasks,
            ResolvedKind::Holidays { .. } => Kind::Holidays,
            ResolvedKind::IcsFile { .. } => Kind::IcsFile,
        }
    }
}

/// A calendar whose events are written into notes, as its writer needs it:
/// the kinds whose [`Writes`](super::Writes) is `Notes`, told apart.
#[derive(Debug, Clone, Copy)]
pub enum NoteCalendar<'a> {
    /// One note per event in `dir`.
    FullNote { dir: &'a str },
    /// List items under `heading` of the daily notes in `dir`.
    DailyNote {
        dir: &'a str,
        heading: &'a str,
        format: &'a Result<DateFormat, String>,
    },
}

/// What the engine asks of a resolved source, so that no code outside the
/// registry matches its variants.
impl ResolvedKind {
    /// How its events are written into notes, if they are.
    pub fn note_calendar(&self) -> Option<NoteCalendar<'_>> {
        match self {
            ResolvedKind::FullNote { dir } => Some(NoteCalendar::FullNote { dir }),
            ResolvedKind::DailyNote {
                dir,
                heading,
                format,
            } => Some(NoteCalendar::DailyNote {
                dir,
                heading,
                format,
            }),
            ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Tasks { .. }
            | ResolvedKind::Holidays { .. }
            | ResolvedKind::IcsFile { .. } => None,
        }
    }

    /// The date that places a task first, for a Tasks source.
    pub fn task_date_field(&self) -> Option<TaskDateField> {
        match self {
            ResolvedKind::Tasks { date_field, .. } => Some(*date_field),
            ResolvedKind::FullNote { .. }
            | ResolvedKind::DailyNote { .. }
            | ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Holidays { .. }
            | ResolvedKind::IcsFile { .. } => None,
        }
    }

    /// The ICS feed it fetches: its address, and whether it may reach
    /// private addresses.
    pub fn feed(&self) -> Option<(&str, bool)> {
        match self {
            ResolvedKind::Ical {
                url,
                allow_private_network,
            } => Some((url, *allow_private_network)),
            ResolvedKind::FullNote { .. }
            | ResolvedKind::DailyNote { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Tasks { .. }
            | ResolvedKind::Holidays { .. }
            | ResolvedKind::IcsFile { .. } => None,
        }
    }

    /// The folder of its notes as the calendar list shows it (`directory`):
    /// a vault `.ics` file's folder is watched, not shown.
    pub fn listed_folder(&self) -> Option<&str> {
        match self {
            ResolvedKind::FullNote { dir }
            | ResolvedKind::DailyNote { dir, .. }
            | ResolvedKind::Tasks { dir, .. } => Some(dir),
            ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Holidays { .. }
            | ResolvedKind::IcsFile { .. } => None,
        }
    }

    /// The heading its events are listed under in daily notes.
    pub fn heading(&self) -> Option<&str> {
        match self.note_calendar() {
            Some(NoteCalendar::DailyNote { heading, .. }) => Some(heading),
            Some(NoteCalendar::FullNote { .. }) | None => None,
        }
    }

    /// The address it reads from as configured: a feed's URL, a CalDAV
    /// server's.
    pub fn address(&self) -> Option<&str> {
        match self {
            ResolvedKind::Ical { url, .. } => Some(url),
            ResolvedKind::Caldav { server, .. } => Some(server),
            ResolvedKind::FullNote { .. }
            | ResolvedKind::DailyNote { .. }
            | ResolvedKind::Tasks { .. }
            | ResolvedKind::Holidays { .. }
            | ResolvedKind::IcsFile { .. } => None,
        }
    }
}

impl SourceConfig {
    /// Resolves a settings entry against the vault. A folder outside the
    /// vault is refused.
    pub fn from_settings(source: &CalendarSource, vault: &Path) -> Result<Self, CalendarError> {
        let kind = match &source.kind {
            KindSettings::FullNote { directory } => ResolvedKind::FullNote {
                dir: relative_dir(directory, vault)?,
            },
            KindSettings::DailyNote { directory, heading } => {
                // The vault's Daily notes settings name the notes, and give
                // the folder unless the source has its own.
                let obsidian = dailyconfig::read(vault);
                let dir = match directory.trim() {
                    "" => relative_dir(&obsidian.folder, vault)?,
                    _ => relative_dir(directory, vault)?,
                };
                ResolvedKind::DailyNote {
                    dir,
                    heading: heading.trim().trim_start_matches('#').trim().to_string(),
                    format: obsidian.format,
                }
            }
            KindSettings::Ical {
                url,
                allow_private_network,
            } => ResolvedKind::Ical {
                url: url.clone(),
                allow_private_network: *allow_private_network,
            },
            KindSettings::Caldav {
                url,
                username,
                calendar_url,
            } => ResolvedKind::Caldav {
                server: url.clone(),
                username: username.clone(),
                calendar: calendar_url.clone(),
            },
            KindSettings::Tasks {
                directory,
                date_field,
            } => ResolvedKind::Tasks {
                dir: relative_dir(directory, vault)?,
                date_field: *date_field,
            },
            KindSettings::Holidays {
                country,
                subdivision,
            } => ResolvedKind::Holidays {
                country: country.clone(),
                subdivision: subdivision.clone(),
            },
            KindSettings::IcsFile { path } => {
                let path = relative_dir(path, vault)?;
                ResolvedKind::IcsFile {
                    file: vault.join(&path),
                    path,
                }
            }
        };
        Ok(Self {
            id: source.id.clone(),
            name: source.name.clone(),
            color: source.color.clone(),
            kind,
            order: source.order,
            components: source.components.clone(),
        })
    }

    /// The note folder of a note source.
    pub fn dir(&self) -> Option<&str> {
        match &self.kind {
            ResolvedKind::FullNote { dir }
            | ResolvedKind::DailyNote { dir, .. }
            | ResolvedKind::Tasks { dir, .. } => Some(dir),
            // The file's folder is scanned and watched; only the file is
            // owned (`owns`).
            ResolvedKind::IcsFile { path, .. } => {
                Some(path.rsplit_once('/').map_or("", |(folder, _)| folder))
            }
            ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Holidays { .. } => None,
        }
    }

    /// What a source made from shipped data reads (its events, or why it
    /// has none); `None` for every other source.
    pub fn read_shipped(&self, display_tz: Tz) -> Option<Result<ical::Parsed, String>> {
        match &self.kind {
            ResolvedKind::Holidays {
                country,
                subdivision,
            } => Some(holidays::read(self, country, subdivision, display_tz)),
            ResolvedKind::FullNote { .. }
            | ResolvedKind::DailyNote { .. }
            | ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Tasks { .. }
            | ResolvedKind::IcsFile { .. } => None,
        }
    }

    /// Whether this source reads the same remote calendar as `before` did,
    /// so the events cached from it stay while the settings change around
    /// it: its name, colour or order, or a CalDAV calendar's address found
    /// by discovery and written back (without this, the calendar showed
    /// empty until its copy was read again).
    pub fn reads_same_feed_as(&self, before: &SourceConfig) -> bool {
        match (&self.kind, &before.kind) {
            (ResolvedKind::Ical { .. }, ResolvedKind::Ical { .. }) => self.kind == before.kind,
            (
                ResolvedKind::Caldav {
                    server,
                    username,
                    calendar,
                },
                ResolvedKind::Caldav {
                    server: server_before,
                    username: username_before,
                    calendar: calendar_before,
                },
            ) => {
                server == server_before
                    && username == username_before
                    && (calendar == calendar_before || calendar_before.is_empty())
            }
            (
                ResolvedKind::FullNote { .. }
                | ResolvedKind::DailyNote { .. }
                | ResolvedKind::Tasks { .. }
                | ResolvedKind::Ical { .. }
                | ResolvedKind::Caldav { .. }
                | ResolvedKind::Holidays { .. }
                | ResolvedKind::IcsFile { .. },
                _,
            ) => false,
        }
    }

    /// Whether the vault-relative `path` is a note of this source.
    pub fn owns(&self, path: &str) -> bool {
        let Some(dir) = self.dir() else { return false };
        let inside = if dir.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
        };
        let Some(inside) = inside else { return false };
        if inside.split('/').any(|part| part.starts_with('.')) {
            return false;
        }
        let note = inside.ends_with(".md");
        match &self.kind {
            ResolvedKind::DailyNote { format, .. } => {
                note && format
                    .as_ref()
                    .is_ok_and(|format| format.date_of(path).is_some())
            }
            ResolvedKind::FullNote { .. } | ResolvedKind::Tasks { .. } => note,
            ResolvedKind::IcsFile { path: file, .. } => path == file,
            ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Holidays { .. } => false,
        }
    }

    /// Why this source cannot read its notes, if it cannot.
    pub fn problem(&self) -> Option<&str> {
        match &self.kind {
            ResolvedKind::DailyNote {
                format: Err(problem),
                ..
            } => Some(problem),
            ResolvedKind::DailyNote { format: Ok(_), .. }
            | ResolvedKind::FullNote { .. }
            | ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Tasks { .. }
            | ResolvedKind::Holidays { .. }
            | ResolvedKind::IcsFile { .. } => None,
        }
    }

    /// What the source's status says about the lines of its notes it could
    /// not read as written (`invalid`: every source's, by `(source id,
    /// path)`): only a tasks source, whose notes are everyone's notes,
    /// reports them there.
    pub fn notes_problem(&self, invalid: &Skipped) -> Option<String> {
        match &self.kind {
            ResolvedKind::Tasks { .. } => {
                let mut notes: Vec<_> = invalid
                    .iter()
                    .filter(|((id, _), _)| *id == self.id)
                    .collect();
                notes.sort_by_key(|((_, path), _)| path);
                tasks::status(&notes.into_iter().flat_map(|(_, s)| s).collect::<Vec<_>>())
            }
            // The file's own status: missing, unreadable, or items set
            // aside.
            ResolvedKind::IcsFile { path, file } => {
                let skipped: Vec<_> = invalid
                    .get(&(self.id.clone(), path.clone()))
                    .into_iter()
                    .flatten()
                    .collect();
                ics_file::status(path, file.is_file(), &skipped)
            }
            ResolvedKind::FullNote { .. }
            | ResolvedKind::DailyNote { .. }
            | ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Holidays { .. } => None,
        }
    }

    /// Reads one note of this source into cache entries, collecting what
    /// could not be read.
    pub fn parse_note(&self, path: &str, text: &str, display_tz: Tz) -> ParsedNote {
        match &self.kind {
            ResolvedKind::FullNote { .. } => match fullnote::parse(path, text, display_tz) {
                Ok(entry) => ParsedNote {
                    entries: vec![entry.into()],
                    skipped: vec![],
                },
                Err(reason) => ParsedNote {
                    entries: vec![],
                    skipped: vec![SkippedNote {
                        path: path.to_string(),
                        reason,
                    }],
                },
            },
            ResolvedKind::DailyNote {
                heading,
                format: Ok(format),
                ..
            } => dailynote::parse(heading, format, path, text, display_tz),
            ResolvedKind::DailyNote { format: Err(_), .. } => ParsedNote::default(),
            ResolvedKind::Tasks { date_field, .. } => {
                tasks::parse(*date_field, path, text, display_tz)
            }
            ResolvedKind::IcsFile { .. } => ics_file::parse_note(self, path, text, display_tz),
            ResolvedKind::Ical { .. }
            | ResolvedKind::Caldav { .. }
            | ResolvedKind::Holidays { .. } => ParsedNote::default(),
        }
    }
}

/// What could not be read, by `(source id, note path)`.
pub type Skipped = std::collections::HashMap<(String, String), Vec<SkippedNote>>;

/// What reading one note (or feed) produced.
#[derive(Default)]
pub struct ParsedNote {
    /// Shared from the start: made on the reading thread, so taking them
    /// into the cache (and the index) moves pointers, not copies.
    pub entries: Vec<std::sync::Arc<Indexed>>,
    pub skipped: Vec<SkippedNote>,
}

/// A source folder as a vault-relative, `/`-separated path.
fn relative_dir(directory: &str, vault: &Path) -> Result<String, CalendarError> {
    let escape = || CalendarError::PathEscape(directory.to_string());
    let path = Path::new(directory.trim());
    let relative = if path.is_absolute() {
        path.strip_prefix(vault).map_err(|_| escape())?
    } else {
        path
    };
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str().ok_or_else(escape)?.to_string()),
            Component::CurDir => {}
            _ => return Err(escape()),
        }
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{Origin, Writes, settings_entry};

    #[test]
    fn the_resolved_kind_is_the_settings_kind() {
        let vault = tempfile::tempdir().unwrap();
        for kind in Kind::ALL {
            let source: crate::settings::CalendarSource = serde_json::from_value({
                let mut entry = settings_entry(kind);
                entry["id"] = "a".into();
                entry["name"] = "A".into();
                entry
            })
            .unwrap();
            let config = SourceConfig::from_settings(&source, vault.path()).unwrap();
            assert_eq!(config.kind.kind(), kind);
            // The engine routes on capabilities, then asks the resolved
            // source for what that route needs: the two always agree.
            let resolved = &config.kind;
            assert_eq!(
                kind.writes() == Writes::Notes,
                resolved.note_calendar().is_some(),
                "{kind}"
            );
            assert_eq!(
                kind.writes() == Writes::TaskLines,
                resolved.task_date_field().is_some(),
                "{kind}"
            );
            assert_eq!(kind.origin() == Origin::Feed, resolved.feed().is_some());
            assert_eq!(kind.refreshed(), resolved.address().is_some(), "{kind}");
        }
    }
}
