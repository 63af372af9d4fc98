//! Writes: each one resolves its target (a calendar, or an event id
//! confined to the vault), hands it to the writer of that source type
//! (`write`), and re-reads the notes it touched so the answer, and every
//! later read, shows the change. Writes serialize on `write_lock`, and read
//! and update the cache only through its methods.

use chrono::NaiveDate;

use crate::calendar::engine::Calendar;
use crate::calendar::sources::NoteCalendar;
use crate::calendar::sources::{SourceConfig, fullnote, tasks};
use crate::calendar::vault::Vault;
use crate::calendar::write::notes::{self as write, DailyTarget};
use crate::history::RestoreFile;
use crate::kinds::Writes;
use almanac_model::error::CalendarError;
use almanac_model::event::Event;
use almanac_model::fields::EventFields;
use almanac_model::id::EventId;
use almanac_model::status::VaultStatus;

impl Calendar {
    /// Refuses a write while the vault is unavailable.
    pub(in crate::calendar) fn require_vault(&self) -> Result<(), CalendarError> {
        match &self.inner.read().vault_status {
            VaultStatus::Available => Ok(()),
            VaultStatus::Unavailable { reason, .. } => {
                Err(CalendarError::VaultUnavailable(reason.clone()))
            }
        }
    }

    /// The work of [`Calendar::create_named`].
    pub(in crate::calendar) fn create_with_name(
        &self,
        calendar_id: &str,
        fields: EventFields,
        taken: write::TakenName,
    ) -> Result<Event, CalendarError> {
        let _write = self.inner.begin_write(None);
        self.require_vault()?;
        let source = self.source_config(calendar_id)?;
        let vault = self.inner.read().vault.clone();
        match source.kind.kind().writes() {
            Writes::Notes => match source.kind.note_calendar() {
                Some(NoteCalendar::FullNote { dir }) => {
                    let path = write::create_fullnote(&vault, dir, &fields, taken)?;
                    self.inner.refresh(std::slice::from_ref(&path));
                    self.cached(&path, &fullnote::event_id(&path))
                }
                Some(NoteCalendar::DailyNote {
                    dir,
                    heading,
                    format,
                }) => {
                    let target = DailyTarget::new(dir, heading, format)?;
                    let path = write::create_daily(&vault, &target, &fields, |date| {
                        self.daily_note(&source.id, date)
                    })?;
                    self.inner.refresh(std::slice::from_ref(&path));
                    self.last_item(&source.id, &path)
                }
                None => Err(not_notes()),
            },
            Writes::Server => self.caldav_create(&source, fields),
            Writes::ReadOnly => Err(CalendarError::ReadOnly(source.id.clone())),
            Writes::TaskLines => Err(CalendarError::invalid(
                "calendarId",
                format!(
                    "`{}` shows the Obsidian Tasks of its notes: add the task in a note \
                     (`- [ ] Title 📅 YYYY-MM-DD`); a recurring task is ticked in Obsidian, \
                     which writes its next occurrence",
                    source.id
                ),
            )),
        }
    }

