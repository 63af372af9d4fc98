//! `PROPFIND` (RFC 4918 §9.1): the properties of a resource and, at
//! `Depth: 1`, of its members.

use std::collections::HashSet;

use super::collection::Listings;
use super::error::DavRefusal;
use super::href::Target;
use super::limits::{MAX_ANSWER_BYTES, MAX_PROPERTIES};
use super::multistatus::{Multistatus, Reply};
use super::props::Subject;
use super::xml::{DAV, Element, Name, parse_request};
use crate::calendar::{Calendar, SourceInfo};

/// What a request asks about each resource.
pub enum Wanted {
    /// `allprop`, or an empty body.
    All,
    /// `propname`: the names only.
    Names,
    Props(Vec<Name>),
}

impl Wanted {
    /// The `prop`, `allprop` or `propname` child of `parent`. A name asked
    /// for twice is answered once; more than [`MAX_PROPERTIES`] distinct
    /// names are refused (`400`): each one is written for every resource.
    pub fn of(parent: &Element) -> Result<Wanted, DavRefusal> {
        Ok(if let Some(prop) = parent.child(DAV, "prop") {
            let mut seen = HashSet::new();
            let names: Vec<Name> = prop
                .children
                .iter()
                .map(|c| &c.name)
                .filter(|name| seen.insert(*name))
                .cloned()
                .collect();
            if names.len() > MAX_PROPERTIES {
                return Err(DavRefusal::bad_request(format!(
                    "a request may ask for at most {MAX_PROPERTIES} distinct properties; \
                     this one asks for {}",
                    names.len()
                )));
            }
            Wanted::Props(names)
        } else if parent.child(DAV, "propname").is_some() {
            Wanted::Names
        } else {
            Wanted::All
        })
    }

    /// The reply for one subject.
    pub fn reply(&self, subject: &Subject<'_>) -> Reply {
        let href = subject.href();
        let (found, missing) = match self {
            Wanted::Names => (
                subject
                    .all_props()
                    .into_iter()
                    .map(|n| (n, String::new()))
                    .collect(),
                Vec::new(),
            ),
            Wanted::All => (
                subject
                    .all_props()
                    .into_iter()
                    .filter_map(|n| subject.value(&n).map(|v| (n, v)))
                    .collect(),
                Vec::new(),
            ),
            Wanted::Props(names) => {
                let mut found = Vec::new();
                let mut missing = Vec::new();
                for name in names {
                    match subject.value(name) {
                        Some(value) => found.push((name.clone(), value)),
                        None => missing.push(name.clone()),
                    }
                }
                (found, missing)
            }
        };
        Reply::Props {
            href,
            found,
            missing,
        }
    }
}

/// The `207` body of a PROPFIND on `target`; `members` for `Depth: 1`.
pub fn answer(
    calendar: &Calendar,
    listings: &Listings,
    target: &Target,
    members: bool,
    body: &str,
) -> Result<String, DavRefusal> {
    let wanted = if body.trim().is_empty() {
        Wanted::All
    } else {
        let root = parse_request(body)
            .map_err(|e| DavRefusal::bad_request(format!("PROPFIND body: {e}")))?;
        if !root.name.is(DAV, "propfind") {
            return Err(DavRefusal::bad_request(
                "the PROPFIND body is not a DAV:propfind",
            ));
        }
        Wanted::of(&root)?
    };
    let sources = calendar.sources();
    let mut answer = Multistatus::new(MAX_ANSWER_BYTES);
    match target {
        Target::Root => {
            answer.push(wanted.reply(&Subject::Root))?;
            if members {
                answer.push(wanted.reply(&Subject::Principal))?;
                answer.push(wanted.reply(&Subject::Home))?;
            }
        }
        Target::Principal => answer.push(wanted.reply(&Subject::Principal))?,
        Target::Home => {
            answer.push(wanted.reply(&Subject::Home))?;
            if members {
                for source in &sources {
                    collection_replies(calendar, listings, source, false, &wanted, &mut answer)?;
                }
            }
        }
        Target::Collection(id) => {
            let source = sources
                .iter()
                .find(|s| s.id == *id)
                .ok_or_else(|| DavRefusal::not_found(id))?;
            collection_replies(calendar, listings, source, members, &wanted, &mut answer)?;
        }
        Target::ServedResource { calendar: id, name } => {
            let source = sources
                .iter()
                .find(|s| s.id == *id)
                .ok_or_else(|| DavRefusal::not_found(id))?;
            let display_tz = calendar.display_timezone();
            let resources = listings
                .resources(calendar, id)
                .ok_or_else(|| DavRefusal::not_found(id))?;
            let resource = resources
                .iter()
                .find(|r| *r.name == **name)
                .ok_or_else(|| DavRefusal::not_found(name))?;
            answer.push(wanted.reply(&Subject::ServedResource {
                source,
                resource,
                display_tz,
            }))?;
        }
        Target::WellKnown | Target::Feed(_) => return Err(DavRefusal::not_found("this path")),
    }
    Ok(answer.finish(None))
}

/// A collection's reply, and with `members` its resources'.
fn collection_replies(
    calendar: &Calendar,
    listings: &Listings,
    source: &SourceInfo,
    members: bool,
    wanted: &Wanted,
    answer: &mut Multistatus,
) -> Result<(), DavRefusal> {
    let display_tz = calendar.display_timezone();
    let resources = listings.resources(calendar, &source.id).unwrap_or_default();
    let token = listings.token(&source.id, &resources);
    answer.push(wanted.reply(&Subject::Collection {
        source,
        token: &token,
    }))?;
    if members {
        for resource in resources.iter() {
            answer.push(wanted.reply(&Subject::ServedResource {
                source,
                resource,
                display_tz,
            }))?;
        }
    }
    Ok(())
}
