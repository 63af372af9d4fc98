//! `REPORT free-busy-query` (RFC 4791 §7.10): when a calendar is busy in a
//! range, as one `VFREEBUSY` whose `FREEBUSY` periods (UTC) are its events'
//! times, series expanded, overlapping ones merged. All-day events mark a
//! day rather than block its hours (calendar apps show them as free), so
//! they are left out, as are tasks (served as `VTODO`s, which RFC 4791
//! §7.10 does not count).

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};

use super::error::DavRefusal;
use super::xml::{CALDAV, Element};
use crate::calendar::{Calendar, EventQuery};

/// The `200 text/calendar` answer for calendar `id`.
pub fn answer(calendar: &Calendar, id: &str, root: &Element) -> Result<Response, DavRefusal> {
    let range = root
        .child(CALDAV, "time-range")
        .ok_or_else(|| DavRefusal::bad_request("a free-busy-query needs a time-range"))?;
    let bound = |name: &str| -> Result<i64, DavRefusal> {
        let value = range.attribute(name).ok_or_else(|| {
            DavRefusal::bad_request(format!("the free-busy-query's time-range has no {name}"))
        })?;
        parse_utc(value).ok_or_else(|| {
            DavRefusal::bad_request(format!(
                "time-range {name} `{value}` is not a UTC date-time"
            ))
        })
    };
    let (start, end) = (bound("start")?, bound("end")?);
    if end <= start {
        return Err(DavRefusal::bad_request(
            "the time-range ends before it starts",
        ));
    }
    let events = calendar
        .query_checked(&EventQuery {
            calendars: Some(vec![id.to_string()]),
            start_millis: Some(start),
            end_millis: Some(end - 1),
            // Busy time is the events' (RFC 4791 §7.10): tasks are VTODOs.
            is_task: Some(false),
            ..EventQuery::default()
        })
        .map_err(|e| DavRefusal::from(crate::api::ApiError::from(e)))?;
    let merged = crate::calendar::busy_periods(&events, start, end);
    let mut text = String::from(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Almanac//CalDAV server//EN\r\nBEGIN:VFREEBUSY\r\n",
    );
    text.push_str(&format!(
        "DTSTAMP:{}\r\n",
        utc(Utc::now().timestamp_millis())
    ));
    text.push_str(&format!("DTSTART:{}\r\nDTEND:{}\r\n", utc(start), utc(end)));
    for (from, to) in merged {
        text.push_str(&format!("FREEBUSY:{}/{}\r\n", utc(from), utc(to)));
    }
    text.push_str("END:VFREEBUSY\r\nEND:VCALENDAR\r\n");
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/calendar; charset=utf-8")],
        text,
    )
        .into_response())
}

fn parse_utc(value: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(value.trim(), "%Y%m%dT%H%M%SZ")
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

fn utc(millis: i64) -> String {
    DateTime::from_timestamp_millis(millis)
        .unwrap_or_default()
        .format("%Y%m%dT%H%M%SZ")
        .to_string()
}
