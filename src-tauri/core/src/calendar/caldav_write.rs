//! Writes to CalDAV calendars: the event is written as iCalendar
//! (`ics::write`, its overrides kept by `splice`) and PUT with `If-Match`
//! (`If-None-Match: *` when new), or DELETEd with `If-Match`. A `412` is a
//! conflict for the caller, never retried over the server's version. A
//! server that does not answer (or refuses the password) gets the write
//! queued durably; it shows at once and is replayed, in order and under the
//! same preconditions, before the next sync.

use chrono::{NaiveDate, Utc};
use reqwest::Url;

use super::cache::Indexed;
use super::engine::{Calendar, Inner, lock};
use super::error::CalendarError;
use super::event::Event;
use super::fields::EventFields;
use super::id::EventId;
use super::sources::caldav::mirror::{Mirror, Resource};
use super::sources::caldav::queue::QueuedWrite;
use super::sources::caldav::splice::with_overrides;
use super::sources::caldav::{DavClient, DavError};
use super::sources::{SourceConfig, SourceType, fullnote};
use super::spec::EventSpec;
use crate::ics::write::{Component, calendar};

const CONFLICT: &str = "the event was changed on the CalDAV server since Almanac last read it; \
                        nothing was overwritten: reload the calendar and edit it again";

/// The event being replaced: where it is, which version, its text.
struct Current {
    href: Url,
    etag: String,
    ics: String,
}

impl Calendar {
    /// The CalDAV source and UID of event `id`, when it is a CalDAV event.
    pub(super) fn caldav_event(&self, id: &str) -> Option<(SourceConfig, String)> {
        let Ok(EventId::Ical { calendar_id, event }) = id.parse() else {
            return None;
        };
        let state = self.inner.read();
        let config = state.cache.source(&calendar_id)?.config.clone();
        matches!(config.kind, SourceType::Caldav { .. }).then_some((config, event))
    }

    /// Creates an event in CalDAV calendar `source`.
    pub(super) fn caldav_create(
        &self,
        source: &SourceConfig,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let spec = EventSpec::default().patched(&fields)?;
        let uid = spec
            .uid
            .clone()
            .unwrap_or_else(|| format!("{}@almanac", uuid::Uuid::new_v4()));
        self.caldav_put(source, &uid, &spec, None)?;
        self.caldav_cached(source, &uid)
    }

    /// Applies `fields` to the CalDAV event `uid` (a whole series: one
    /// modified occurrence cannot be edited on its own yet).
    pub(super) fn caldav_update(
        &self,
        source: &SourceConfig,
        event: &str,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let (uid, spec) = self.caldav_spec(source, event)?;
        let spec = spec.patched(&fields)?;
        let current = self.caldav_current(source, &uid)?;
        self.caldav_put(source, &uid, &spec, Some(current))?;
        self.caldav_cached(source, &uid)
    }

    /// Deletes the CalDAV event `uid`, or only its occurrence on
    /// `instance_date` (an `EXDATE`).
    pub(super) fn caldav_delete(
        &self,
        source: &SourceConfig,
        event: &str,
        instance_date: Option<NaiveDate>,
    ) -> Result<(), CalendarError> {
        let (uid, spec) = self.caldav_spec(source, event)?;
        let current = self.caldav_current(source, &uid)?;
        if let Some(date) = instance_date {
            let mut skip_dates = spec.skip_dates.clone();
            skip_dates.push(date);
            let mut spec = spec;
            spec.skip_dates = skip_dates;
            return self.caldav_put(source, &uid, &spec, Some(current));
        }
        let inner = &self.inner;
        let _sync = lock(&inner.caldav_lock);
        let (client, _) = inner.connect(source).map_err(refused)?;
        let write = QueuedWrite::Delete {
            href: current.href.to_string(),
            if_match: current.etag.clone(),
        };
        let sent = inner.send_or_queue(source, &client, write)?;
        let mut mirror = inner.mirrors.load(&source.id).unwrap_or_default();
        mirror.resources.remove(current.href.as_str());
        inner.keep_local(source, &mirror, sent.map(drop));
        Ok(())
    }

