//! Finding what changed in a calendar since a [`Mirror`] was last synced,
//! fetching only that (a [`Delta`], applied to the mirror in memory): the
//! changes since the last sync token (RFC 6578 `sync-collection`); or, on
//! servers without sync tokens (or when ours is refused), the collection's
//! ctag (unchanged: nothing to do), then the ETags of every resource
//! (`calendar-query`) compared with the mirror's; then the changed
//! resources' bodies (`calendar-multiget`).
//!
//! What is read is bounded: a calendar of more than [`MAX_RESOURCES`]
//! events is refused whole; a resource over [`MAX_RESOURCE_BYTES`] is set
//! aside (named in the calendar's status, the rest still shows); a multiget
//! answer over the answer cap is asked again in halves, down to one
//! resource.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Url;

use super::dav::{DavClient, DavError, MAX_RESOURCE_BYTES, MAX_RESOURCES};
use super::mirror::{Mirror, Resource};
use crate::webdav::xml::{CALDAV, CALSERVER, DAV};

const STATE: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><d:sync-token/><cs:getctag/></d:prop></d:propfind>"#;

const EVENT_ETAGS: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop>
<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>"#;

const ALL_ETAGS: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop>
<c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>"#;

/// What a sync lists where the server keeps no token (by ETags). A token's
/// changes name every resource whatever it holds, so this must say the
/// same to whoever reads a missing resource as deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    /// Events only: the CalDAV source's mirror.
    Events,
    /// Every calendar object, tasks included: a published calendar, whose
    /// tasks would otherwise read as deleted on the server.
    All,
}

/// Resources asked for per `calendar-multiget`.
const MULTIGET_BATCH: usize = 200;

/// Where a mirror stands: what a sync starts from.
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub calendar_url: String,
    pub sync_token: Option<String>,
    pub ctag: Option<String>,
    /// Whether it was ever synced.
    pub fetched: bool,
    /// How many resources it holds.
    pub resources: usize,
}

impl Mirror {
    pub fn known(&self) -> Known {
        Known {
            calendar_url: self.calendar_url.clone(),
            sync_token: self.sync_token.clone(),
            ctag: self.ctag.clone(),
            fetched: self.fetched_at_millis.is_some(),
            resources: self.resources.len(),
        }
    }
}

/// What changed on the server since a mirror's [`Known`] state.
#[derive(Debug)]
pub enum Synced {
    Unchanged,
    Changed(Delta),
}

#[derive(Debug)]
pub struct Delta {
    /// The mirror was of another calendar: it starts over.
    reset: bool,
    fetched: Vec<(String, Resource)>,
    /// Resources left out, by href: why.
    set_aside: Vec<(String, String)>,
    removed: Vec<String>,
    sync_token: Option<String>,
    ctag: Option<String>,
}

impl Delta {
    /// The resources left out of this delta (by href: why); taken before
    /// [`Delta::apply`].
    pub fn take_set_aside(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.set_aside)
    }

    /// Brings `mirror` up to date; the resources changed, added or removed,
    /// or `None` when it started over.
    pub fn apply(self, mirror: &mut Mirror, calendar: &Url) -> Option<Vec<String>> {
        if self.reset {
            *mirror = Mirror {
                calendar_url: calendar.to_string(),
                ..Default::default()
            };
        }
        let mut touched = self.removed;
        for href in &touched {
            mirror.resources.remove(href);
        }
        for (href, resource) in self.fetched {
            touched.push(href.clone());
            mirror.resources.insert(href, resource);
        }
        mirror.sync_token = self.sync_token;
        mirror.ctag = self.ctag;
        mirror.fetched_at_millis = Some(chrono::Utc::now().timestamp_millis());
        (!self.reset).then_some(touched)
    }
}

/// What changed in the calendar at `calendar` since `known`. With a sync
/// token, that is one `sync-collection` (the collection's own state is not
/// asked first: on servers such as Radicale that costs as much again), and
/// only the resources whose ETag is not the mirror's (`etags`, by href) are
/// fetched: a client's own writes come back in the next token's changes,
/// already known. Where the server keeps no sync token (or forgot ours),
/// every ETag is compared with the mirror's.
pub fn sync(
    client: &DavClient,
    calendar: &Url,
    known: &Known,
    listed: Listed,
    etags: impl Fn() -> BTreeMap<String, String>,
) -> Result<Synced, DavError> {
    let reset = known.calendar_url != calendar.as_str();
    let known = if reset { &Known::default() } else { known };
    if let (true, Some(token)) = (known.fetched, &known.sync_token) {
        match changes_since(client, calendar, token) {
            Ok((changed, removed, _)) if changed.is_empty() && removed.is_empty() => {
                return Ok(Synced::Unchanged);
            }
            Ok((changed, removed, sync_token)) => {
                if known.resources + changed.len() > MAX_RESOURCES + removed.len() {
                    return Err(too_many());
                }
                let mine = etags();
                let changed: Vec<String> = changed
                    .into_iter()
                    .filter(|(href, etag)| etag.is_none() || mine.get(href) != etag.as_ref())
                    .map(|(href, _)| href)
                    .collect();
                let (fetched, set_aside) = fetch(client, calendar, &changed)?;
                return Ok(Synced::Changed(Delta {
                    reset,
                    fetched,
                    set_aside,
                    removed,
                    sync_token,
                    ctag: known.ctag.clone(),
                }));
            }
            Err(
                error @ (DavError::Unreachable(_)
                | DavError::Unauthorized
                | DavError::OffOrigin(_)
                | DavError::TooLarge(_)
                | DavError::Busy(_)),
            ) => return Err(error),
            // The token is refused: compare every ETag below.
            Err(_) => {}
        }
    }
    let state = client.multistatus("PROPFIND", calendar, "0", STATE)?;
    let own = state.responses.first();
    let sync_token = own.and_then(|r| r.text(DAV, "sync-token"));
    let ctag = own.and_then(|r| r.text(CALSERVER, "getctag"));
    let unchanged = |old: &Option<String>, new: &Option<String>| new.is_none() || old == new;
    if known.fetched
        && known.sync_token.is_none()
        && ctag.is_some()
        && unchanged(&known.ctag, &ctag)
    {
        return Ok(Synced::Unchanged);
    }
    let mine = if reset { BTreeMap::new() } else { etags() };
    let (changed, removed) = by_etags(client, calendar, listed, &mine)?;
    let (fetched, set_aside) = fetch(client, calendar, &changed)?;
    Ok(Synced::Changed(Delta {
        reset,
        fetched,
        set_aside,
        removed,
        sync_token,
        ctag,
    }))
}

