//! `REPORT` on a calendar collection: `calendar-query` (RFC 4791 §7.8,
//! with a `time-range` answered by the engine's range query, series
//! included; a `VALARM` time-range by the alarms' trigger times; `expand`
//! by `expand`), `calendar-multiget` (§7.9) and `sync-collection` (RFC 6578).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use axum::response::Response;
use chrono::NaiveDateTime;

use super::collection::{Listings, ServedResource};
use super::components::Asked;
use super::error::DavRefusal;
use super::href::{self, Target};
use super::kept::Collection;
use super::limits::{MAX_ANSWER_BYTES, MAX_HREFS, MAX_PROP_FILTERS};
use super::multistatus::{Multistatus, Reply};
use super::propfind::Wanted;
use super::props::Subject;
use super::xml::{CALDAV, DAV, Element, Name, parse_request};
use crate::calendar::{Calendar, EventQuery};

/// The answer to a REPORT on `target`: a `207`, or the `VFREEBUSY` of a
/// `free-busy-query`.
pub fn respond(
    calendar: &Calendar,
    listings: &Listings,
    target: &Target,
    body: &str,
) -> Result<Response, DavRefusal> {
    let root =
        parse_request(body).map_err(|e| DavRefusal::bad_request(format!("REPORT body: {e}")))?;
    if root.name.is(DAV, "principal-property-search") {
        return Ok(super::multistatus(super::principal_search::answer(&root)?));
    }
    let Target::Collection(id) = target else {
        return Err(DavRefusal::forbidden(
            "reports are answered on calendar collections",
        ));
    };
    if root.name.is(CALDAV, "free-busy-query") {
        if listings.resources(calendar, id).is_none() {
            return Err(DavRefusal::not_found(id));
        }
        return super::free_busy::answer(calendar, id, &root);
    }
    Ok(super::multistatus(answer(calendar, listings, id, &root)?))
}

/// The `207` body of a REPORT on calendar `id`.
fn answer(
    calendar: &Calendar,
    listings: &Listings,
    id: &str,
    root: &Element,
) -> Result<String, DavRefusal> {
    let all = listings
        .resources(calendar, id)
        .ok_or_else(|| DavRefusal::not_found(id))?;
    let mut wanted = Wanted::of(root)?;
    if matches!(wanted, Wanted::All) {
        wanted = Wanted::Props(vec![Name::new(DAV, "getetag")]);
    }
    let source = calendar
        .sources()
        .into_iter()
        .find(|s| s.id == id)
        .ok_or_else(|| DavRefusal::not_found(id))?;
    let display_tz = calendar.display_timezone();
    let reply = |resource: &ServedResource| {
        wanted.reply(&Subject::ServedResource {
            source: &source,
            resource,
            display_tz,
        })
    };
    let mut answer = Multistatus::new(MAX_ANSWER_BYTES);
    if root.name.is(CALDAV, "calendar-query") {
        let mut filters = Vec::new();
        root.descendants(CALDAV, "prop-filter", &mut filters);
        if filters.len() > MAX_PROP_FILTERS {
            return Err(DavRefusal::bad_request(format!(
                "a calendar-query may hold at most {MAX_PROP_FILTERS} prop-filters; \
                 this one holds {}",
                filters.len()
            )));
        }
        let chosen = query(calendar, id, root, &all)?;
        let expand = super::expand::range(root)?;
        for resource in chosen
            .iter()
            .filter_map(|&i| all.get(i))
            .filter(|r| filters.is_empty() || props_match(&r.ics(display_tz), &filters))
        {
            match expand {
                Some(range) => {
                    let occurrences = super::expand::expanded(calendar, id, resource, range)?;
                    if !occurrences.events.is_empty() {
                        answer.push(reply(&occurrences))?;
                    }
                }
                None => answer.push(reply(resource))?,
            }
        }
        Ok(answer.finish(None))
    } else if root.name.is(CALDAV, "calendar-multiget") {
        let by_name: HashMap<&str, &ServedResource> = all.iter().map(|r| (&*r.name, r)).collect();
        for asked in multiget_hrefs(root)? {
            let found = match href::parse(asked) {
                Some(Target::ServedResource { calendar: c, name }) if c == id => {
                    by_name.get(name.as_str()).copied()
                }
                _ => None,
            };
            answer.push(found.map(&reply).unwrap_or_else(|| Reply::Status {
                href: asked.to_string(),
                status: 404,
            }))?;
        }
        Ok(answer.finish(None))
    } else if root.name.is(DAV, "sync-collection") {
        let token = root
            .child(DAV, "sync-token")
            .map(|t| t.text.trim())
            .unwrap_or_default();
        let next = listings.token(id, &all);
        if token == next {
            // The token is a digest of every name and ETag: the same token,
            // nothing changed (no resource compared).
        } else if token.is_empty() {
            for resource in all.iter() {
                answer.push(reply(resource))?;
            }
        } else {
            let before = listings.snapshot(token).ok_or_else(|| {
                DavRefusal::Precondition(
                    axum::http::StatusCode::FORBIDDEN,
                    "D:valid-sync-token",
                    "the sync token is unknown or too old; sync again from scratch".into(),
                )
            })?;
            let now: HashSet<&str> = all.iter().map(|r| &*r.name).collect();
            for resource in all.iter().filter(|r| before.get(&r.name) != Some(&r.etag)) {
                answer.push(reply(resource))?;
            }
            let mut gone: Vec<&Arc<str>> = before.keys().filter(|n| !now.contains(&***n)).collect();
            gone.sort();
            for name in gone {
                answer.push(Reply::Status {
                    href: href::resource(id, name),
                    status: 404,
                })?;
            }
        }
        Ok(answer.finish(Some(&next)))
    } else {
        Err(DavRefusal::Precondition(
            axum::http::StatusCode::FORBIDDEN,
            "D:supported-report",
            format!("the `{}` report is not supported", root.name.local),
        ))
    }
}