    /// The work of [`Calendar::update`].
    pub(in crate::calendar) fn update_event(
        &self,
        id: &str,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let _write = self.inner.begin_write(None);
        if let Some((source, event)) = self.caldav_event(id) {
            return self.caldav_update(&source, &event, fields);
        }
        self.require_vault()?;
        let (vault, index, path, source) = self.locate(id)?;
        match (source.kind.kind().writes(), source.kind.note_calendar()) {
            (Writes::Notes, Some(NoteCalendar::FullNote { .. })) => {
                let new_path = write::update_fullnote(&vault, &path, &fields)?;
                self.inner.refresh(&[path, new_path.clone()]);
                self.cached(&new_path, &fullnote::event_id(&new_path))
            }
            (
                Writes::Notes,
                Some(NoteCalendar::DailyNote {
                    dir,
                    heading,
                    format,
                }),
            ) => {
                let target = DailyTarget::new(dir, heading, format)?;
                let new_path = write::update_daily(&vault, &target, &path, id, &fields, |date| {
                    self.daily_note(&source.id, date)
                })?;
                self.inner.refresh(&[path.clone(), new_path.clone()]);
                let title = fields.title.as_deref().map(str::trim);
                let state = self.inner.read();
                let (config, entries) = state
                    .cache
                    .note_entries(index, &new_path)
                    .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
                // Same note and title: the id is unchanged. Otherwise the
                // item is the one with the new title (the last, if several).
                entries
                    .iter()
                    .find(|e| &*e.id == id)
                    .or_else(|| {
                        entries
                            .iter()
                            .rev()
                            .find(|e| title.is_some_and(|t| e.spec.title == t))
                    })
                    .or_else(|| entries.iter().max_by_key(|e| e.line_number))
                    .map(|e| e.event(config, &new_path))
                    .ok_or_else(|| CalendarError::NotFound(id.to_string()))
            }
            (Writes::Notes, None) => Err(not_notes()),
            (Writes::TaskLines, _) => {
                let date_field = source.kind.task_date_field().unwrap_or_default();
                let today = chrono::Utc::now()
                    .with_timezone(&self.inner.read().cache.display_tz)
                    .date_naive();
                let line = tasks::edit::update(&vault, &path, id, date_field, &fields, today)?;
                self.inner.refresh(std::slice::from_ref(&path));
                // Only that line changed: the task is still on it.
                let state = self.inner.read();
                state
                    .cache
                    .note_entries(index, &path)
                    .and_then(|(config, entries)| {
                        let entry = entries.iter().find(|e| e.line_number == line)?;
                        Some(entry.event(config, &path))
                    })
                    .ok_or_else(|| CalendarError::NotFound(id.to_string()))
            }
            // A CalDAV event is written above; one that is not there any
            // more is refused as the read-only kinds' are.
            (Writes::ReadOnly | Writes::Server, _) => {
                Err(CalendarError::ReadOnly(source.id.clone()))
            }
        }
    }

    /// The work of [`Calendar::update_occurrence`].
    pub(in crate::calendar) fn update_one_occurrence(
        &self,
        id: &str,
        date: NaiveDate,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let _write = self.inner.begin_write(None);
        if let Some((source, event)) = self.caldav_event(id) {
            return self.caldav_update_occurrence(&source, &event, date, fields);
        }
        self.detach_occurrence(id, date, fields)
    }

    /// The work of [`Calendar::move_to`].
    pub(in crate::calendar) fn move_event(
        &self,
        id: &str,
        calendar_id: &str,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let target = self.source_config(calendar_id)?;
        let current = match self.caldav_event(id) {
            Some((source, _)) => source,
            None => self.locate(id)?.3,
        };
        if current.id == target.id {
            return self.update(id, fields);
        }
        // The kinds' capabilities decide, not the kinds themselves.
        match (current.kind.kind().writes(), target.kind.kind().writes()) {
            (_, Writes::ReadOnly) => Err(CalendarError::ReadOnly(target.id)),
            (Writes::ReadOnly, _) => Err(CalendarError::ReadOnly(current.id)),
            (Writes::TaskLines, _) | (_, Writes::TaskLines) => Err(CalendarError::invalid(
                "calendarId",
                "a task stays in its note's Tasks calendar; move the line in Obsidian",
            )),
            (Writes::Server, _) | (_, Writes::Server) => self.move_across(id, &target, fields),
            (Writes::Notes, Writes::Notes) => self.move_between_notes(id, &target, fields),
        }
    }

