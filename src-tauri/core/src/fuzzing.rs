//! Entries for the fuzz targets (`fuzz/`) into parsers that are private to
//! their modules. Hidden from the documentation and not part of the API:
//! each is a thin wrapper around exactly what production calls, so a fuzz
//! run tests the code that serves requests, not a copy of it.

use chrono_tz::Tz;
use reqwest::Url;
use serde_json::Value;

use crate::api::AuthorizedApi;
use crate::caldav_server::xml::{CALDAV, DAV};
use crate::calendar::sources::SourceConfig;
use crate::calendar::sources::caldav::dav::{self, DavError};
use crate::calendar::sources::ical;
use crate::calendar::{EventFields, SkippedNote};
use crate::ics::bounds::Limits;
use crate::mcp::{McpContext, calls, catalogue};
use almanac_model::spec::EventSpec;

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

/// A feed's text read as `calendar::engine::feeds` reads it: the events skipped
/// (path and reason), or why the whole text was refused.
pub fn read_feed(
    source: &SourceConfig,
    text: &str,
    display_tz: Tz,
) -> Result<Vec<SkippedNote>, String> {
    ical::parse(source, text, display_tz, &Limits::FEED).map(|parsed| parsed.note.skipped)
}

/// A resource of the CalDAV copy read as `calendar::sources::caldav::worker` reads
/// it, with the same answer as [`read_feed`].
pub fn read_caldav_item(
    source: &SourceConfig,
    text: &str,
    display_tz: Tz,
) -> Result<Vec<SkippedNote>, String> {
    ical::parse(source, text, display_tz, &Limits::RESOURCE).map(|parsed| parsed.note.skipped)
}

/// A quick-add line's fields checked as a create checks them
/// (`POST /events`, the sidebar, the CLI and MCP write them so): the first
/// bad field, if any.
pub fn quick_add_refusal(fields: &EventFields) -> Option<String> {
    EventSpec::default()
        .patched(fields)
        .err()
        .map(|error| error.to_string())
}

/// The MCP tools' names, in catalogue order.
pub fn mcp_tools() -> Vec<String> {
    catalogue::all_tools()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

/// One MCP tool call as the server makes it (`AlmanacMcp::call`, on a
/// blocking thread): what a destructive call would do, then the call, with
/// `args` as the client sent them. The catalogue's scope gate is left out,
/// so a write tool called with a read-only token still reads its arguments
/// before the API refuses it; the person's confirmation is not asked
/// (nobody would answer). The call's result as JSON, or the refusal.
pub fn mcp_call(
    api: &AuthorizedApi,
    context: &McpContext,
    name: &str,
    args: Value,
) -> Result<Value, String> {
    calls::destructive_action(api, name, &args)?;
    let result = calls::run(api, context, name, args)?;
    Ok(serde_json::to_value(result).expect("a tool result is JSON"))
}

#[cfg(test)]
mod tests {
    /// The fuzzers' feeds (`fuzz/crashes/ics_feed/`): the rule in an event
    /// or in a `VTIMEZONE` observance is refused, the event skipped and
    /// named; reading the feed no longer panics.
    #[test]
    fn the_fuzzers_feeds_are_read_with_the_bad_event_named() {
        use crate::calendar::sources::{ResolvedKind, SourceConfig};
        let source = SourceConfig {
            id: "feed".into(),
            name: "Feed".into(),
            color: "#3366ff".into(),
            kind: ResolvedKind::Ical {
                url: "https://calendar.example/feed.ics".into(),
                allow_private_network: false,
            },
            order: None,
            components: None,
        };
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/crashes/ics_feed");
        let mut read = 0;
        for file in std::fs::read_dir(folder).unwrap() {
            let path = file.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let tz = chrono_tz::Europe::Berlin;
            let skipped = crate::fuzzing::read_feed(&source, &text, tz)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(skipped.len(), 1, "{}: {skipped:?}", path.display());
            read += 1;
        }
        assert!(read >= 2);
    }
}
