//! The account's side of a published calendar: the collection on the
//! user's CalDAV server, read and written through the CalDAV source's own
//! client (`calendar::sources::caldav`): its `DavClient` (origin-pinned
//! Basic auth, capped answers, `Retry-After` read from 429 and 503) and its
//! `sync` (`sync-collection`, else the ctag and then every ETag, then
//! `calendar-multiget` of what changed). Nothing here knows about notes.

use std::collections::BTreeMap;
use std::sync::Arc;

use reqwest::Url;

use super::progress::Sending;
use super::status::Status;
use crate::calendar::sources::caldav::DavClient;
use crate::calendar::sources::caldav::DavError;
use crate::calendar::sources::caldav::mirror::{Mirror, Resource};
use crate::calendar::sources::caldav::sync::{Listed, Synced, fetch, sync};
use crate::webdav::xml::CALDAV;

const COMPONENTS: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:supported-calendar-component-set/></d:prop></d:propfind>"#;

/// What the collection holds now, as far as this pass needs to know.
#[derive(Debug, Default)]
pub struct ServerState {
    /// Every resource by absolute URL, with its ETag. `ics` is filled for
    /// those fetched in this pass (new or changed since the status), empty
    /// for those unchanged.
    pub resources: BTreeMap<String, Resource>,
    /// Resources the server holds that were not read (too large), by href:
    /// why. Their events are left alone on both sides.
    pub set_aside: BTreeMap<String, String>,
    pub sync_token: Option<String>,
    pub ctag: Option<String>,
}

/// The collection of one published calendar.
pub struct Remote {
    pub client: DavClient,
    pub collection: Url,
    /// Counts the writes the server took, for the pass' progress.
    pub sending: Arc<Sending>,
}

impl Remote {
    /// The collection's state since `status`: one `sync-collection` when
    /// nothing changed and the server keeps sync tokens.
    pub fn state(&self, status: &Status) -> Result<ServerState, DavError> {
        let same_collection = status.collection_url == self.collection.as_str();
        let mut mirror = Mirror {
            calendar_url: status.collection_url.clone(),
            sync_token: status.sync_token.clone(),
            ctag: status.ctag.clone(),
            resources: BTreeMap::new(),
            // A status of this collection was synced once (its token or ctag
            // says how far); another one starts over.
            fetched_at_millis: status.last_sync_millis.filter(|_| same_collection),
        };
        for item in status.items.values() {
            if let Some(etag) = &item.remote_etag {
                mirror.resources.insert(
                    item.href.clone(),
                    Resource {
                        etag: etag.clone(),
                        ics: String::new(),
                    },
                );
            }
        }
        let etags = || {
            mirror
                .resources
                .iter()
                .map(|(href, r)| (href.clone(), r.etag.clone()))
                .collect()
        };
        let mut set_aside = BTreeMap::new();
        match sync(
            &self.client,
            &self.collection,
            &mirror.known(),
            Listed::All,
            etags,
        )? {
            Synced::Unchanged => {}
            Synced::Changed(mut delta) => {
                set_aside.extend(delta.take_set_aside());
                delta.apply(&mut mirror, &self.collection);
            }
        }
        Ok(ServerState {
            resources: mirror.resources,
            set_aside,
            sync_token: mirror.sync_token,
            ctag: mirror.ctag,
        })
    }

    /// Whether the collection takes tasks (`VTODO` in its
    /// `supported-calendar-component-set`; a server that names no set takes
    /// every kind).
    pub fn takes_tasks(&self) -> Result<bool, DavError> {
        let answer = self
            .client
            .multistatus("PROPFIND", &self.collection, "0", COMPONENTS)?;
        let set = answer
            .responses
            .iter()
            .find_map(|r| r.prop(CALDAV, "supported-calendar-component-set"));
        Ok(set.is_none_or(|set| {
            set.children.is_empty()
                || set
                    .children
                    .iter()
                    .any(|c| c.attribute("name") == Some("VTODO"))
        }))
    }

    /// The resource at `href` as the server holds it now (one
    /// `calendar-multiget`); `None` when it is gone or too large to read.
    pub fn reread(&self, href: &str) -> Result<Option<Resource>, DavError> {
        let (fetched, _) = fetch(&self.client, &self.collection, &[href.to_string()])?;
        Ok(fetched.into_iter().next().map(|(_, resource)| resource))
    }

    /// Where a new event with resource name `name` goes: the names the
    /// CalDAV server gives its resources (`<UID>.ics` when the UID is
    /// plain, else a hash) are path segments as they are.
    pub fn href_for(&self, name: &str) -> Result<Url, DavError> {
        self.collection
            .join(name)
            .map_err(|e| DavError::Protocol(format!("bad resource name {name}: {e}")))
    }

    /// PUTs `ics` to `href`: over the version `if_match`, or only as a new
    /// resource. The new ETag, when the server gives it.
    pub fn put(
        &self,
        href: &str,
        ics: &str,
        if_match: Option<&str>,
    ) -> Result<Option<String>, DavError> {
        let etag = self.client.put(&parse(href)?, ics, if_match)?;
        self.sending.sent_one();
        Ok(etag)
    }

    /// DELETEs `href` if it is still the version `if_match`.
    pub fn delete(&self, href: &str, if_match: &str) -> Result<(), DavError> {
        self.client.delete(&parse(href)?, if_match)?;
        self.sending.sent_one();
        Ok(())
    }
}

fn parse(href: &str) -> Result<Url, DavError> {
    Url::parse(href).map_err(|e| DavError::Protocol(format!("bad resource URL {href}: {e}")))
}
