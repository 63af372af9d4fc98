//! Writes to CalDAV calendars: the event is written as iCalendar
//! (`ics::write`, its overrides kept by `splice`; one occurrence of a series
//! as a `RECURRENCE-ID` override in the same resource) and PUT with `If-Match`
//! (`If-None-Match: *` when new), or DELETEd with `If-Match`. A `412` is a
//! conflict for the caller, never retried over the server's version. A
//! server that does not answer (or refuses the password) gets the write
//! queued durably; it shows at once and is replayed, in order and under the
//! same preconditions, before the next sync. A replayed write the server
//! refuses is kept where the user can restore it (see `queue`), never
//! dropped; a move's copy is never queued (see `caldav_move`).

use chrono::{Duration, NaiveDate, NaiveDateTime, Utc};
use reqwest::Url;

use crate::calendar::engine::{Calendar, Inner, lock};
use crate::calendar::index::cache::Indexed;
use crate::calendar::sources::caldav::mirror::Resource;
use crate::calendar::sources::caldav::queue::QueuedWrite;
use crate::calendar::sources::caldav::splice::{self, Alarms, Occurrence, with_overrides};
use crate::calendar::sources::caldav::{DavClient, DavError};
use crate::calendar::sources::{SourceConfig, fullnote, ical};
use crate::ics::write::{Component, calendar};
use crate::kinds::Writes;
use almanac_model::error::CalendarError;
use almanac_model::event::Event;
use almanac_model::event::EventType;
use almanac_model::fields::EventFields;
use almanac_model::id::EventId;
use almanac_model::query::day_start_millis;
use almanac_model::series::recurrence::Window;
use almanac_model::spec::EventSpec;

const CONFLICT: &str = "the event was changed on the CalDAV server since Almanac last read it; \
                        nothing was overwritten: reload the calendar and edit it again";

/// Whether a write may wait in the queue when the server does not take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::calendar) enum Delivery {
    /// Queued until the server answers, and shown at once meanwhile.
    OrQueue,
    /// Sent now, or refused with nothing changed: a move's copy, whose
    /// source is removed once it is written. Queued, the copy could still
    /// be refused later, and then the event would be nowhere.
    Now,
}

/// Why a write that must reach the server at once ([`Delivery::Now`]) was
/// refused: what stays, and what to do.
const NOT_NOW: &str = "the event was not moved and stays where it was (a move waits for the \
                       CalDAV server to take it, never in the queue); move it again once the \
                       server answers";

/// The event being replaced: where it is, which version, its text.
pub(in crate::calendar) struct Current {
    href: Url,
    etag: String,
    pub(in crate::calendar) ics: String,
}

/// One occurrence of a series: the series' UID, the occurrence's key in
/// event ids (`YYYYMMDDTHHMMSS`, its original local start), and its fields
/// as they are now (the override's, or the series' on that day).
struct Target {
    uid: String,
    key: String,
    spec: EventSpec,
}

impl Target {
    fn occurrence(&self) -> Result<Occurrence<'_>, CalendarError> {
        let at = NaiveDateTime::parse_from_str(&self.key, "%Y%m%dT%H%M%S")
            .map_err(|_| CalendarError::invalid("id", "not an occurrence of a series"))?;
        Ok(Occurrence {
            uid: &self.uid,
            key: &self.key,
            at,
        })
    }
}

impl Calendar {
    /// The CalDAV source and UID of event `id`, when it is a CalDAV event.
    pub(in crate::calendar) fn caldav_event(&self, id: &str) -> Option<(SourceConfig, String)> {
        let Ok(EventId::Ical { calendar_id, event }) = id.parse() else {
            return None;
        };
        let state = self.inner.read();
        let config = state.cache.source(&calendar_id)?.config.clone();
        (config.kind.kind().writes() == Writes::Server).then_some((config, event))
    }

    /// Creates an event in CalDAV calendar `source`.
    pub(in crate::calendar) fn caldav_create(
        &self,
        source: &SourceConfig,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let spec = EventSpec::default().patched(&fields)?;
        self.caldav_create_spec(source, spec, Delivery::OrQueue)
    }

    /// Creates the event `spec` in CalDAV calendar `source`, sent as
    /// `delivery` says.
    pub(in crate::calendar) fn caldav_create_spec(
        &self,
        source: &SourceConfig,
        spec: EventSpec,
        delivery: Delivery,
    ) -> Result<Event, CalendarError> {
        let uid = spec
            .uid
            .clone()
            .unwrap_or_else(|| format!("{}@almanac", uuid::Uuid::new_v4()));
        self.caldav_put(source, &uid, &spec, None, delivery)?;
        self.caldav_cached(source, &uid, None)
    }