/// The distinct hrefs of a `calendar-multiget`, in the order asked: a
/// resource asked for twice is answered once (its spellings are compared
/// decoded), and more than [`MAX_HREFS`] are refused (`400`).
fn multiget_hrefs(root: &Element) -> Result<Vec<&str>, DavRefusal> {
    let mut elements = Vec::new();
    root.descendants(DAV, "href", &mut elements);
    let mut seen = HashSet::new();
    let hrefs: Vec<&str> = elements
        .iter()
        .map(|h| h.text.trim())
        .filter(|h| match href::parse(h) {
            Some(Target::ServedResource { calendar, name }) => seen.insert((calendar, name)),
            _ => seen.insert((String::new(), h.to_string())),
        })
        .collect();
    if hrefs.len() > MAX_HREFS {
        return Err(DavRefusal::bad_request(format!(
            "a calendar-multiget may name at most {MAX_HREFS} distinct resources; \
             this one names {}: ask in batches",
            hrefs.len()
        )));
    }
    Ok(hrefs)
}

/// The resources a `calendar-query` selects, as indices into `all`
/// (ascending: the listing's order).
fn query(
    calendar: &Calendar,
    id: &str,
    root: &Element,
    all: &Collection,
) -> Result<Arc<Vec<usize>>, DavRefusal> {
    let mut filters = Vec::new();
    root.descendants(CALDAV, "comp-filter", &mut filters);
    // Events are VEVENTs, tasks VTODOs; journals and the rest: none.
    let asked = Asked::of(&filters);
    // A time-range inside a `VALARM` comp-filter is about the alarms'
    // trigger times (RFC 4791 §9.9), any other about the events'.
    let alarm_range = filters
        .iter()
        .filter(|f| {
            f.attribute("name")
                .is_some_and(|n| n.eq_ignore_ascii_case("VALARM"))
        })
        .find_map(|f| f.child(CALDAV, "time-range"));
    let mut ranges = Vec::new();
    root.descendants(CALDAV, "time-range", &mut ranges);
    ranges.retain(|r| alarm_range.is_none_or(|alarm| !std::ptr::eq(*r, alarm)));
    if let Some(alarm) = alarm_range {
        return alarm_query(calendar, id, alarm, all).map(Arc::new);
    }
    let Some(range) = ranges.first() else {
        return Ok(Arc::new(
            (0..all.len()).filter(|&i| asked.admits(&all[i])).collect(),
        ));
    };
    if asked == Asked::Nothing {
        return Ok(Arc::default());
    }
    let (start, end) = (bound(range, "start")?, bound(range, "end")?);
    // A task's range is its start to its due time (RFC 4791 §9.9).
    let is_task = asked.is_task();
    // The listing belongs to one generation of the calendar: what a range
    // selected stays true as long as it is served.
    all.in_range((start, end, is_task), || {
        let query = EventQuery {
            calendars: Some(vec![id.to_string()]),
            start_millis: start,
            // CalDAV ranges are half-open; the engine's are closed.
            end_millis: end.map(|end| end - 1),
            is_task,
            ..EventQuery::default()
        };
        let entries = calendar
            .query_entries(&query)
            .map_err(|e| DavRefusal::from(crate::api::ApiError::from(e)))?;
        Ok(entries.iter().filter_map(|e| all.holding(e)).collect())
    })
}

/// The longest an alarm may ring before its event (a week, as the engine
/// accepts): how far past an alarm range an event may start.
const ALARM_LEAD_MILLIS: i64 = 10_080 * 60_000;