    /// The UID and cached spec of CalDAV event `event` (`uid` or
    /// `uid::recurrence`).
    fn caldav_spec(
        &self,
        source: &SourceConfig,
        event: &str,
    ) -> Result<(String, EventSpec), CalendarError> {
        if event.contains("::") {
            return Err(CalendarError::invalid(
                "id",
                "one modified occurrence of a CalDAV series cannot be edited on its own yet; \
                 edit the series",
            ));
        }
        let id = EventId::ical(&source.id, event, None).to_string();
        let state = self.inner.read();
        let (_, _, entry): (_, _, &Indexed) = state
            .cache
            .find(&id)
            .ok_or_else(|| CalendarError::NotFound(id.clone()))?;
        Ok((event.to_string(), entry.spec.clone()))
    }

    /// The resource holding `uid`, as last read from the server.
    fn caldav_current(&self, source: &SourceConfig, uid: &str) -> Result<Current, CalendarError> {
        let mirror = self.inner.mirrors.load(&source.id).unwrap_or_default();
        let missing = || CalendarError::NotFound(EventId::ical(&source.id, uid, None).to_string());
        let href = mirror.href_of(uid).ok_or_else(missing)?;
        let resource = &mirror.resources[href];
        Ok(Current {
            href: Url::parse(href).map_err(|_| missing())?,
            etag: resource.etag.clone(),
            ics: resource.ics.clone(),
        })
    }

    /// Writes `spec` as the resource of `uid`: over `current`, or new.
    fn caldav_put(
        &self,
        source: &SourceConfig,
        uid: &str,
        spec: &EventSpec,
        current: Option<Current>,
    ) -> Result<(), CalendarError> {
        let tz = self.inner.read().cache.display_tz;
        // The spec goes through the note writer and reader, so the event
        // written is exactly what a note with these fields would be.
        let note = fullnote::render_new(spec)?;
        let event = fullnote::parse("event.md", &note, tz)
            .map_err(|reason| CalendarError::invalid("event", reason))?
            .event(source, "");
        let component = Component {
            uid,
            event: &event,
            recurrence_id: None,
        };
        let mut ics = calendar(&[component], None, tz, Utc::now());
        if let Some(current) = &current {
            ics = with_overrides(&ics, &current.ics);
        }
        let inner = &self.inner;
        let _sync = lock(&inner.caldav_lock);
        let (client, collection) = inner.connect(source).map_err(refused)?;
        let href = match &current {
            Some(current) => current.href.clone(),
            None => collection
                .join(&format!("{}.ics", uuid::Uuid::new_v4()))
                .map_err(|e| CalendarError::invalid("calendar", e.to_string()))?,
        };
        let write = QueuedWrite::Put {
            href: href.to_string(),
            ics: ics.clone(),
            if_match: current.as_ref().map(|c| c.etag.clone()),
        };
        let sent = inner.send_or_queue(source, &client, write)?;
        let mut mirror = inner.mirrors.load(&source.id).unwrap_or_default();
        if mirror.calendar_url.is_empty() {
            mirror.calendar_url = collection.to_string();
        }
        // A queued write has no ETag yet: the next sync fetches the
        // server's, after the replay.
        let etag = sent.clone().unwrap_or_default().unwrap_or_default();
        mirror
            .resources
            .insert(href.to_string(), Resource { etag, ics });
        inner.keep_local(source, &mirror, sent.map(drop));
        Ok(())
    }

    /// The cached master event `uid` of `source`.
    fn caldav_cached(&self, source: &SourceConfig, uid: &str) -> Result<Event, CalendarError> {
        let id = EventId::ical(&source.id, uid, None).to_string();
        let state = self.inner.read();
        state
            .cache
            .find(&id)
            .and_then(|(index, path, e)| Some(e.event(state.cache.config(index)?, path)))
            .ok_or(CalendarError::NotFound(id))
    }
}