    /// Applies `fields` to the CalDAV event `event`: a whole series or
    /// single event (`uid`), or one modified occurrence (`uid::key`).
    pub(in crate::calendar) fn caldav_update(
        &self,
        source: &SourceConfig,
        event: &str,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        if event.contains("::") {
            let target = self.caldav_target(source, event, None)?;
            return self.caldav_put_occurrence(source, target, &fields);
        }
        let (uid, spec) = self.caldav_spec(source, event)?;
        let spec = spec.patched(&fields)?;
        let current = self.caldav_current(source, &uid)?;
        let alarms = match fields.alarms {
            Some(_) => Alarms::Written,
            None => Alarms::Kept,
        };
        self.caldav_put(
            source,
            &uid,
            &spec,
            Some((current, alarms)),
            Delivery::OrQueue,
        )?;
        self.caldav_cached(source, &uid, None)
    }

    /// Applies `fields` to the occurrence on `date` of the CalDAV series
    /// `event` only: its override in the series' resource, made or updated.
    pub(in crate::calendar) fn caldav_update_occurrence(
        &self,
        source: &SourceConfig,
        event: &str,
        date: NaiveDate,
        fields: EventFields,
    ) -> Result<Event, CalendarError> {
        let target = self.caldav_target(source, event, Some(date))?;
        self.caldav_put_occurrence(source, target, &fields)
    }

    /// Deletes the CalDAV event `event`; with `instance_date`, or when it
    /// is a modified occurrence, only that occurrence (its override removed
    /// and an `EXDATE` added to the series).
    pub(in crate::calendar) fn caldav_delete(
        &self,
        source: &SourceConfig,
        event: &str,
        instance_date: Option<NaiveDate>,
    ) -> Result<(), CalendarError> {
        if instance_date.is_some() || event.contains("::") {
            let target = self.caldav_target(source, event, instance_date)?;
            let current = self.caldav_current(source, &target.uid)?;
            let keys = ical::override_keys(&current.ics, self.display_tz())
                .map_err(|e| CalendarError::invalid("event", e))?;
            let ics = splice::remove_occurrence(&current.ics, &keys, &target.occurrence()?)
                .map_err(|e| CalendarError::invalid("event", e))?;
            return self.caldav_send(source, Some(current), ics, Delivery::OrQueue);
        }
        let (uid, _) = self.caldav_spec(source, event)?;
        let current = self.caldav_current(source, &uid)?;
        let inner = &self.inner;
        let _sync = lock(&inner.caldav.lock);
        let (client, collection) = inner.connect(source).map_err(refused)?;
        let write = QueuedWrite::Delete {
            href: current.href.to_string(),
            if_match: current.etag.clone(),
        };
        inner.send_or_queue(source, &client, write, Delivery::OrQueue)?;
        inner.keep_local(source, &collection, current.href.as_str(), None);
        inner.remember_calendar_url(source, &collection);
        Ok(())
    }

    pub(in crate::calendar) fn display_tz(&self) -> chrono_tz::Tz {
        self.inner.read().cache.display_tz
    }

