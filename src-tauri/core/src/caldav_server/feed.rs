//! Serving a subscription feed: every event of the feed's calendars, series
//! unexpanded (the subscribing app expands them), as one `VCALENDAR`.
//!
//! The feed answers at most [`MAX_EVENTS_PER_ANSWER`] events, the ceiling of
//! every other answer: a bigger feed is refused naming the limit, never cut
//! short.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;

use super::collection::{Listings, ServedResource};
use super::error::DavRefusal;
use super::feeds::FeedStore;
use crate::api::ApiError;
use crate::calendar::Calendar;
use crate::ics::write::{Component, calendar as ics_calendar};
use almanac_model::query::MAX_EVENTS_PER_ANSWER;

/// `GET /feeds/<secret>.ics`.
pub fn serve(
    feeds: &FeedStore,
    calendar: &Calendar,
    listings: &Listings,
    secret: &str,
    head: bool,
) -> Result<Response, DavRefusal> {
    // An unknown secret and a revoked feed look the same.
    let feed = feeds
        .find(secret)
        .ok_or_else(|| DavRefusal::not_found("this feed"))?;
    let display_tz = calendar.display_timezone();
    let listed: Vec<_> = feed
        .calendars
        .iter()
        .filter_map(|id| listings.resources(calendar, id))
        .collect();
    let chosen: Vec<&ServedResource> = listed.iter().flat_map(|r| r.iter()).collect();
    let events: usize = chosen.iter().map(|r| r.events.len()).sum();
    if events > MAX_EVENTS_PER_ANSWER {
        return Err(ApiError::QueryTooLarge(format!(
            "the feed holds {events} events, more than the {MAX_EVENTS_PER_ANSWER} one answer may carry; \
             make feeds of fewer calendars"
        ))
        .into());
    }
    let recurrence_ids: Vec<Vec<Option<String>>> =
        chosen.iter().map(|r| r.recurrence_ids()).collect();
    let components: Vec<Component<'_>> = chosen
        .iter()
        .zip(&recurrence_ids)
        .flat_map(|(resource, rids)| resource.components(rids))
        .collect();
    let body = ics_calendar(&components, Some(&feed.name), display_tz, Utc::now());
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/calendar; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        if head { String::new() } else { body },
    )
        .into_response())
}
