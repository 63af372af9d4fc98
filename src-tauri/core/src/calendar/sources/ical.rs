//! ICS calendars: a remote feed, read-only, cached on disk.
//!
//! The feed is fetched over HTTP(S) on a background thread, conditionally
//! (`If-None-Match` / `If-Modified-Since` from the last answer), and kept in
//! the ICS cache folder with its validators so the calendar is there at the
//! next start before the network answers. Feed URLs may embed secrets
//! (private calendar links), so they never appear in logs or error messages.
//!
//! Fetches only reach public addresses, on every redirect too, unless the
//! source allows the private network ([`super::net_guard`]). A body is read
//! as a stream and abandoned past [`MAX_FEED_BYTES`], so a feed that never
//! ends costs at most that much memory.
//!
//! VEVENTs map to events: `DTSTART`/`DTEND`/`DURATION` to date, times and zone
//! (`TZID` names an IANA zone; UTC and floating times show in the display
//! zone), `RRULE` to an `rrule` series with `EXDATE`s as `skipDates`,
//! modified occurrences (`RECURRENCE-ID`) to single events replacing theirs,
//! `STATUS:CANCELLED` events are dropped.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use chrono_tz::Tz;
use icalendar::{CalendarComponent, CalendarDateTime, Component, DatePerhapsTime, EventLike};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ParsedNote, SourceConfig, net_guard};
use crate::calendar::cache::Indexed;
use crate::calendar::event::EventType;
use crate::calendar::id::EventId;
use crate::calendar::recurrence::Timing;
use crate::calendar::spec::EventSpec;
use crate::calendar::status::SkippedNote;
use crate::fsutil::atomic_write;

/// Feeds larger than this (20 MiB) are refused, and reading stops there (a
/// calendar is kilobytes to a few MB; years of a busy shared calendar stay
/// well under it).
pub const MAX_FEED_BYTES: u64 = 20 * 1024 * 1024;

/// What is remembered about the last successful fetch of a feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedMeta {
    /// Hash of the URL the body came from (the URL itself may be secret).
    pub url_hash: String,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub fetched_at_millis: i64,
}

/// The on-disk copies of the feeds.
#[derive(Debug, Clone)]
pub struct FeedStore {
    dir: PathBuf,
}

fn hex_digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl FeedStore {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    fn files(&self, source_id: &str) -> (PathBuf, PathBuf) {
        let stem = hex_digest(source_id);
        (
            self.dir.join(format!("{stem}.ics")),
            self.dir.join(format!("{stem}.json")),
        )
    }

    /// The cached body and its metadata, if they are for `url`.
    pub fn load(&self, source_id: &str, url: &str) -> Option<(String, FeedMeta)> {
        let (body, meta) = self.files(source_id);
        let meta: FeedMeta = serde_json::from_slice(&std::fs::read(meta).ok()?).ok()?;
        if meta.url_hash != hex_digest(url) {
            return None;
        }
        Some((std::fs::read_to_string(body).ok()?, meta))
    }

    /// Stores a body (when it changed) and its metadata, each atomically.
    pub fn store(
        &self,
        source_id: &str,
        body: Option<&str>,
        meta: &FeedMeta,
    ) -> std::io::Result<()> {
        let (body_path, meta_path) = self.files(source_id);
        if let Some(body) = body {
            atomic_write(&body_path, body.as_bytes())?;
        }
        let json = serde_json::to_vec_pretty(meta).map_err(std::io::Error::other)?;
        atomic_write(&meta_path, &json)
    }
}

/// The outcome of one conditional GET.
#[derive(Debug)]
pub enum Fetched {
    NotModified,
    Body {
        text: String,
        etag: Option<String>,
        last_modified: Option<String>,
    },
}

/// GETs `url`, conditionally on `previous`; public addresses only unless
/// `allow_private_network`. Errors never contain the URL.
pub fn fetch(
    url: &str,
    previous: Option<&FeedMeta>,
    allow_private_network: bool,
) -> Result<Fetched, String> {
    let builder = reqwest::blocking::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(concat!("Almanac/", env!("CARGO_PKG_VERSION")));
    let builder = if allow_private_network {
        builder
    } else {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("invalid feed URL: {e}"))?;
        net_guard::check_url(&parsed, net_guard::public_only).map_err(|e| e.to_string())?;
        net_guard::guard(builder, net_guard::public_only)
    };
    let client = builder
        .build()
        .map_err(|e| format!("cannot build HTTP client: {}", e.without_url()))?;
    let mut request = client.get(url);
    if let Some(meta) = previous {
        if let Some(etag) = &meta.etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        if let Some(modified) = &meta.last_modified {
            request = request.header(reqwest::header::IF_MODIFIED_SINCE, modified);
        }
    }
    let response = request.send().map_err(|e| match net_guard::refusal(&e) {
        Some(refused) => refused.to_string(),
        None => format!("fetch failed: {}", e.without_url()),
    })?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_MODIFIED {
        return Ok(Fetched::NotModified);
    }
    if !status.is_success() {
        return Err(format!("the server answered {status}"));
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_FEED_BYTES)
    {
        return Err(too_large());
    }
    let header = |name: reqwest::header::HeaderName| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let etag = header(reqwest::header::ETAG);
    let last_modified = header(reqwest::header::LAST_MODIFIED);
    let mut bytes = Vec::new();
    response
        .take(MAX_FEED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the feed failed: {e}"))?;
    if bytes.len() as u64 > MAX_FEED_BYTES {
        return Err(too_large());
    }
    Ok(Fetched::Body {
        // Valid UTF-8 (the usual case) becomes the text without a copy.
        text: String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        etag,
        last_modified,
    })
}

