//! The vault's side of a published calendar: the calendar as Almanac's own
//! CalDAV server serves it (`caldav_server::collection`: one resource per
//! `UID`, a series with its detached notes as `RECURRENCE-ID` overrides and
//! its `skipDates` as `EXDATE`s), and a server's resource applied to the
//! notes through the same path a CalDAV client's `PUT` takes
//! (`caldav_server::resource::put`: only the fields that changed are
//! written, the body and unknown keys are kept byte for byte, an edited or
//! cancelled occurrence becomes a detached note or a skipped date).
//!
//! Two things are added for publishing: the reminder each event gives on
//! this machine (its own alarms; else its `notify`, or the default minutes,
//! as `vault_reminders::rules` decides) is written as a `VALARM`, so the
//! phone fires it; and a deleted event's notes are moved to the vault's
//! `.trash/` (as Obsidian does) instead of being removed.

use std::sync::Arc;

use axum::http::HeaderMap;
use chrono_tz::Tz;

use crate::api::{AuthorizedApi, EventOptions};
use crate::caldav_server::error::DavRefusal;
use crate::caldav_server::resource::{Place, put};
use crate::caldav_server::{Listings, ServedResource, resource_name};
use crate::calendar::{Alarm, AlarmAction, Calendar, Event, EventFields, EventId};
use crate::ics::series::read_series;
use crate::kinds::Kind;
use crate::vault_reminders::rules::Rules;

/// One event of the vault as it is published.
#[derive(Debug, Clone)]
pub struct LocalItem {
    /// Its resource name on Almanac's CalDAV server.
    pub name: String,
    /// The digest of what is published: changes exactly when the pushed
    /// text does (reminders included).
    pub etag: String,
    /// The `VCALENDAR` pushed.
    pub ics: String,
    /// The minutes of the alarms added from `notify` or the default (not
    /// the event's own), which a server's copy is read without.
    pub added_alarms: Vec<i64>,
    pub events: Arc<[Event]>,
}

impl LocalItem {
    /// Whether it is published as a `VTODO` (a Tasks line, a note task).
    pub fn is_task(&self) -> bool {
        self.events.first().is_some_and(Event::is_task)
    }
}

/// A published calendar's notes.
pub struct Vault<'a> {
    pub api: &'a AuthorizedApi,
    pub calendar: &'a Calendar,
    pub listings: &'a Listings,
    pub calendar_id: &'a str,
    pub rules: &'a Rules,
}

impl Vault<'_> {
    fn zone(&self) -> Tz {
        self.calendar.display_timezone()
    }

    /// The calendar's kind; `None` if it is not in the vault's sources.
    pub fn kind(&self) -> Option<Kind> {
        self.calendar
            .sources()
            .into_iter()
            .find(|s| s.id == self.calendar_id)
            .map(|s| s.kind)
    }

    /// The calendar's events by `UID`; `None` if the calendar is not there.
    pub fn items(&self) -> Option<std::collections::BTreeMap<String, LocalItem>> {
        let resources = self.listings.resources(self.calendar, self.calendar_id)?;
        Some(
            resources
                .iter()
                .map(|resource| (resource.uid.to_string(), self.item(resource)))
                .collect(),
        )
    }

    fn item(&self, resource: &ServedResource) -> LocalItem {
        let mut added = Vec::new();
        let events: Vec<Event> = resource
            .events
            .iter()
            .map(|event| {
                let mut event = event.clone();
                if let Some(minutes) = added_alarm(self.rules, &event) {
                    added.push(minutes);
                    event.alarms = Some(vec![Alarm {
                        minutes_before: minutes,
                        action: AlarmAction::Display,
                    }]);
                }
                event
            })
            .collect();
        let published = ServedResource::of(resource.uid.clone(), events, self.zone());
        LocalItem {
            name: resource.name.to_string(),
            etag: published.etag.to_string(),
            ics: published.ics(self.zone()),
            added_alarms: added,
            events: resource.events.clone(),
        }
    }

    /// Pins the `UID` of each Full Note event that has none (its id, which
    /// follows the note's path, stands in for it) into its frontmatter, so
    /// a renamed note keeps its resource. Only the `uid` key is written.
    /// Whether any was pinned.
    pub fn pin_uids(&self) -> Result<bool, String> {
        let Some(resources) = self.listings.resources(self.calendar, self.calendar_id) else {
            return Ok(false);
        };
        let mut pinned = false;
        for resource in resources.iter() {
            let master = &resource.events[0];
            if master.uid.is_none() && master.id.starts_with("fullnote:") {
                let fields = EventFields {
                    uid: Some(Some(resource.uid.to_string())),
                    ..EventFields::default()
                };
                self.api
                    .update_event(&master.id, fields, quiet())
                    .map_err(|e| e.to_string())?;
                pinned = true;
            }
        }
        Ok(pinned)
    }

    /// Applies the server's `ics` of event `uid` to the notes (`local`: the
    /// event's notes now, if any): an update of the fields that changed,
    /// or a new note.
    pub fn apply(&self, uid: &str, local: Option<&LocalItem>, ics: &str) -> Result<(), String> {
        let own = local.map(|l| l.added_alarms.as_slice()).unwrap_or_default();
        let ics = without_alarms(ics, own);
        let name = local.map_or_else(|| resource_name(uid), |l| l.name.clone());
        let place = Place {
            calendar: self.calendar,
            listings: self.listings,
            id: self.calendar_id,
            name: &name,
        };
        put(self.api, &place, &HeaderMap::new(), &ics)
            .map(drop)
            .map_err(|e| in_words(&e))
    }

    /// Moves the notes of `local` to the vault's `.trash/`; an event that
    /// is an item inside a note (a daily note's line) is deleted from it.
    pub fn trash(&self, local: &LocalItem) -> Result<(), String> {
        for event in local.events.iter() {
            match (event.id.parse::<EventId>(), &event.file_path) {
                (Ok(EventId::FullNote { .. }), Some(rel)) => {
                    self.calendar
                        .trash_note(rel)
                        .map_err(|e| format!("could not move {rel} to .trash: {e}"))?;
                }
                _ => self
                    .api
                    .delete_event(&event.id, quiet())
                    .map_err(|e| e.to_string())?,
            }
        }
        Ok(())
    }

    /// Writes the server's version of `uid` (`ics`) as a new note beside
    /// the vault's, titled as a conflict and with a `UID` of its own (so it
    /// is published as an event of its own, not over the vault's); its
    /// vault-relative path.
    pub fn write_conflict(&self, uid: &str, ics: &str, at_millis: i64) -> Result<String, String> {
        let server = read_series(ics, self.zone())?;
        let mut fields = server.master.fields;
        let title = fields.title.take().unwrap_or_default();
        fields.title = Some(format!("{title} (conflict)"));
        fields.uid = Some(Some(format!("{uid}-conflict-{at_millis}")));
        let options = EventOptions {
            number_taken_name: true,
            ..quiet()
        };
        let note = self
            .api
            .create_event(self.calendar_id, fields, options)
            .map_err(|e| e.to_string())?;
        Ok(note.file_path.unwrap_or(note.id))
    }
}