    /// The occurrence an edit or delete is about: modified occurrence
    /// `uid::key`, or the occurrence on `date` of series `uid` (its override
    /// when it has one).
    fn caldav_target(
        &self,
        source: &SourceConfig,
        event: &str,
        date: Option<NaiveDate>,
    ) -> Result<Target, CalendarError> {
        let id = |event: &str| EventId::ical(&source.id, event, None).to_string();
        let state = self.inner.read();
        let entry = |event: &str| {
            state
                .cache
                .find(&id(event))
                .map(|(_, _, entry)| entry)
                .ok_or_else(|| CalendarError::NotFound(id(event)))
        };
        if let Some((uid, key)) = event.split_once("::") {
            if date.is_some() {
                return Err(CalendarError::invalid(
                    "instanceDate",
                    "the event is one occurrence already; leave instanceDate out",
                ));
            }
            if key.contains("::") {
                return Err(CalendarError::invalid(
                    "id",
                    "this part of a series (a RANGE=THISANDFUTURE override) cannot be edited \
                     on its own; edit the series",
                ));
            }
            let spec = entry(event)?.spec.clone();
            return Ok(Target {
                uid: uid.to_string(),
                key: key.to_string(),
                spec,
            });
        }
        let date = date.ok_or_else(|| CalendarError::invalid("instanceDate", "missing"))?;
        let master = entry(event)?;
        if !master.timing.is_series() {
            return Err(CalendarError::invalid(
                "instanceDate",
                "the event is not recurring; edit or delete it instead",
            ));
        }
        // Already modified: its override is the occurrence.
        let prefix = id(&format!("{event}::{}T", date.format("%Y%m%d")));
        let overridden = state
            .cache
            .source(&source.id)
            .into_iter()
            .flat_map(|cached| cached.notes.values().flatten())
            .find(|e| e.id.starts_with(&prefix) && !e.id.ends_with("::thisandfuture"));
        if let Some(entry) = overridden {
            let key = entry.id.rsplit("::").next().unwrap_or_default();
            return Ok(Target {
                uid: event.to_string(),
                key: key.to_string(),
                spec: entry.spec.clone(),
            });
        }
        let tz = state.cache.display_tz;
        let window = Window {
            start: day_start_millis(date - Duration::days(2), tz),
            end: day_start_millis(date + Duration::days(3), tz),
        };
        let found = state.cache.occurrences_of(&master.id, window);
        let occurrence = found.iter().find(|o| o.date == date).ok_or_else(|| {
            CalendarError::invalid(
                "instanceDate",
                format!("the series has no occurrence on {date}"),
            )
        })?;
        Ok(Target {
            uid: event.to_string(),
            key: occurrence.start.format("%Y%m%dT%H%M%S").to_string(),
            spec: occurrence_spec(&master.spec, date),
        })
    }

    /// Writes `target` with `fields` applied as its override.
    fn caldav_put_occurrence(
        &self,
        source: &SourceConfig,
        target: Target,
        fields: &EventFields,
    ) -> Result<Event, CalendarError> {
        let spec = target.spec.patched(fields)?;
        if spec.kind != EventType::Single {
            return Err(CalendarError::invalid(
                "type",
                "one occurrence cannot repeat; edit the series to change its repetition",
            ));
        }
        let written = self.render(source, &target.uid, &spec)?;
        let current = self.caldav_current(source, &target.uid)?;
        let keys = ical::override_keys(&current.ics, self.display_tz())
            .map_err(|e| CalendarError::invalid("event", e))?;
        let ics = splice::put_override(
            &current.ics,
            &keys,
            &target.occurrence()?,
            &written,
            &cleared(fields),
        )
        .map_err(|e| CalendarError::invalid("event", e))?;
        self.caldav_send(source, Some(current), ics, Delivery::OrQueue)?;
        self.caldav_cached(source, &target.uid, Some(&target.key))
    }
    /// The UID and cached spec of CalDAV event `uid`.
    fn caldav_spec(
        &self,
        source: &SourceConfig,
        event: &str,
    ) -> Result<(String, EventSpec), CalendarError> {
        let id = EventId::ical(&source.id, event, None).to_string();
        let state = self.inner.read();
        let (_, _, entry): (_, _, &Indexed) = state
            .cache
            .find(&id)
            .ok_or_else(|| CalendarError::NotFound(id.clone()))?;
        Ok((event.to_string(), entry.spec.clone()))
    }

    /// The resource holding `uid`, as last read from the server.
    pub(in crate::calendar) fn caldav_current(
        &self,
        source: &SourceConfig,
        uid: &str,
    ) -> Result<Current, CalendarError> {
        let mut mirrors = self.inner.caldav.mirrors.live();
        let mirror = &mirrors.of(&source.id).mirror;
        let missing = || CalendarError::NotFound(EventId::ical(&source.id, uid, None).to_string());
        let href = mirror.href_of(uid).ok_or_else(missing)?;
        let resource = &mirror.resources[href];
        Ok(Current {
            href: Url::parse(href).map_err(|_| missing())?,
            etag: resource.etag.clone(),
            ics: resource.ics.clone(),
        })
    }

    /// Writes `spec` as the resource of `uid`: over `current` (its alarms
    /// as said), or new.
    fn caldav_put(
        &self,
        source: &SourceConfig,
        uid: &str,
        spec: &EventSpec,
        current: Option<(Current, Alarms)>,
        delivery: Delivery,
    ) -> Result<(), CalendarError> {
        let mut ics = self.render(source, uid, spec)?;
        if let Some((current, alarms)) = &current {
            ics = with_overrides(&ics, &current.ics, *alarms);
        }
        self.caldav_send(source, current.map(|(current, _)| current), ics, delivery)
    }