    /// [`move_to`](Self::move_to) from one note calendar to another.
    fn move_between_notes(
        &self,
        id: &str,
        target: &SourceConfig,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let _write = self.inner.begin_write(None);
        self.require_vault()?;
        let (vault, _, path, source) = self.locate(id)?;
        let existing = |date| self.daily_note(&target.id, date);
        let (Some(from), Some(to)) = (source.kind.note_calendar(), target.kind.note_calendar())
        else {
            // Sorted out by `move_to`: only note calendars get here.
            return Err(CalendarError::invalid(
                "calendarId",
                "moved between note calendars only",
            ));
        };
        let new_path = match (from, to) {
            (NoteCalendar::FullNote { .. }, NoteCalendar::FullNote { dir }) => {
                write::move_fullnote(&vault, &path, dir, &fields)?
            }
            (
                NoteCalendar::FullNote { .. },
                NoteCalendar::DailyNote {
                    dir,
                    heading,
                    format,
                },
            ) => {
                let to = DailyTarget::new(dir, heading, format)?;
                write::move_fullnote_to_daily(&vault, &path, &to, &fields, existing)?
            }
            (
                NoteCalendar::DailyNote {
                    dir,
                    heading,
                    format,
                },
                NoteCalendar::FullNote { dir: into },
            ) => {
                let from = DailyTarget::new(dir, heading, format)?;
                write::move_daily_to_fullnote(&vault, &from, &path, id, into, &fields)?
            }
            (
                NoteCalendar::DailyNote {
                    dir,
                    heading,
                    format,
                },
                NoteCalendar::DailyNote {
                    dir: to_dir,
                    heading: to_heading,
                    format: to_format,
                },
            ) => {
                let from = DailyTarget::new(dir, heading, format)?;
                let to = DailyTarget::new(to_dir, to_heading, to_format)?;
                write::move_daily(&vault, &from, &path, id, &to, &fields, existing)?
            }
        };
        self.inner.refresh(&[path, new_path.clone()]);
        match to {
            NoteCalendar::DailyNote { .. } => self.last_item(&target.id, &new_path),
            NoteCalendar::FullNote { .. } => self.cached(&new_path, &fullnote::event_id(&new_path)),
        }
    }

    /// The work of [`Calendar::delete`].
    pub(in crate::calendar) fn delete_event(
        &self,
        id: &str,
        instance_date: Option<NaiveDate>,
    ) -> Result<(), CalendarError> {
        let _write = self.inner.begin_write(None);
        if let Some((source, event)) = self.caldav_event(id) {
            return self.caldav_delete(&source, &event, instance_date);
        }
        self.require_vault()?;
        let (vault, _, path, source) = self.locate(id)?;
        match source.kind.kind().writes() {
            Writes::Notes => match (source.kind.note_calendar(), instance_date) {
                (Some(NoteCalendar::FullNote { .. }), None) => {
                    write::delete_fullnote(&vault, &path)?
                }
                (Some(NoteCalendar::FullNote { .. }), Some(date)) => {
                    return self.cancel_occurrence(id, date);
                }
                (
                    Some(NoteCalendar::DailyNote {
                        dir,
                        heading,
                        format,
                    }),
                    None,
                ) => write::delete_daily(
                    &vault,
                    &DailyTarget::new(dir, heading, format)?,
                    &path,
                    id,
                )?,
                (Some(NoteCalendar::DailyNote { .. }), Some(_)) => {
                    return Err(CalendarError::invalid(
                        "instanceDate",
                        "daily-note events are not recurring; delete the event instead",
                    ));
                }
                (None, _) => return Err(not_notes()),
            },
            // A CalDAV event is deleted above; one that is not there any
            // more is refused as the read-only kinds' are.
            Writes::ReadOnly | Writes::Server => {
                return Err(CalendarError::ReadOnly(source.id.clone()));
            }
            Writes::TaskLines => {
                return Err(CalendarError::invalid(
                    "id",
                    "a task is deleted in its note (its line may have notes of its own below it)",
                ));
            }
        }
        self.inner.refresh(&[path]);
        Ok(())
    }

    /// The work of [`Calendar::restore`]: every file must hold what it is
    /// expected to, checked under the write lock, or nothing is written.
    pub(in crate::calendar) fn restore_files(
        &self,
        files: &[RestoreFile],
        undoes: u64,
    ) -> Result<Option<u64>, CalendarError> {
        let write = self.inner.begin_write(Some(undoes));
        self.require_vault()?;
        let vault = self.inner.read().vault.clone();
        for file in files {
            if write::file_state(&vault, &file.path)? != file.expect {
                return Err(CalendarError::Conflict(format!(
                    "`{}` changed after change {undoes} (by hand or by a later change): \
                     undo the later change first",
                    file.path
                )));
            }
        }
        for file in files {
            write::put(&vault, &file.path, file.target.as_deref())?;
        }
        let paths: Vec<String> = files.iter().map(|file| file.path.clone()).collect();
        self.inner.refresh(&paths);
        Ok(write.change.recorded())
    }

