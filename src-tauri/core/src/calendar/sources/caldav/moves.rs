//! Moving an event to or from a CalDAV calendar: the event is made in the
//! target calendar (with the fields sent applied), then removed from where it
//! was. If either later step fails, the copy is removed again, so the event
//! is never lost and never left in both calendars.
//!
//! The copy is confirmed before the source goes: into a note, it is on
//! disk; into a CalDAV calendar, the server has taken it. A copy the server
//! cannot take now is refused, not queued: a queued copy the server refused
//! later would leave the event nowhere. Out of a CalDAV calendar, the
//! removal may wait in the queue: the note already holds the event, and a
//! removal the server refuses leaves it in both places, never in none.
//!
//! What moves is what the event model holds (title, times, repetition,
//! skipped dates, task state, description, location, alarms, UID, …). What
//! it does not hold is refused rather than dropped: a note with text or keys
//! of its own, a daily-note item with inline fields of its own, a CalDAV
//! event with properties Almanac does not model (`ATTENDEE`, `X-…`, …), a
//! CalDAV series with modified occurrences, or one occurrence alone.

use crate::calendar::engine::Calendar;
use crate::calendar::sources::NoteCalendar;
use crate::calendar::sources::caldav::splice;
use crate::calendar::sources::caldav::writes::Delivery;
use crate::calendar::sources::{SourceConfig, fullnote, ical};
use crate::calendar::write::notes::{self as write, DailyTarget};
use crate::kinds::Writes;
use almanac_model::error::CalendarError;
use almanac_model::event::Event;
use almanac_model::fields::EventFields;
use almanac_model::spec::EventSpec;

impl Calendar {
    /// Moves event `id` into `target`, where one of the two calendars is a
    /// CalDAV calendar; see the module docs.
    pub(in crate::calendar) fn move_across(
        &self,
        id: &str,
        target: &SourceConfig,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let event = self.details(id)?.event;
        self.movable(id, &event)?;
        let (copy, fields) = match target.kind.kind().writes() {
            // Made with the fields sent at once: the one write the server
            // must take now (see the module docs).
            Writes::Server => {
                let spec = EventSpec::default()
                    .patched(&fields_of(&event)?)?
                    .patched(&fields)?;
                let _write = self.inner.begin_write(None);
                let copy = self.caldav_create_spec(target, spec, Delivery::Now)?;
                (copy, EventFields::default())
            }
            _ => (self.create(&target.id, fields_of(&event)?)?, fields),
        };
        let finished = if fields == EventFields::default() {
            Ok(copy.clone())
        } else {
            self.update(&copy.id, fields)
        };
        let finished = finished.and_then(|moved| {
            self.delete(id, None)?;
            Ok(moved)
        });
        finished.inspect_err(|_| {
            // The event stays where it was: take the copy back out.
            if let Err(error) = self.delete(&copy.id, None) {
                tracing::error!(%error, "a half-moved event's copy could not be removed");
            }
        })
    }

    /// Refuses what a move of event `moved` (of id `id`) would lose.
    fn movable(&self, id: &str, moved: &Event) -> Result<(), CalendarError> {
        let refused = |reason: &str| Err(CalendarError::invalid("calendarId", reason));
        if let Some((source, event)) = self.caldav_event(id) {
            if event.contains("::") {
                return refused("one occurrence moves with its series: move the series");
            }
            let current = self.caldav_current(&source, &event)?;
            let keys = ical::override_keys(&current.ics, self.display_tz())
                .map_err(|e| CalendarError::invalid("event", e))?;
            if keys.iter().any(Option::is_some) {
                return refused(
                    "the series has occurrences edited on their own, which a note cannot hold; \
                     keep it in its CalDAV calendar",
                );
            }
            // Refused rather than kept in the note's frontmatter: a note
            // has no place that would send them back to a server (moved
            // back, such keys are refused as the note's own), and an
            // invitation's ATTENDEEs kept as text would look answered.
            let alarms = moved.alarms.as_ref().map_or(0, Vec::len);
            let unmodeled = splice::unmodeled(&current.ics, &event, alarms);
            if !unmodeled.is_empty() {
                return Err(CalendarError::Conflict(format!(
                    "the event holds what a note cannot keep ({}), which the move would drop; \
                     keep it in its CalDAV calendar",
                    unmodeled.join(", ")
                )));
            }
            return Ok(());
        }
        let (vault, _, path, source) = self.locate(id)?;
        match (source.kind.kind().writes(), source.kind.note_calendar()) {
            (Writes::Notes, Some(NoteCalendar::FullNote { .. })) => {
                let text = write::read(&vault, &path)?;
                if fullnote::holds_more_than_event(&text) {
                    return refused(
                        "the note has text or keys of its own that a CalDAV event cannot keep; \
                         move it to a note calendar instead",
                    );
                }
                Ok(())
            }
            (
                Writes::Notes,
                Some(NoteCalendar::DailyNote {
                    dir,
                    heading,
                    format,
                }),
            ) => {
                let from = DailyTarget::new(dir, heading, format)?;
                write::movable_daily_to_caldav(&vault, &from, &path, id)
            }
            (Writes::Notes, None) => refused("not a note calendar"),
            (Writes::ReadOnly | Writes::Server, _) => Err(CalendarError::ReadOnly(source.id)),
            (Writes::TaskLines, _) => {
                refused("a task stays in its note's Tasks calendar; move the line in Obsidian")
            }
        }
    }
}

/// The fields that make `event` again elsewhere: an event read back is
/// accepted as fields (its read-only parts ignored), the API's own contract.
fn fields_of(event: &Event) -> Result<EventFields, CalendarError> {
    serde_json::to_value(event)
        .and_then(serde_json::from_value)
        .map_err(|e| CalendarError::invalid("event", e.to_string()))
}
