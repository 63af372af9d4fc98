//! What each tool does, on the in-process API ([`AuthorizedApi`]): the same
//! calls, scopes and limits as REST. These run on a blocking thread (the
//! API's writes touch the disk); the confirmation of destructive writes
//! ([`super::confirm`]) happens before, on the async side.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use chrono_tz::Tz;
use rmcp::model::CallToolResult;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::McpContext;
use super::params::{
    ChangeIdParams, ChangesParams, CreateParams, DeleteParams, EventIdParams, NoParams,
    QuickAddParams, RangeParams, RemindersParams, SearchParams, UpdateParams,
};
use super::untrusted::{answer, plain};
use crate::api::event_times::local_text;
use crate::api::{
    ApiError, AuthorizedApi, DateRange, EventFilter, EventOptions, EventTimes, IdempotencyKey,
};
use crate::calendar::{Event, EventFields, EventType, RangeSide, busy_periods, parse_range_bound};
use crate::history::ChangeFilter;

/// Why a call did not happen, as the assistant reads it.
pub type Refusal = String;

/// Runs tool `name` with `args`.
pub fn run(
    api: &AuthorizedApi,
    context: &McpContext,
    name: &str,
    args: Value,
) -> Result<CallToolResult, Refusal> {
    let tz = context.calendar.display_timezone();
    match name {
        "list_calendars" => {
            let NoParams {} = parse(args)?;
            let sources = api.get_sources().map_err(refused)?;
            Ok(answer(json!({ "calendars": sources })))
        }
        "list_events" => {
            let params: RangeParams = parse(args)?;
            let filter = EventFilter {
                date_range: Some(range(Some(&params.start), Some(&params.end), tz)?),
                calendar_ids: params.calendars,
                ..EventFilter::default()
            };
            events_answer(api, &filter, tz)
        }
        "search_events" => {
            let params: SearchParams = parse(args)?;
            if params.text.trim().is_empty() {
                return Err("invalid `text`: give the text to search for".into());
            }
            let filter = EventFilter {
                query: Some(params.text),
                date_range: Some(range(params.start.as_deref(), params.end.as_deref(), tz)?),
                calendar_ids: params.calendars,
                ..EventFilter::default()
            };
            events_answer(api, &filter, tz)
        }
        "get_event" => {
            let EventIdParams { id } = parse(args)?;
            let details = api.get_event_details(&id).map_err(refused)?;
            Ok(answer(json!({
                "event": event_view(&details.event, tz),
                "location": details.location,
            })))
        }
        "free_busy" => {
            let params: RangeParams = parse(args)?;
            free_busy(api, params, tz)
        }
        "current_time" => {
            let NoParams {} = parse(args)?;
            Ok(plain(current_time(Utc::now(), tz)))
        }
        "upcoming_reminders" => {
            let RemindersParams { limit } = parse(args)?;
            api.require_scope(crate::tokens::Scope::EventsRead)
                .map_err(refused)?;
            let limit = limit.unwrap_or(10).clamp(1, 100) as usize;
            let now = Utc::now();
            let set = context.reminders.borrow().clone();
            let reminders: Vec<Value> = set
                .reminders
                .iter()
                .filter(|reminder| reminder.trigger >= now)
                .take(limit)
                .map(|reminder| {
                    json!({
                        "eventId": reminder.event_id,
                        "calendarId": reminder.calendar_id,
                        "title": reminder.title,
                        "at": local_text(reminder.trigger, tz),
                        "eventStart": local_text(reminder.start, tz),
                        "minutesBefore": reminder.minutes_before,
                    })
                })
                .collect();
            Ok(answer(json!({ "reminders": reminders })))
        }
        "create_event" => {
            let CreateParams {
                calendar_id,
                event,
                idempotency_key,
            } = parse(args)?;
            let key = idempotency(idempotency_key.as_deref())?;
            let created = api
                .create_event_keyed(key.as_ref(), &calendar_id, event, EventOptions::default())
                .map_err(refused)?;
            Ok(answer(json!({ "created": event_view(&created, tz) })))
        }
        "update_event" => {
            let params: UpdateParams = parse(args)?;
            let options = EventOptions {
                instance_date: occurrence(params.occurrence_date.as_deref())?,
                ..EventOptions::default()
            };
            let updated = api
                .update_event(&params.id, params.changes, options)
                .map_err(refused)?;
            Ok(answer(json!({ "updated": event_view(&updated, tz) })))
        }
        "delete_event" => {
            let params: DeleteParams = parse(args)?;
            let options = EventOptions {
                instance_date: occurrence(params.occurrence_date.as_deref())?,
                ..EventOptions::default()
            };
            api.delete_event(&params.id, options).map_err(refused)?;
            Ok(plain(json!({
                "deleted": params.id,
                "occurrenceDate": params.occurrence_date,
            })))
        }
        "quick_add" => {
            let params: QuickAddParams = parse(args)?;
            let dry_run = params.dry_run.unwrap_or(false);
            let key = idempotency(params.idempotency_key.as_deref())?;
            let calendar = params.calendar_id.as_deref();
            let added = api
                .quick_add_keyed(key.as_ref(), &params.text, calendar, None, dry_run)
                .map_err(refused)?;
            let read = serde_json::to_value(&added.read.fields).unwrap_or(Value::Null);
            Ok(answer(json!({
                "calendarId": added.read.calendar_id,
                "read": read,
                "created": added.created.as_ref().map(|event| event_view(event, tz)),
            })))
        }
        "list_changes" => {
            let params: ChangesParams = parse(args)?;
            let since = params.since.as_deref().map(|since| api.parse_since(since));
            let filter = ChangeFilter {
                token: params.token,
                since: since.transpose().map_err(refused)?,
                before: None,
            };
            let limit = params.limit.unwrap_or(20).clamp(1, 100) as usize;
            let page = api.list_changes(&filter, limit).map_err(refused)?;
            Ok(answer(json!({ "changes": page.changes })))
        }
        "undo_change" => {
            let ChangeIdParams { id } = parse(args)?;
            let change = api.undo_change(id).map_err(refused)?;
            Ok(answer(json!({ "undone": id, "change": change })))
        }
        other => Err(format!("there is no tool named `{other}`")),
    }
}