    /// `spec` as a `VCALENDAR` with one `VEVENT` of `uid`. The spec goes
    /// through the note writer and reader, so the event written is exactly
    /// what a note with these fields would be.
    fn render(
        &self,
        source: &SourceConfig,
        uid: &str,
        spec: &EventSpec,
    ) -> Result<String, CalendarError> {
        let tz = self.display_tz();
        let note = fullnote::render_new(spec)?;
        let event = fullnote::parse("event.md", &note, tz)
            .map_err(|reason| CalendarError::invalid("event", reason))?
            .event(source, "");
        let component = Component {
            uid,
            event: &event,
            recurrence_id: None,
        };
        Ok(calendar(&[component], None, tz, Utc::now()))
    }

    /// PUTs `ics` over `current`, or as a new resource.
    fn caldav_send(
        &self,
        source: &SourceConfig,
        current: Option<Current>,
        ics: String,
        delivery: Delivery,
    ) -> Result<(), CalendarError> {
        let inner = &self.inner;
        let _sync = lock(&inner.caldav.lock);
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
        let sent = inner.send_or_queue(source, &client, write, delivery)?;
        // A queued write has no ETag yet: the next sync fetches the
        // server's, after the replay.
        let etag = sent.flatten().unwrap_or_default();
        let resource = Resource { etag, ics };
        inner.keep_local(source, &collection, href.as_str(), Some(resource));
        inner.remember_calendar_url(source, &collection);
        Ok(())
    }

    /// The cached event `uid` of `source`, or its modified occurrence `key`.
    fn caldav_cached(
        &self,
        source: &SourceConfig,
        uid: &str,
        key: Option<&str>,
    ) -> Result<Event, CalendarError> {
        let id = EventId::ical(&source.id, uid, key).to_string();
        let state = self.inner.read();
        state
            .cache
            .find(&id)
            .and_then(|(index, path, e)| Some(e.event(state.cache.config(index)?, path)))
            .ok_or(CalendarError::NotFound(id))
    }
}

/// The occurrence on `date` of the series `series` as an event of its own:
/// the series' fields and times, without its repetition.
fn occurrence_spec(series: &EventSpec, date: NaiveDate) -> EventSpec {
    let days = match (series.end_date, series.first_day()) {
        (Some(end), Some(first)) => (end - first).num_days().max(0),
        _ => 0,
    };
    EventSpec {
        title: series.title.clone(),
        all_day: series.all_day,
        date: Some(date),
        end_date: (days > 0).then(|| date + Duration::days(days)),
        start_time: series.start_time,
        end_time: series.end_time,
        timezone: series.timezone,
        category: series.category.clone(),
        description: series.description.clone(),
        url: series.url.clone(),
        location: series.location.clone(),
        ..EventSpec::default()
    }
}

/// The iCalendar properties `fields` removes (a `null`), which an override
/// must not keep from the one it replaces.
fn cleared(fields: &EventFields) -> Vec<&'static str> {
    [
        ("DESCRIPTION", fields.description.as_ref()),
        ("CATEGORIES", fields.category.as_ref()),
        ("URL", fields.url.as_ref()),
        ("LOCATION", fields.location.as_ref()),
    ]
    .into_iter()
    .filter(|(_, value)| matches!(value, Some(None)))
    .map(|(name, _)| name)
    .collect()
}

/// A source that cannot be written at all (no password, no calendar).
fn refused(reason: String) -> CalendarError {
    CalendarError::invalid("calendarId", reason)
}

