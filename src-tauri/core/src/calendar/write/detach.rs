//! One occurrence of a Full Note series edited or cancelled on its own, as
//! a CalDAV client's `RECURRENCE-ID` override asks.
//!
//! A note holds one series and no modified occurrences, so an edited
//! occurrence becomes a *detached note*: a single event of its own, and the
//! series skips that date (`skipDates`) — the same result as the calendar
//! window's "this occurrence". The detached note remembers what it stands
//! for, so a CalDAV client reads it back as the override it sent: its `uid`
//! is the series' UID and `recurrenceId` the date of the occurrence it
//! replaces. A cancelled occurrence is a skipped date only.

use chrono::{Duration, NaiveDate};

use crate::calendar::engine::Calendar;
use crate::calendar::sources::NoteCalendar;
use crate::calendar::sources::fullnote;
use crate::calendar::vault::Vault;
use crate::calendar::write::notes::{self as write, TakenName};
use almanac_model::error::CalendarError;
use almanac_model::event::{Event, EventType};
use almanac_model::fields::EventFields;
use almanac_model::query::EventQuery;
use almanac_model::spec::format_date;

/// The series a detached occurrence belongs to, located for a write.
struct Series {
    vault: Vault,
    path: String,
    event: Event,
    /// Its UID as CalDAV serves it: `uid`, else its id.
    uid: String,
    dir: String,
}

impl Calendar {
    /// Applies `fields` to the occurrence on `date` of the Full Note series
    /// `id` only: the note detached for that occurrence is updated, or a
    /// new one is created (titled, timed and described as the series unless
    /// `fields` say otherwise) and the series skips `date`. Returns the
    /// detached event. A date the series does not have is refused. The
    /// caller holds the write lock ([`Calendar::update_occurrence`]).
    pub(in crate::calendar) fn detach_occurrence(
        &self,
        id: &str,
        date: NaiveDate,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let series = self.series_for_occurrence(id, date, true)?;
        let mut fields = fields;
        // What stays the detached note's own: one event, standing for `date`.
        fields.kind = Some(EventType::Single);
        fields.uid = Some(Some(series.uid.clone()));
        fields.recurrence_id = Some(Some(format_date(date)));
        for recurrence in [
            &mut fields.rrule,
            &mut fields.start_date,
            &mut fields.start_recur,
            &mut fields.end_recur,
        ] {
            *recurrence = Some(None);
        }
        fields.skip_dates = Some(None);
        fields.days_of_week = Some(None);
        if let Some(detached) = self.detached_path(&series, date) {
            let new_path = write::update_fullnote(&series.vault, &detached, &fields)?;
            self.inner.refresh(&[detached, new_path.clone()]);
            return self.cached(&new_path, &fullnote::event_id(&new_path));
        }
        let fields = occurrence_defaults(&series.event, date, fields);
        let created =
            write::create_fullnote(&series.vault, &series.dir, &fields, TakenName::Number)?;
        if let Err(error) = self.skip_in_series(&series, date, true) {
            // No copy next to an occurrence still shown.
            let _ = write::delete_fullnote(&series.vault, &created);
            return Err(error);
        }
        self.inner.refresh(&[series.path, created.clone()]);
        self.cached(&created, &fullnote::event_id(&created))
    }

    /// Cancels the occurrence on `date` of the Full Note series `id`: the
    /// series skips it, and the note detached for it, if any, is deleted —
    /// unless that note holds words of its own, which are not deleted as a
    /// side effect ([`refuse_to_lose_words`]). The caller holds the write
    /// lock ([`Calendar::delete`]).
    pub(in crate::calendar) fn cancel_occurrence(
        &self,
        id: &str,
        date: NaiveDate,
    ) -> Result<(), CalendarError> {
        let series = self.series_for_occurrence(id, date, false)?;
        let mut touched = vec![series.path.clone()];
        if let Some(detached) = self.detached_path(&series, date) {
            refuse_to_lose_words(&series.vault, &detached, date)?;
            write::delete_fullnote(&series.vault, &detached)?;
            touched.push(detached);
        }
        self.skip_in_series(&series, date, false)?;
        self.inner.refresh(&touched);
        Ok(())
    }

    /// The work of [`Calendar::check_cancellable`].
    pub(in crate::calendar) fn check_cancellable_occurrence(
        &self,
        id: &str,
        date: NaiveDate,
    ) -> Result<(), CalendarError> {
        let series = self.series_for_occurrence(id, date, false)?;
        match self.detached_path(&series, date) {
            Some(detached) => refuse_to_lose_words(&series.vault, &detached, date),
            None => Ok(()),
        }
    }

    pub(in crate::calendar) fn detached_note_of(
        &self,
        id: &str,
        date: NaiveDate,
    ) -> Option<String> {
        let series = self.series_for_occurrence(id, date, false).ok()?;
        self.detached_path(&series, date)
    }

    /// The work of [`Calendar::check_occurrence`].
    pub(in crate::calendar) fn check_detachable(
        &self,
        id: &str,
        date: NaiveDate,
    ) -> Result<(), CalendarError> {
        self.series_for_occurrence(id, date, true).map(|_| ())
    }

