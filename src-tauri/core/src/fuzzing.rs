//! Entries for the fuzz targets (`fuzz/`) into parsers that are private to
//! their modules. Hidden from the documentation and not part of the API:
//! each is a thin wrapper around exactly what production calls, so a fuzz
//! run tests the code that serves requests, not a copy of it.

use chrono_tz::Tz;
use reqwest::Url;

use crate::caldav_server::xml::{CALDAV, DAV};
use crate::calendar::SkippedNote;
use crate::calendar::sources::SourceConfig;
use crate::calendar::sources::caldav::dav::{self, DavError};
use crate::calendar::sources::ical;
use crate::ics::bounds::Limits;

/// What the CalDAV client reads of a server's multistatus answer (as
/// discovery and sync read it): every response's href, status, and the
/// properties they look at. `base` is the URL the request went to.
pub fn dav_answer(base: &str, body: &str) -> Result<usize, DavError> {
    let base = Url::parse(base).map_err(|e| DavError::Protocol(e.to_string()))?;
    let answer = dav::parse_multistatus(&base, body)?;
    for response in &answer.responses {
        let _ = dav::is_calendar(response);
        for (ns, local) in [
            (DAV, "current-user-principal"),
            (CALDAV, "calendar-home-set"),
            (DAV, "href"),
        ] {
            let _ = response.href_in(ns, local);
        }
        for (ns, local) in [
            (DAV, "getetag"),
            (DAV, "displayname"),
            (CALDAV, "calendar-data"),
            (DAV, "sync-token"),
        ] {
            let _ = response.text(ns, local);
        }
    }
    Ok(answer.responses.len())
}

/// A feed's text read as `calendar::feeds` reads it: the events skipped
/// (path and reason), or why the whole text was refused.
pub fn read_feed(
    source: &SourceConfig,
    text: &str,
    display_tz: Tz,
) -> Result<Vec<SkippedNote>, String> {
    ical::parse(source, text, display_tz, &Limits::FEED).map(|parsed| parsed.note.skipped)
}

/// A resource of the CalDAV copy read as `calendar::caldav_source` reads
/// it, with the same answer as [`read_feed`].
pub fn read_caldav_item(
    source: &SourceConfig,
    text: &str,
    display_tz: Tz,
) -> Result<Vec<SkippedNote>, String> {
    ical::parse(source, text, display_tz, &Limits::RESOURCE).map(|parsed| parsed.note.skipped)
}