/// A source that cannot be written at all (no password, no calendar).
fn refused(reason: String) -> CalendarError {
    CalendarError::invalid("calendarId", reason)
}

impl Inner {
    /// Sends `write`, unless earlier writes still wait (then it waits
    /// behind them). `Ok(Some(etag))` when sent, `Ok(None)` when queued.
    fn send_or_queue(
        &self,
        source: &SourceConfig,
        client: &DavClient,
        write: QueuedWrite,
    ) -> Result<Option<Option<String>>, CalendarError> {
        let mut queue = self.queues.load(&source.id);
        if queue.is_empty() {
            match send(client, &write) {
                Ok(etag) => return Ok(Some(etag)),
                Err(DavError::PreconditionFailed) => {
                    self.feed_worker.request(true);
                    return Err(CalendarError::Conflict(CONFLICT.into()));
                }
                Err(DavError::Protocol(reason)) => {
                    return Err(CalendarError::invalid(
                        "event",
                        format!("the CalDAV server refused the change: {reason}"),
                    ));
                }
                Err(error) => {
                    tracing::warn!(source = %source.id, %error, "CalDAV write queued until the server answers")
                }
            }
        }
        queue.push(write);
        self.queues
            .store(&source.id, &queue)
            .map_err(|e| CalendarError::io(self.queues.dir(), e))?;
        Ok(None)
    }

    /// Stores `mirror` and shows it; `sent` is `None` when the write waits.
    fn keep_local(&self, source: &SourceConfig, mirror: &Mirror, sent: Option<()>) {
        if let Err(error) = self.mirrors.store(&source.id, mirror) {
            tracing::warn!(source = %source.id, %error, "could not cache the CalDAV calendar on disk");
        }
        let Some(index) = self.read().cache.source_index(&source.id) else {
            return;
        };
        let tz = self.read().cache.display_tz;
        let waiting = sent.is_none().then(|| self.waiting(source));
        self.apply_mirror(index, source, mirror, tz, waiting.flatten());
    }

    /// The status of a source with queued writes.
    pub(super) fn waiting(&self, source: &SourceConfig) -> Option<String> {
        let count = self.queues.load(&source.id).len();
        (count > 0).then(|| {
            format!("{count} change(s) wait for the CalDAV server and will be sent when it answers")
        })
    }

    /// Replays the queued writes of `source` in order. Stops (keeping the
    /// rest) while the server still does not take them; a write refused
    /// (`412`: the event changed meanwhile) is dropped, never forced, and
    /// named in the returned notes.
    pub(super) fn replay_queued(
        &self,
        source: &SourceConfig,
        client: &DavClient,
    ) -> Result<Vec<String>, String> {
        let mut queue = self.queues.load(&source.id);
        let mut notes = Vec::new();
        while let Some(write) = queue.first().cloned() {
            match send(client, &write) {
                Ok(_) => {}
                Err(DavError::PreconditionFailed) => notes.push(format!(
                    "a change made offline was not sent because the event changed on the \
                     server meanwhile ({})",
                    write.href().rsplit('/').next().unwrap_or_default()
                )),
                Err(DavError::Protocol(reason)) => notes.push(format!(
                    "a change made offline was refused by the server: {reason}"
                )),
                Err(error) => return Err(error.to_string()),
            }
            queue.remove(0);
            self.queues
                .store(&source.id, &queue)
                .map_err(|e| format!("cannot update the CalDAV write queue: {e}"))?;
        }
        Ok(notes)
    }
}

fn send(client: &DavClient, write: &QueuedWrite) -> Result<Option<String>, DavError> {
    let url = |href: &str| {
        Url::parse(href).map_err(|e| DavError::Protocol(format!("bad resource URL: {e}")))
    };
    match write {
        QueuedWrite::Put {
            href,
            ics,
            if_match,
        } => client.put(&url(href)?, ics, if_match.as_deref()),
        QueuedWrite::Delete { href, if_match } => {
            client.delete(&url(href)?, if_match).map(|()| None)
        }
    }
}