/// `current_time`'s answer: `now` in the display zone, and the zone with
/// its offset at that instant said outright, so "today" and "09:00" cannot
/// be read in another zone.
fn current_time(now: DateTime<Utc>, tz: Tz) -> Value {
    let local = now.with_timezone(&tz);
    json!({
        "now": local.to_rfc3339(),
        "nowUtc": now.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        "date": local.date_naive().to_string(),
        "weekday": local.format("%A").to_string(),
        "timeZone": tz.name(),
        "utcOffset": local.format("%:z").to_string(),
    })
}

/// The `idempotencyKey` argument, when given.
fn idempotency(key: Option<&str>) -> Result<Option<IdempotencyKey>, Refusal> {
    key.map(|key| IdempotencyKey::parse(key, "idempotencyKey"))
        .transpose()
        .map_err(refused)
}

/// What a destructive call would do, for the person to confirm; `None`
/// when it is not destructive (an edit of one occurrence, of a single
/// event). Reads the event, so a bad id is refused before anyone is asked.
pub fn destructive_action(
    api: &AuthorizedApi,
    name: &str,
    args: &Value,
) -> Result<Option<String>, Refusal> {
    match name {
        "delete_event" => {
            let params: DeleteParams = parse(args.clone())?;
            let event = api.get_event_details(&params.id).map_err(refused)?.event;
            let day = occurrence(params.occurrence_date.as_deref())?;
            let own_note = match day {
                Some(day) => api.detached_note(&params.id, day).map_err(refused)?,
                None => None,
            };
            Ok(Some(match (params.occurrence_date, own_note) {
                (Some(date), Some(note)) => format!(
                    "delete the {date} occurrence of “{}” and the note made for it, `{note}`",
                    event.title
                ),
                (Some(date), None) => format!("delete the {date} occurrence of “{}”", event.title),
                (None, _) if is_series(&event) => {
                    format!("delete “{}” and every occurrence of it", event.title)
                }
                (None, _) => format!("delete “{}” ({})", event.title, event.date),
            }))
        }
        "update_event" => {
            let params: UpdateParams = parse(args.clone())?;
            let event = api.get_event_details(&params.id).map_err(refused)?.event;
            let blanked = blanked_fields(&event, &params.changes);
            if !blanked.is_empty() {
                return Ok(Some(format!(
                    "clear the {} of “{}”",
                    blanked.join(" and the "),
                    event.title
                )));
            }
            if params.occurrence_date.is_some() {
                return Ok(None);
            }
            Ok(is_series(&event).then(|| {
                format!(
                    "change every occurrence of the recurring event “{}”",
                    event.title
                )
            }))
        }
        "undo_change" => {
            let ChangeIdParams { id } = parse(args.clone())?;
            let change = api.get_change(id).map_err(refused)?;
            let files: Vec<String> = change
                .files
                .iter()
                .map(|file| format!("`{}`", file.path))
                .collect();
            Ok(Some(format!(
                "undo change {id}, made by {} at {}, putting back {}",
                change.author,
                change.at.format("%Y-%m-%d %H:%M UTC"),
                files.join(", ")
            )))
        }
        _ => Ok(None),
    }
}