    /// The work of [`Calendar::trash_note`]: the note's bytes written under
    /// `.trash/` (a free name there) and the note removed, as one recorded
    /// change, so an undo brings it back.
    pub(in crate::calendar) fn trash_file(&self, rel: &str) -> Result<String, CalendarError> {
        let _write = self.inner.begin_write(None);
        self.require_vault()?;
        let vault = self.inner.read().vault.clone();
        let bytes = write::file_state(&vault, rel)?
            .ok_or_else(|| CalendarError::NotFound(rel.to_string()))?;
        let trashed = (0..)
            .map(|n| trash_name(rel, n))
            .find(|name| !vault.root().join(name).exists())
            .expect("some name is free");
        write::put(&vault, &trashed, Some(&bytes))?;
        write::put(&vault, rel, None)?;
        self.inner.refresh(&[rel.to_string(), trashed.clone()]);
        Ok(trashed)
    }

    /// Resolves a client's id for a write: checks it is confined to the vault
    /// and cached. Returns the vault, source index, note path and source.
    pub(in crate::calendar) fn locate(
        &self,
        id: &str,
    ) -> Result<(Vault, usize, String, SourceConfig), CalendarError> {
        let path = match id.parse()? {
            EventId::FullNote { path }
            | EventId::DailyNote { path, .. }
            | EventId::Task { path, .. } => path,
            EventId::Ical { calendar_id, .. } => return Err(CalendarError::ReadOnly(calendar_id)),
        };
        let state = self.inner.read();
        state.vault.join(&path)?;
        if std::fs::symlink_metadata(state.vault.root().join(&path)).is_ok() {
            state.vault.existing(&path)?;
        }
        let (index, _) = state
            .cache
            .find_in_note(&path, id)
            .ok_or_else(|| CalendarError::NotFound(id.to_string()))?;
        let source = state
            .cache
            .config(index)
            .ok_or_else(|| CalendarError::NotFound(id.to_string()))?
            .clone();
        Ok((state.vault.clone(), index, path, source))
    }

    /// The cached event `id` of note `path`.
    pub(in crate::calendar) fn cached(&self, path: &str, id: &str) -> Result<Event, CalendarError> {
        let state = self.inner.read();
        state
            .cache
            .find_in_note(path, id)
            .and_then(|(index, e)| Some(e.event(state.cache.config(index)?, path)))
            .ok_or_else(|| CalendarError::NotFound(id.to_string()))
    }

    /// The configuration of calendar `calendar_id`.
    fn source_config(&self, calendar_id: &str) -> Result<SourceConfig, CalendarError> {
        self.inner
            .read()
            .cache
            .source(calendar_id)
            .map(|source| source.config.clone())
            .ok_or_else(|| {
                CalendarError::invalid("calendarId", format!("no calendar `{calendar_id}`"))
            })
    }

    /// The last item of daily note `path` in source `source_id`: the one
    /// just added.
    fn last_item(&self, source_id: &str, path: &str) -> Result<Event, CalendarError> {
        let state = self.inner.read();
        state
            .cache
            .source_index(source_id)
            .and_then(|index| state.cache.last_in_note(index, path))
            .ok_or_else(|| CalendarError::NotFound(path.to_string()))
    }

    /// The existing daily note of `date` in source `source_id`, if any.
    fn daily_note(&self, source_id: &str, date: NaiveDate) -> Option<String> {
        self.inner.read().cache.daily_note_of(source_id, date)
    }
}

/// The refusal of a note write to a calendar whose kind writes notes but
/// gives no note calendar: the registry's two answers disagree, a bug
/// refused rather than a panic.
fn not_notes() -> CalendarError {
    CalendarError::invalid("calendarId", "not a note calendar")
}

/// `.trash/<rel>`, or with ` n` before the extension when `n > 0`
/// (Obsidian's trash folder, where a deleted note is kept).
fn trash_name(rel: &str, n: usize) -> String {
    if n == 0 {
        return format!("{}/{rel}", crate::calendar::vault::TRASH);
    }
    match rel.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') => {
            format!("{}/{stem} {n}.{ext}", crate::calendar::vault::TRASH)
        }
        _ => format!("{}/{rel} {n}", crate::calendar::vault::TRASH),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_taken_trash_name_gets_a_number() {
        assert_eq!(super::trash_name("events/a.md", 0), ".trash/events/a.md");
        assert_eq!(super::trash_name("events/a.md", 2), ".trash/events/a 2.md");
        assert_eq!(super::trash_name("v1.0/notes", 1), ".trash/v1.0/notes 1");
    }
}