/// The resources changed (with their ETags, when given) and removed, and
/// the new token.
type Changes = (Vec<(String, Option<String>)>, Vec<String>, Option<String>);

/// The resources changed and removed since `token`, and the new token.
fn changes_since(client: &DavClient, calendar: &Url, token: &str) -> Result<Changes, DavError> {
    let body = format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<d:sync-collection xmlns:d="DAV:"><d:sync-token>{}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"#,
        quick_xml::escape::escape(token)
    );
    let answer = client.multistatus("REPORT", calendar, "1", &body)?;
    let (mut changed, mut removed) = (Vec::new(), Vec::new());
    for response in answer.responses {
        if response.href == *calendar {
            continue;
        }
        match response.status {
            Some(404) => removed.push(response.href.to_string()),
            _ if is_ics(&response.href) => {
                let etag = response.text(DAV, "getetag");
                changed.push((response.href.to_string(), etag));
            }
            _ => {}
        }
    }
    Ok((changed, removed, answer.sync_token))
}

/// Compares every resource's ETag with the mirror's (`mine`): the changed
/// and the removed resources.
fn by_etags(
    client: &DavClient,
    calendar: &Url,
    listed: Listed,
    mine: &BTreeMap<String, String>,
) -> Result<(Vec<String>, Vec<String>), DavError> {
    let query = match listed {
        Listed::Events => EVENT_ETAGS,
        Listed::All => ALL_ETAGS,
    };
    let answer = client.multistatus("REPORT", calendar, "1", query)?;
    let listed: BTreeMap<String, Option<String>> = answer
        .responses
        .iter()
        .filter(|r| r.href != *calendar)
        .map(|r| (r.href.to_string(), r.text(DAV, "getetag")))
        .collect();
    if listed.len() > MAX_RESOURCES {
        return Err(too_many());
    }
    let changed = listed
        .iter()
        .filter(|(href, etag)| mine.get(*href) != etag.as_ref())
        .map(|(href, _)| href.clone())
        .collect();
    let kept: BTreeSet<&String> = listed.keys().collect();
    let removed = mine
        .keys()
        .filter(|href| !kept.contains(href))
        .cloned()
        .collect();
    Ok((changed, removed))
}

fn is_ics(href: &Url) -> bool {
    !href.path().ends_with('/')
}

fn too_many() -> DavError {
    DavError::TooLarge(format!(
        "calendar holds more than {MAX_RESOURCES} events, the most Almanac reads of one calendar"
    ))
}

/// Resources read (by href) and resources set aside (by href: why).
pub type Fetched = (Vec<(String, Resource)>, Vec<(String, String)>);

/// The bodies and ETags of `hrefs`, and the resources set aside for their
/// size.
pub fn fetch(client: &DavClient, calendar: &Url, hrefs: &[String]) -> Result<Fetched, DavError> {
    let mut out = (Vec::new(), Vec::new());
    for batch in hrefs.chunks(MULTIGET_BATCH) {
        multiget(client, calendar, batch, &mut out)?;
    }
    Ok(out)
}

/// One `calendar-multiget` of `batch` into `out`; an answer over the cap
/// is asked again in halves (a single resource over it is set aside).
fn multiget(
    client: &DavClient,
    calendar: &Url,
    batch: &[String],
    out: &mut Fetched,
) -> Result<(), DavError> {
    let mut body = String::from(
        r#"<?xml version="1.0" encoding="utf-8"?>
<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>"#,
    );
    for href in batch {
        let path = Url::parse(href).map(|u| u.path().to_string());
        body.push_str("<d:href>");
        body.push_str(&quick_xml::escape::escape(path.as_deref().unwrap_or(href)));
        body.push_str("</d:href>");
    }
    body.push_str("</c:calendar-multiget>");
    let answer = match client.multistatus("REPORT", calendar, "1", &body) {
        Err(DavError::TooLarge(why)) => {
            if let [href] = batch {
                out.1.push((href.clone(), format!("its {why}")));
                return Ok(());
            }
            let (first, second) = batch.split_at(batch.len() / 2);
            multiget(client, calendar, first, out)?;
            return multiget(client, calendar, second, out);
        }
        answer => answer?,
    };
    for response in answer.responses {
        if let (Some(etag), Some(ics)) = (
            response.text(DAV, "getetag"),
            response.prop(CALDAV, "calendar-data"),
        ) {
            if ics.text.len() > MAX_RESOURCE_BYTES {
                out.1.push((
                    response.href.to_string(),
                    format!(
                        "larger than the {} MiB limit of an event",
                        MAX_RESOURCE_BYTES / (1024 * 1024)
                    ),
                ));
                continue;
            }
            out.0.push((
                response.href.to_string(),
                Resource {
                    etag,
                    ics: ics.text.clone(),
                },
            ));
        }
    }
    Ok(())
}