    /// The notes detached from the series with UID `uid` in calendar
    /// `calendar_id` (see the module docs).
    fn detached_occurrences(&self, calendar_id: &str, uid: &str) -> Vec<Event> {
        self.source_events(calendar_id)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.recurrence_id.is_some() && e.uid.as_deref() == Some(uid))
            .collect()
    }

    /// Locates series `id` and, with `check`, that `date` is one of its
    /// occurrences (shown, or already skipped). Skipping a date the series
    /// does not have is harmless, and was always accepted.
    fn series_for_occurrence(
        &self,
        id: &str,
        date: NaiveDate,
        check: bool,
    ) -> Result<Series, CalendarError> {
        self.require_vault()?;
        let (vault, _, path, source) = self.locate(id)?;
        let Some(NoteCalendar::FullNote { dir }) = source.kind.note_calendar() else {
            return Err(CalendarError::invalid(
                "instanceDate",
                "only a Full Note series can have one occurrence detached",
            ));
        };
        let event = self.cached(&path, id)?;
        if event.kind == EventType::Single || event.recurrence_id.is_some() {
            return Err(CalendarError::invalid(
                "instanceDate",
                "the event is not recurring; edit it instead",
            ));
        }
        let day = format_date(date);
        if check && !event.skip_dates.contains(&day) && !self.occurs_on(&source.id, id, date)? {
            return Err(CalendarError::invalid(
                "instanceDate",
                format!("the series has no occurrence on {day}"),
            ));
        }
        let uid = event.uid.clone().unwrap_or_else(|| event.id.clone());
        Ok(Series {
            vault,
            path,
            event,
            uid,
            dir: dir.to_string(),
        })
    }

    /// Whether series `id` of calendar `calendar_id` has an occurrence on
    /// `date` (its local date, whatever the display zone).
    fn occurs_on(
        &self,
        calendar_id: &str,
        id: &str,
        date: NaiveDate,
    ) -> Result<bool, CalendarError> {
        let around = |day: NaiveDate| day.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
        let (Some(from), Some(to)) = (
            around(date - Duration::days(2)),
            around(date + Duration::days(2)),
        ) else {
            return Ok(false);
        };
        let query = EventQuery {
            calendars: Some(vec![calendar_id.to_string()]),
            start_millis: Some(from.timestamp_millis()),
            end_millis: Some(to.timestamp_millis()),
            ..EventQuery::default()
        };
        let day = format_date(date);
        Ok(self
            .query_checked(&query)?
            .iter()
            .any(|e| e.id == id && e.instance_date.as_deref() == Some(day.as_str())))
    }

    /// The note detached for `date` of `series`, if there is one.
    fn detached_path(&self, series: &Series, date: NaiveDate) -> Option<String> {
        let day = format_date(date);
        self.detached_occurrences(&series.event.calendar_id, &series.uid)
            .into_iter()
            .find(|e| e.recurrence_id.as_deref() == Some(day.as_str()))
            .and_then(|e| e.file_path)
    }

    /// Adds `date` to the series' `skipDates`; with `pin`, and its UID to
    /// its frontmatter when it had none, so the link from a detached note
    /// survives a rename of the series' note.
    fn skip_in_series(
        &self,
        series: &Series,
        date: NaiveDate,
        pin: bool,
    ) -> Result<(), CalendarError> {
        let uid = pin.then_some(series.uid.as_str());
        write::skip_fullnote_occurrence(&series.vault, &series.path, date, uid)
    }
}

/// Refuses (409) to delete the note detached for `date` when it holds more
/// than its event (a body, keys of the user's own): the minutes someone
/// wrote in that meeting's note are not lost because an occurrence was
/// cancelled. Deleting that note by its own id is a delete the user asked
/// for, and takes its text with it.
fn refuse_to_lose_words(
    vault: &Vault,
    detached: &str,
    date: NaiveDate,
) -> Result<(), CalendarError> {
    if !fullnote::holds_more_than_event(&write::read(vault, detached)?) {
        return Ok(());
    }
    Err(CalendarError::Conflict(format!(
        "the {} occurrence has a note of its own with text in it (`{detached}`); \
         delete that note (id `{}`) to delete its text with it, or empty it first",
        format_date(date),
        fullnote::event_id(detached)
    )))
}

/// A new detached note's fields: what the client sent, else the series'
/// own (title, times, zone, description, class, relations, …) on `date`.
fn occurrence_defaults(series: &Event, date: NaiveDate, mut fields: EventFields) -> EventFields {
    fn keep<T: Clone>(field: &mut Option<Option<T>>, series: &Option<T>) {
        if field.is_none() {
            *field = Some(series.clone());
        }
    }
    if fields.title.is_none() {
        fields.title = Some(series.title.clone());
    }
    keep(&mut fields.date, &Some(format_date(date)));
    if fields.all_day.is_none() {
        fields.all_day = Some(series.all_day);
    }
    keep(&mut fields.start_time, &series.start_time);
    keep(&mut fields.end_time, &series.end_time);
    keep(&mut fields.timezone, &series.timezone);
    keep(&mut fields.description, &series.description);
    keep(&mut fields.location, &series.location);
    keep(&mut fields.category, &series.category);
    keep(&mut fields.url, &series.url);
    keep(&mut fields.alarms, &series.alarms);
    keep(&mut fields.class, &series.class);
    keep(&mut fields.related_to, &series.related_to);
    fields
}