/// Writes made for the sync are not announced in the UI one by one.
fn quiet() -> EventOptions {
    EventOptions {
        silent: true,
        ..EventOptions::default()
    }
}

/// The minutes of the alarm `event` gets from its `notify` or the default
/// (`Rules::lead`'s rule), when it has no alarm of its own and reminds.
fn added_alarm(rules: &Rules, event: &Event) -> Option<i64> {
    let own = event.alarms.as_ref().is_some_and(|a| !a.is_empty());
    let done = event.completed.as_ref().is_some_and(|c| c.is_done());
    if own || done {
        return None;
    }
    let notify = event
        .notify
        .as_ref()
        .and_then(|n| n.get("value"))
        .and_then(serde_json::Value::as_f64);
    match notify {
        Some(minutes) => rules.explicit.then_some(minutes.round() as i64),
        None => rules.default_minutes.map(i64::from),
    }
}

/// `ics` without the display `VALARM`s whose lead is one of `minutes`:
/// the alarms publishing added, which the note does not hold (its
/// `notify` or the default gives them), so a server's copy that kept them
/// does not turn them into the note's own `alarms`.
fn without_alarms(ics: &str, minutes: &[i64]) -> String {
    if minutes.is_empty() {
        return ics.to_string();
    }
    let triggers: Vec<String> = minutes.iter().map(|m| format!("-PT{m}M")).collect();
    let mut out = String::with_capacity(ics.len());
    let mut alarm: Option<String> = None;
    let mut dropped = false;
    for line in ics.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare.eq_ignore_ascii_case("BEGIN:VALARM") {
            alarm = Some(String::new());
        }
        match alarm.as_mut() {
            Some(block) => {
                block.push_str(line);
                if bare.eq_ignore_ascii_case("END:VALARM") {
                    let block = alarm.take().unwrap_or_default();
                    let added = !dropped
                        && block.lines().any(|l| {
                            let l = l.trim_end();
                            l.to_ascii_uppercase().starts_with("TRIGGER")
                                && l.rsplit(':')
                                    .next()
                                    .is_some_and(|v| triggers.iter().any(|t| t == v))
                        });
                    if added {
                        // One per event at most: a second is the phone's own.
                        dropped = true;
                    } else {
                        out.push_str(&block);
                    }
                }
            }
            None => {
                if bare.eq_ignore_ascii_case("END:VEVENT") || bare.eq_ignore_ascii_case("END:VTODO")
                {
                    dropped = false;
                }
                out.push_str(line);
            }
        }
    }
    out
}

/// The CalDAV server's refusal of a server's resource, in plain words.
fn in_words(error: &DavRefusal) -> String {
    match error {
        DavRefusal::Precondition(_, _, message) | DavRefusal::Status(_, message) => message.clone(),
        DavRefusal::Unauthorized(message) | DavRefusal::MethodNotAllowed { message, .. } => {
            message.clone()
        }
        DavRefusal::Busy { message, .. } => message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_added_alarm_is_left_out_of_a_servers_copy() {
        let ics = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\n\
            BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT10M\r\nEND:VALARM\r\n\
            BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT30M\r\nEND:VALARM\r\n\
            END:VEVENT\r\nEND:VCALENDAR\r\n";
        let out = without_alarms(ics, &[10]);
        assert!(!out.contains("-PT10M"), "{out}");
        assert!(
            out.contains("TRIGGER:-PT30M"),
            "the phone's own stays: {out}"
        );
        assert!(out.starts_with("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\n"));
        assert!(out.ends_with("END:VEVENT\r\nEND:VCALENDAR\r\n"));
        assert_eq!(without_alarms(ics, &[]), ics);
    }
}
