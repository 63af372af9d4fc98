//! `PROPFIND` (RFC 4918 §9.1): the properties of a resource and, at
//! `Depth: 1`, of its members.

use super::collection::Listings;
use super::error::DavError;
use super::href::Target;
use super::multistatus::{Reply, multistatus};
use super::props::Subject;
use super::xml::{DAV, Element, Name, parse};
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
    /// The `prop`, `allprop` or `propname` child of `parent`.
    pub fn of(parent: &Element) -> Wanted {
        if let Some(prop) = parent.child(DAV, "prop") {
            Wanted::Props(prop.children.iter().map(|c| c.name.clone()).collect())
        } else if parent.child(DAV, "propname").is_some() {
            Wanted::Names
        } else {
            Wanted::All
        }
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
) -> Result<String, DavError> {
    let wanted = if body.trim().is_empty() {
        Wanted::All
    } else {
        let root = parse(body).map_err(|e| DavError::bad_request(format!("PROPFIND body: {e}")))?;
        if !root.name.is(DAV, "propfind") {
            return Err(DavError::bad_request(
                "the PROPFIND body is not a DAV:propfind",
            ));
        }
        Wanted::of(&root)
    };
    let sources = calendar.sources();
    let mut replies = Vec::new();
    match target {
        Target::Root => {
            replies.push(wanted.reply(&Subject::Root));
            if members {
                replies.push(wanted.reply(&Subject::Principal));
                replies.push(wanted.reply(&Subject::Home));
            }
        }
        Target::Principal => replies.push(wanted.reply(&Subject::Principal)),
        Target::Home => {
            replies.push(wanted.reply(&Subject::Home));
            if members {
                for source in &sources {
                    collection_replies(calendar, listings, source, false, &wanted, &mut replies);
                }
            }
        }
        Target::Collection(id) => {
            let source = sources
                .iter()
                .find(|s| s.id == *id)
                .ok_or_else(|| DavError::not_found(id))?;
            collection_replies(calendar, listings, source, members, &wanted, &mut replies);
        }
        Target::Resource { calendar: id, name } => {
            let display_tz = calendar.display_timezone();
            let resources = listings
                .resources(calendar, id)
                .ok_or_else(|| DavError::not_found(id))?;
            let resource = resources
                .iter()
                .find(|r| r.name == *name)
                .ok_or_else(|| DavError::not_found(name))?;
            replies.push(wanted.reply(&Subject::Resource {
                calendar: id,
                resource,
                display_tz,
            }));
        }
        Target::WellKnown | Target::Feed(_) => return Err(DavError::not_found("this path")),
    }
    Ok(multistatus(&replies, None))
}

/// A collection's reply, and with `members` its resources'.
fn collection_replies(
    calendar: &Calendar,
    listings: &Listings,
    source: &SourceInfo,
    members: bool,
    wanted: &Wanted,
    replies: &mut Vec<Reply>,
) {
    let display_tz = calendar.display_timezone();
    let resources = listings.resources(calendar, &source.id).unwrap_or_default();
    let token = listings.token(&source.id, &resources);
    replies.push(wanted.reply(&Subject::Collection {
        source,
        token: &token,
    }));
    if members {
        for resource in resources.iter() {
            replies.push(wanted.reply(&Subject::Resource {
                calendar: &source.id,
                resource,
                display_tz,
            }));
        }
    }
}
