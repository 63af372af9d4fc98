//! The modified and cancelled occurrences of a `PUT` series, handed to the
//! engine one by one after the series itself is written.
//!
//! An override is `updateEvent` of the series with `instanceDate` (for a
//! Full Note series the engine detaches the occurrence into a note of its
//! own, or updates the note already detached for it); a cancelled one, or
//! a new `EXDATE` on a detached occurrence, is `deleteEvent` with
//! `instanceDate` (a skipped date, the detached note deleted; refused with a
//! `409` before anything is written when that note holds text of its own).
//! An override the client leaves out is kept: a `PUT` never deletes a note
//! by omission.

use chrono::NaiveDate;

use super::collection::ServedResource;
use crate::api::{AuthorizedApi, EventOptions};
use crate::calendar::{Calendar, EventFields};
use crate::ics::read::changes;
use crate::ics::series::ClientSeries;

use super::error::DavRefusal;

/// The series' skipped dates to write: the client's, plus the dates of the
/// occurrences detached from it (served as overrides, not `EXDATE`s, so a
/// client never sends them back as skipped).
pub fn keep_detached(patch: &mut EventFields, resource: &ServedResource) {
    let Some(Some(skips)) = patch.skip_dates.as_mut() else {
        return;
    };
    for date in resource.events[1..]
        .iter()
        .filter_map(|e| e.recurrence_id.as_ref())
    {
        if !skips.contains(date) {
            skips.push(date.clone());
        }
    }
}

/// Checks, before anything is written, that each new override of series
/// `series_id` names one of its occurrences. Only when the series keeps its
/// timing (`patch`): a new schedule is checked as each override is written.
pub fn check(
    calendar: &Calendar,
    series_id: &str,
    patch: &EventFields,
    client: &ClientSeries,
    served: Option<&ClientSeries>,
) -> Result<(), DavRefusal> {
    // A cancellation that would delete a detached note's own text is
    // refused before anything is written.
    let cancelled = client
        .overrides
        .iter()
        .filter(|o| o.cancelled)
        .map(|o| o.date);
    for date in cancelled.chain(dropped_and_skipped(client, served)) {
        calendar
            .check_cancellable(series_id, date)
            .map_err(|e| DavRefusal::from(crate::api::ApiError::from(e)))?;
    }
    let retimed = patch.date.is_some()
        || patch.kind.is_some()
        || patch.rrule.is_some()
        || patch.start_date.is_some()
        || patch.start_time.is_some();
    if retimed {
        return Ok(());
    }
    let new = client
        .overrides
        .iter()
        .filter(|o| !o.cancelled)
        .filter(|o| served.is_none_or(|s| !s.overrides.iter().any(|s| s.date == o.date)));
    for wanted in new {
        calendar
            .check_occurrence(series_id, wanted.date)
            .map_err(|e| DavRefusal::from(crate::api::ApiError::from(e)))?;
    }
    Ok(())
}

/// Writes `client`'s overrides of series `series_id`, given what was
/// served before (`served`, for an existing resource).
pub fn apply(
    api: &AuthorizedApi,
    series_id: &str,
    client: &ClientSeries,
    served: Option<&ClientSeries>,
) -> Result<(), DavRefusal> {
    let one = |date| EventOptions {
        instance_date: Some(date),
        ..EventOptions::default()
    };
    for wanted in &client.overrides {
        if wanted.cancelled {
            api.delete_event(series_id, one(wanted.date))?;
            continue;
        }
        let before = served.and_then(|s| {
            s.overrides
                .iter()
                .find(|o| o.date == wanted.date && !o.cancelled)
        });
        let fields = match before {
            Some(before) => changes(&wanted.fields, &before.fields),
            None => wanted.fields.clone(),
        };
        if before.is_some() && fields == EventFields::default() {
            continue;
        }
        api.update_event(series_id, fields, one(wanted.date))?;
    }
    for date in dropped_and_skipped(client, served) {
        api.delete_event(series_id, one(date))?;
    }
    Ok(())
}

/// The dates of the detached occurrences the client dropped and skipped
/// instead (a new `EXDATE`): cancelled as well.
fn dropped_and_skipped(client: &ClientSeries, served: Option<&ClientSeries>) -> Vec<NaiveDate> {
    let skipped = client.master.fields.skip_dates.clone().flatten();
    let skipped = |date: NaiveDate| {
        let day = date.format("%Y-%m-%d").to_string();
        skipped.as_ref().is_some_and(|s| s.contains(&day))
    };
    served
        .map_or(&[][..], |s| &s.overrides[..])
        .iter()
        .map(|gone| gone.date)
        .filter(|&date| !client.overrides.iter().any(|o| o.date == date) && skipped(date))
        .collect()
}