/// The resources with an alarm ringing in `range` (half-open): the
/// occurrences starting up to a week after it, by their alarms' lead.
fn alarm_query(
    calendar: &Calendar,
    id: &str,
    range: &Element,
    all: &Collection,
) -> Result<Vec<usize>, DavRefusal> {
    let start = bound(range, "start")?;
    let end = bound(range, "end")?;
    let query = EventQuery {
        calendars: Some(vec![id.to_string()]),
        start_millis: start,
        end_millis: end.map(|end| end.saturating_add(ALARM_LEAD_MILLIS)),
        ..EventQuery::default()
    };
    let events = calendar
        .query_checked(&query)
        .map_err(|e| DavRefusal::from(crate::api::ApiError::from(e)))?;
    let rings = |at: i64| start.is_none_or(|s| at >= s) && end.is_none_or(|e| at < e);
    Ok(events
        .iter()
        .filter(|e| {
            let Some(begins) = e.start_millis else {
                return false;
            };
            e.alarms
                .iter()
                .flatten()
                .any(|a| rings(begins - a.minutes_before * 60_000))
        })
        .filter_map(|e| all.named(e))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect())
}

/// A `time-range` bound (`start` or `end`) in epoch milliseconds.
pub(super) fn bound(range: &Element, name: &str) -> Result<Option<i64>, DavRefusal> {
    range
        .attribute(name)
        .map(|v| {
            NaiveDateTime::parse_from_str(v.trim(), "%Y%m%dT%H%M%SZ")
                .map(|t| t.and_utc().timestamp_millis())
                .map_err(|_| {
                    DavRefusal::bad_request(format!(
                        "time-range {name} `{v}` is not a UTC date-time"
                    ))
                })
        })
        .transpose()
}

/// Whether a resource's text passes every `prop-filter` (RFC 4791 §9.7.2):
/// `is-not-defined`, or a `text-match` (possibly negated) on the property's
/// value, case-insensitive unless its collation is `i;octet` (RFC 4790);
/// a filter without either asks for the property.
fn props_match(ics: &str, filters: &[&Element]) -> bool {
    let unfolded = ics.replace("\r\n ", "");
    filters.iter().all(|filter| {
        let name = filter
            .attribute("name")
            .unwrap_or_default()
            .to_ascii_uppercase();
        let values: Vec<String> = unfolded
            .lines()
            .filter_map(|line| {
                let (head, value) = line.split_once(':')?;
                let property = head.split(';').next()?;
                property
                    .eq_ignore_ascii_case(&name)
                    .then(|| value.to_string())
            })
            .collect();
        if filter.child(CALDAV, "is-not-defined").is_some() {
            return values.is_empty();
        }
        match filter.child(CALDAV, "text-match") {
            Some(text) => {
                let exact = text.attribute("collation") == Some("i;octet");
                let fold = |v: &str| {
                    if exact {
                        v.to_string()
                    } else {
                        v.to_lowercase()
                    }
                };
                let needle = fold(text.text.trim());
                let negate = text.attribute("negate-condition") == Some("yes");
                values.iter().any(|v| fold(v).contains(&needle) != negate)
            }
            None => !values.is_empty(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prop_filters_match_text_and_absence() {
        let ics = "BEGIN:VEVENT\r\nUID:abc-1\r\nSUMMARY:Team\r\n  sync\r\nEND:VEVENT\r\n";
        let filter = |xml: &str| parse_request(xml).unwrap();
        let uid = filter(
            r#"<c:prop-filter xmlns:c="urn:ietf:params:xml:ns:caldav" name="UID"><c:text-match>ABC</c:text-match></c:prop-filter>"#,
        );
        let summary = filter(
            r#"<c:prop-filter xmlns:c="urn:ietf:params:xml:ns:caldav" name="SUMMARY"><c:text-match negate-condition="yes">team sync</c:text-match></c:prop-filter>"#,
        );
        let no_location = filter(
            r#"<c:prop-filter xmlns:c="urn:ietf:params:xml:ns:caldav" name="LOCATION"><c:is-not-defined/></c:prop-filter>"#,
        );
        assert!(props_match(ics, &[&uid, &no_location]));
        // `i;octet` compares as written; the default folds case.
        let octet = |needle: &str| {
            filter(&format!(
                r#"<c:prop-filter xmlns:c="urn:ietf:params:xml:ns:caldav" name="SUMMARY"><c:text-match collation="i;octet">{needle}</c:text-match></c:prop-filter>"#
            ))
        };
        assert!(props_match(ics, &[&octet("Team")]));
        assert!(!props_match(ics, &[&octet("team")]));
        assert!(!props_match(ics, &[&summary]));
        assert!(!props_match(
            ics,
            &[&filter(
                r#"<c:prop-filter xmlns:c="urn:ietf:params:xml:ns:caldav" name="UID"><c:text-match>zzz</c:text-match></c:prop-filter>"#
            )]
        ));
    }
}