fn too_large() -> String {
    format!(
        "the feed is larger than the {} MiB limit; reading stopped there",
        MAX_FEED_BYTES / (1024 * 1024)
    )
}

/// A new metadata record for a body fetched from `url` now.
pub fn meta_for(url: &str, etag: Option<String>, last_modified: Option<String>) -> FeedMeta {
    FeedMeta {
        url_hash: hex_digest(url),
        etag,
        last_modified,
        fetched_at_millis: Utc::now().timestamp_millis(),
    }
}

/// Parses a feed into cache entries. Fails only when the text is not
/// iCalendar at all; bad events are skipped and reported.
pub fn parse(source: &SourceConfig, text: &str, display_tz: Tz) -> Result<ParsedNote, String> {
    let unfolded = icalendar::parser::unfold(text);
    let parsed = icalendar::parser::read_calendar(&unfolded).map_err(|e| {
        let first_line = e.lines().next().unwrap_or("").to_string();
        format!("not an iCalendar feed: {first_line}")
    })?;
    let calendar: icalendar::Calendar = parsed.into();
    let vevents: Vec<&icalendar::Event> = calendar
        .components
        .iter()
        .filter_map(|c| match c {
            CalendarComponent::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let mut result = ParsedNote::default();
    // Modified occurrences first: their originals are skipped in the series.
    let mut overridden: Vec<(String, NaiveDate)> = Vec::new();
    for event in &vevents {
        if let (Some(uid), Some(recurrence_id)) = (event.get_uid(), event.get_recurrence_id()) {
            let zone = zone_of(&recurrence_id, display_tz).0;
            overridden.push((uid.to_string(), local_date(&recurrence_id, zone)));
        }
    }
    for (index, event) in vevents.iter().enumerate() {
        let cancelled = event
            .property_value("STATUS")
            .is_some_and(|s| s.eq_ignore_ascii_case("CANCELLED"));
        if cancelled {
            continue;
        }
        match convert(source, event, &overridden, display_tz) {
            Ok(entry) => result.entries.push(entry),
            Err(reason) => result.skipped.push(SkippedNote {
                path: format!("{}#{}", source.id, index + 1),
                reason,
            }),
        }
    }
    Ok(result)
}

/// The zone a date-time is in (`None` in the second place: shown in the
/// display zone) and the zone to compute in.
fn zone_of(value: &DatePerhapsTime, display_tz: Tz) -> (Tz, Option<Tz>) {
    match value {
        DatePerhapsTime::Date(_) => (display_tz, None),
        DatePerhapsTime::DateTime(CalendarDateTime::Utc(_)) => (display_tz, None),
        DatePerhapsTime::DateTime(CalendarDateTime::Floating(_)) => (display_tz, None),
        DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone { tzid, .. }) => {
            match iana_zone(tzid) {
                Some(tz) => (tz, Some(tz)),
                None => (display_tz, None),
            }
        }
    }
}

/// A `TZID` as an IANA zone; tolerates prefixes such as
/// `/mozilla.org/20050126_1/Europe/Berlin`.
fn iana_zone(tzid: &str) -> Option<Tz> {
    let tzid = tzid.trim().trim_matches('"');
    tzid.parse::<Tz>().ok().or_else(|| {
        let parts: Vec<&str> = tzid.rsplit('/').take(3).collect();
        (1..=parts.len()).rev().find_map(|n| {
            let candidate: Vec<&str> = parts[..n].iter().rev().copied().collect();
            candidate.join("/").parse::<Tz>().ok()
        })
    })
}

/// A date-time as a wall-clock time in `zone`.
fn local_time(value: &DatePerhapsTime, zone: Tz) -> NaiveDateTime {
    match value {
        DatePerhapsTime::Date(d) => d.and_time(chrono::NaiveTime::MIN),
        DatePerhapsTime::DateTime(CalendarDateTime::Utc(t)) => t.with_timezone(&zone).naive_local(),
        DatePerhapsTime::DateTime(CalendarDateTime::Floating(t)) => *t,
        DatePerhapsTime::DateTime(CalendarDateTime::WithTimezone { date_time, tzid }) => {
            match iana_zone(tzid) {
                Some(tz) if tz != zone => {
                    let instant = crate::calendar::query::local_to_millis(*date_time, tz);
                    DateTime::from_timestamp_millis(instant)
                        .map(|t| t.with_timezone(&zone).naive_local())
                        .unwrap_or(*date_time)
                }
                _ => *date_time,
            }
        }
    }
}

fn local_date(value: &DatePerhapsTime, zone: Tz) -> NaiveDate {
    local_time(value, zone).date()
}

fn convert(
    source: &SourceConfig,
    event: &icalendar::Event,
    overridden: &[(String, NaiveDate)],
    display_tz: Tz,
) -> Result<Indexed, String> {
    let uid = event.get_uid().ok_or("VEVENT without UID")?;
    let start = event
        .get_start()
        .ok_or_else(|| format!("`{uid}` has no DTSTART"))?;
    let all_day = matches!(start, DatePerhapsTime::Date(_));
    let rrule = event.property_value("RRULE").map(str::to_string);
    let (zone, mut timezone) = zone_of(&start, display_tz);
    if rrule.is_some() && matches!(start, DatePerhapsTime::DateTime(CalendarDateTime::Utc(_))) {
        // A UTC series recurs in UTC (RFC 5545), not in the display zone.
        timezone = Some(Tz::UTC);
    }
    let zone = timezone.unwrap_or(zone);
    let begin = local_time(&start, zone);
    let end = match event.get_end() {
        Some(end) => Some(local_time(&end, zone)),
        None => event
            .property_value("DURATION")
            .and_then(|d| iso8601::duration(d.trim()).ok())
            .and_then(|d| chrono::Duration::from_std(d.into()).ok())
            .map(|d| begin + d),
    };
    let (end_date, end_time) = match end {
        Some(end) if all_day => {
            // DTEND of an all-day event is exclusive.
            let last = end.date().pred_opt().unwrap_or(end.date());
            ((last > begin.date()).then_some(last), None)
        }
        Some(end) if end > begin => (
            (end.date() > begin.date()).then_some(end.date()),
            Some(end.time()),
        ),
        _ => (None, None),
    };
    let mut skip_dates: Vec<NaiveDate> = overridden
        .iter()
        .filter(|(u, _)| u == uid)
        .map(|(_, d)| *d)
        .collect();
    for property in event.multi_properties().get("EXDATE").into_iter().flatten() {
        for value in property.value().split(',') {
            let value = value.trim();
            let date = NaiveDateTime::parse_from_str(value.trim_end_matches('Z'), "%Y%m%dT%H%M%S")
                .map(|t| {
                    if value.ends_with('Z') {
                        t.and_utc().with_timezone(&zone).date_naive()
                    } else {
                        t.date()
                    }
                })
                .or_else(|_| NaiveDate::parse_from_str(value, "%Y%m%d"));
            if let Ok(date) = date {
                skip_dates.push(date);
            }
        }
    }
    skip_dates.sort();
    skip_dates.dedup();
    let recurrence_id = event.get_recurrence_id();
    let is_series = rrule.is_some() && recurrence_id.is_none();
    let title = event
        .get_summary()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or("(no title)");
    let spec = EventSpec {
        title: title.replace(['\n', '\r', '\0'], " "),
        kind: if is_series {
            EventType::Rrule
        } else {
            EventType::Single
        },
        all_day,
        date: Some(begin.date()),
        end_date,
        start_time: (!all_day).then_some(begin.time()),
        end_time,
        rrule: if is_series { rrule } else { None },
        start_date: is_series.then_some(begin.date()),
        skip_dates: if is_series { skip_dates } else { vec![] },
        timezone,
        category: event
            .property_value("CATEGORIES")
            .and_then(|c| c.split(',').next())
            .map(|c| c.trim().to_string()),
        description: event.get_description().map(str::to_string),
        url: event.get_url().map(str::to_string),
        ..EventSpec::default()
    };
    spec.validate().map_err(|e| format!("`{uid}`: {e}"))?;
    let timing = Timing::compile(&spec, display_tz).map_err(|e| format!("`{uid}`: {e}"))?;
    let recurrence = recurrence_id
        .as_ref()
        .map(|rid| local_time(rid, zone).format("%Y%m%dT%H%M%S").to_string());
    let id = EventId::ical(&source.id, uid, recurrence.as_deref()).to_string();
    let contents = [event.get_description(), event.get_location()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Indexed::new(id, spec, timing, &contents, 0))
}