impl Inner {
    /// Sends `write`, unless earlier writes still wait (then it waits
    /// behind them). `Ok(Some(etag))` when sent, `Ok(None)` when queued;
    /// with [`Delivery::Now`], refused rather than queued.
    fn send_or_queue(
        &self,
        source: &SourceConfig,
        client: &DavClient,
        write: QueuedWrite,
        delivery: Delivery,
    ) -> Result<Option<Option<String>>, CalendarError> {
        let mut queue = self.caldav.queues.load(&source.id);
        if delivery == Delivery::Now && !queue.is_empty() {
            // Sent before them, it could be undone by their replay.
            return Err(CalendarError::Conflict(format!(
                "{NOT_NOW}: earlier changes to this calendar still wait for the CalDAV server"
            )));
        }
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
                // Never to be sent: refused now rather than queued forever.
                Err(error @ (DavError::OffOrigin(_) | DavError::TooLarge(_))) => {
                    return Err(CalendarError::invalid("event", error.to_string()));
                }
                Err(error) if delivery == Delivery::Now => {
                    return Err(CalendarError::Conflict(format!("{NOT_NOW}: {error}")));
                }
                Err(error) => {
                    tracing::warn!(source = %source.id, %error, "CalDAV write queued until the server answers")
                }
            }
        }
        queue.push(write);
        self.caldav
            .queues
            .store(&source.id, &queue)
            .map_err(|e| CalendarError::io(self.caldav.queues.dir(), e))?;
        Ok(None)
    }

    /// Keeps the written resource `href` of calendar `collection` (`None`:
    /// deleted) in the mirror, on disk, and shown (sent, or waiting in the
    /// queue).
    fn keep_local(
        &self,
        source: &SourceConfig,
        collection: &Url,
        href: &str,
        resource: Option<Resource>,
    ) {
        let (index, tz) = {
            let state = self.read();
            (state.cache.source_index(&source.id), state.cache.display_tz)
        };
        let waiting = self.pending(source);
        let mut mirrors = self.caldav.mirrors.live();
        let live = mirrors.of(&source.id);
        if live.mirror.calendar_url.is_empty() {
            live.mirror.calendar_url = collection.to_string();
        }
        match resource {
            Some(resource) => live.mirror.resources.insert(href.to_string(), resource),
            None => live.mirror.resources.remove(href),
        };
        let touched = [href.to_string()];
        if let Err(error) = self
            .caldav
            .mirrors
            .store_change(&source.id, &live.mirror, &touched)
        {
            tracing::warn!(source = %source.id, %error, "could not cache the CalDAV calendar on disk");
        }
        if let Some(index) = index {
            self.show_mirror(index, source, live, Some(&touched), tz, waiting);
        }
    }

    /// The status of a source with writes waiting in its queue, or refused
    /// on replay and kept.
    pub(in crate::calendar) fn pending(&self, source: &SourceConfig) -> Option<String> {
        let queues = &self.caldav.queues;
        let queued = queues.load(&source.id).len();
        let refused = queues.refused_count(&source.id);
        let parts: Vec<String> = [
            (queued > 0).then(|| {
                format!(
                    "{queued} change(s) wait for the CalDAV server and will be sent when it answers"
                )
            }),
            (refused > 0).then(|| {
                format!(
                    "{refused} change(s) the CalDAV server refused are kept as .ics files in {}: \
                     open or import one to restore it, then delete it",
                    queues.refused_dir().display()
                )
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Replays the queued writes of `source` in order. Stops (keeping the
    /// rest) while the server still does not take them; a write refused
    /// (`412`: the event changed meanwhile; any other refusal) is never
    /// forced: the event it would have written is kept aside (see `queue`)
    /// and named, with where it is, in the returned notes.
    pub(in crate::calendar) fn replay_queued(
        &self,
        source: &SourceConfig,
        client: &DavClient,
    ) -> Result<Vec<String>, String> {
        let mut queue = self.caldav.queues.load(&source.id);
        let mut notes = Vec::new();
        while let Some(write) = queue.first().cloned() {
            let refused = match send(client, &write) {
                Ok(_) => None,
                Err(DavError::PreconditionFailed) => Some(format!(
                    "the event changed on the server meanwhile ({})",
                    write.href().rsplit('/').next().unwrap_or_default()
                )),
                Err(DavError::Protocol(reason)) => Some(format!("the server refused it: {reason}")),
                Err(error @ DavError::OffOrigin(_)) => Some(error.to_string()),
                Err(error) => return Err(error.to_string()),
            };
            if let Some(why) = refused {
                // Kept before it leaves the queue: a failure here keeps it
                // queued instead.
                let kept = self
                    .caldav
                    .queues
                    .keep_refused(&source.id, &write)
                    .map_err(|e| format!("cannot keep a change the CalDAV server refused: {e}"))?;
                notes.push(match kept {
                    Some(file) => format!(
                        "a change made offline was not sent because {why}; the event as it \
                         was changed is kept in {}",
                        file.display()
                    ),
                    None => format!(
                        "a deletion made offline was not sent because {why}; the event stays"
                    ),
                });
            }
            queue.remove(0);
            self.caldav
                .queues
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