/// The text fields of `event` that `changes` would blank (set to blank
/// text, or remove with `null`): words someone wrote, which an assistant
/// steered by what it read could wipe, so the person is asked first, as
/// before a delete.
fn blanked_fields(event: &Event, changes: &EventFields) -> Vec<&'static str> {
    let written = |text: &Option<String>| text.as_deref().is_some_and(|t| !t.trim().is_empty());
    let blank = |to: &Option<Option<String>>| {
        to.as_ref()
            .is_some_and(|text| text.as_deref().is_none_or(|t| t.trim().is_empty()))
    };
    [
        ("description", &event.description, &changes.description),
        ("location", &event.location, &changes.location),
        ("link", &event.url, &changes.url),
    ]
    .into_iter()
    .filter(|(_, had, to)| written(had) && blank(to))
    .map(|(name, _, _)| name)
    .collect()
}

fn is_series(event: &Event) -> bool {
    event.kind != EventType::Single
}

fn events_answer(
    api: &AuthorizedApi,
    filter: &EventFilter,
    tz: Tz,
) -> Result<CallToolResult, Refusal> {
    let found = api.get_events_answer(filter).map_err(refused)?;
    let events: Vec<Value> = found.events.iter().map(|e| event_view(e, tz)).collect();
    let left_out = serde_json::to_value(&found.left_out).unwrap_or(Value::Null);
    Ok(answer(json!({
        "timeZone": tz.name(),
        "count": events.len(),
        "events": events,
        "seriesLeftOut": left_out,
    })))
}

fn free_busy(api: &AuthorizedApi, params: RangeParams, tz: Tz) -> Result<CallToolResult, Refusal> {
    let window = range(Some(&params.start), Some(&params.end), tz)?;
    let (from, to) = (
        window.start_millis.unwrap_or_default(),
        window.end_millis.unwrap_or_default(),
    );
    let filter = EventFilter {
        date_range: Some(window),
        calendar_ids: params.calendars,
        // Busy time is the events': tasks and all-day events (which mark a
        // day rather than block its hours) do not count.
        is_task: Some(false),
        ..EventFilter::default()
    };
    let events = api.get_events(&filter).map_err(refused)?;
    let timed = events.iter().filter(|event| !event.all_day);
    let busy: Vec<Value> = busy_periods(timed, from, to)
        .into_iter()
        .map(|(start, end)| json!({ "start": local_millis(start, tz), "end": local_millis(end, tz) }))
        .collect();
    Ok(plain(json!({ "timeZone": tz.name(), "busy": busy })))
}

/// An event as the tools show it: its times as REST gives them
/// ([`EventTimes`]: UTC, the display zone and its name, and whether it is
/// zoned, floating or all-day), with `start`/`end` the local ones, and the
/// id (and for an occurrence its date) to address it with.
fn event_view(event: &Event, tz: Tz) -> Value {
    let times = EventTimes::of(event, tz);
    json!({
        "id": event.id,
        "instanceDate": event.instance_date,
        "title": event.title,
        "calendarId": event.calendar_id,
        "calendarName": event.calendar_name,
        "allDay": event.all_day,
        "start": times.start_local,
        "end": times.end_local,
        "timing": times.timing,
        "displayZone": times.display_zone,
        "startUtc": times.start_utc,
        "endUtc": times.end_utc,
        "startLocal": times.start_local,
        "endLocal": times.end_local,
        "recurring": is_series(event),
        "isTask": event.is_task(),
        "completed": event.is_completed(),
        "location": event.location,
        "description": event.description,
    })
}

fn local_millis(millis: i64, tz: Tz) -> String {
    DateTime::from_timestamp_millis(millis)
        .map(|at| local_text(at, tz))
        .unwrap_or_default()
}

/// A range read as REST reads `start`/`end`; a side left open is open.
fn range(start: Option<&str>, end: Option<&str>, tz: Tz) -> Result<DateRange, Refusal> {
    let bound = |value: Option<&str>, side| {
        value
            .map(|value| parse_range_bound(value, side, tz))
            .transpose()
            .map_err(|error| refused(ApiError::from(error)))
    };
    Ok(DateRange {
        start_millis: bound(start, RangeSide::Start)?,
        end_millis: bound(end, RangeSide::End)?,
    })
}

fn occurrence(date: Option<&str>) -> Result<Option<NaiveDate>, Refusal> {
    date.map(|date| {
        date.parse::<NaiveDate>()
            .map_err(|_| format!("invalid `occurrenceDate`: `{date}` is not a YYYY-MM-DD date"))
    })
    .transpose()
}

fn parse<T: DeserializeOwned>(args: Value) -> Result<T, Refusal> {
    serde_json::from_value(args).map_err(|error| format!("invalid arguments: {error}"))
}

fn refused(error: ApiError) -> Refusal {
    error.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_time_says_the_zone_and_its_offset_either_side_of_a_dst_change() {
        let tz = chrono_tz::Europe::Berlin;
        let winter = current_time("2026-03-29T00:30:00Z".parse().unwrap(), tz);
        assert_eq!(winter["utcOffset"], "+01:00");
        assert_eq!(winter["now"], "2026-03-29T01:30:00+01:00");
        assert_eq!(winter["nowUtc"], "2026-03-29T00:30:00Z");
        assert_eq!(winter["timeZone"], "Europe/Berlin");
        let summer = current_time("2026-03-29T01:30:00Z".parse().unwrap(), tz);
        assert_eq!(summer["utcOffset"], "+02:00");
        assert_eq!(summer["now"], "2026-03-29T03:30:00+02:00");
        assert_eq!(summer["weekday"], "Sunday");
    }

    #[test]
    fn blanking_written_text_is_asked_about_and_filling_blanks_is_not() {
        let event: Event = serde_json::from_value(json!({
            "id": "fullnote:events/a.md", "title": "Review", "date": "2026-03-02",
            "calendarId": "local", "allDay": true, "type": "single",
            "description": "Minutes: ship Friday", "location": "  ", "url": "https://x.example/doc",
        }))
        .unwrap();
        let changes: EventFields = serde_json::from_value(json!({
            "description": "", "location": "", "url": " ", "title": "Review 2",
        }))
        .unwrap();
        assert_eq!(blanked_fields(&event, &changes), ["description", "link"]);
        let fills: EventFields = serde_json::from_value(json!({"location": "Room 4"})).unwrap();
        assert!(blanked_fields(&event, &fills).is_empty());
    }

    /// `null` removes a field: removing written words is blanking them.
    #[test]
    fn removing_written_text_with_null_is_asked_about() {
        let event: Event = serde_json::from_value(json!({
            "id": "fullnote:events/a.md", "title": "Review", "date": "2026-03-02",
            "calendarId": "local", "allDay": true, "type": "single",
            "description": "Minutes: ship Friday", "location": "Room 4",
        }))
        .unwrap();
        let changes: EventFields =
            serde_json::from_value(json!({"description": null, "url": null})).unwrap();
        assert_eq!(blanked_fields(&event, &changes), ["description"]);
        let untouched: EventFields = serde_json::from_value(json!({"title": null})).unwrap();
        assert!(blanked_fields(&event, &untouched).is_empty());
    }
}
