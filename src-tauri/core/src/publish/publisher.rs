//! [`Publisher`]: the published calendars of one engine, each synced by a
//! [`pass`](super::pass) on demand, with their status.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use reqwest::Url;

use super::local::Vault;
use super::pass::{self, Outcome, PassError};
use super::progress::{Progress, Sending};
use super::remote::Remote;
use super::status::{Status, StatusStore};
use crate::api::CalendarPlugin;
use crate::caldav_server::Listings;
use crate::calendar::Calendar;
use crate::calendar::sources::caldav::{DavClient, DavError};
use crate::history::{Author, acting_as};
use crate::kinds::Publishing;
use crate::paths::Paths;
use crate::settings::SettingsStore;
use crate::vault_reminders::rules::Rules;

/// A vault calendar and the collection it is kept in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    pub calendar_id: String,
    /// The collection's URL (a folder: it ends in `/`).
    pub collection_url: String,
    pub username: String,
}

/// Syncs published calendars against one engine. Passes of one calendar
/// must not overlap (the worker runs them one at a time).
pub struct Publisher {
    plugin: Arc<CalendarPlugin>,
    calendar: Calendar,
    settings: Arc<SettingsStore>,
    /// The vault's events as Almanac's CalDAV server lists them, kept
    /// between passes (a listing is remade only for what changed).
    listings: Listings,
    store: StatusStore,
    /// The counters of the passes running now, by calendar id.
    sending: Mutex<HashMap<String, Arc<Sending>>>,
}

/// One published calendar's sync, as a person checks it: when it last
/// reached the server, what waits, what went wrong, what conflicted.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublishedReport {
    /// The vault calendar kept in the account's collection.
    pub calendar_id: String,
    /// When a pass last reached the server and finished; `null` before the
    /// first.
    pub last_sync: Option<chrono::DateTime<chrono::Utc>>,
    /// Its events changed in the vault that have not reached the server.
    pub waiting: usize,
    /// Why the last pass (or one event of it) failed, in plain words;
    /// `null` when it did not.
    pub last_error: Option<String>,
    /// The latest conflicts, newest last: the note that kept the vault's
    /// version and the note holding the server's, both in the vault.
    pub conflicts: Vec<super::status::Conflict>,
    /// While a pass sends the vault's changes: how many the server took so
    /// far, of how many; `null` otherwise.
    pub progress: Option<Progress>,
    /// Published one way (a read-only calendar: holidays, a feed, a vault
    /// `.ics` file): what is changed on the server is put back as the vault
    /// has it, never pulled.
    pub one_way: bool,
}

impl Publisher {
    /// The publisher of `plugin`'s engine (`calendar`, `settings`), its
    /// statuses under `paths`' data folder.
    pub fn new(
        plugin: Arc<CalendarPlugin>,
        calendar: Calendar,
        settings: Arc<SettingsStore>,
        paths: &Paths,
    ) -> Self {
        Self {
            plugin,
            calendar,
            settings,
            listings: Listings::default(),
            store: StatusStore::new(&paths.publish_dir()),
            sending: Mutex::default(),
        }
    }

    /// One pass of `published`, with the account's `password`.
    pub fn sync(&self, published: &Published, password: &str) -> Result<Outcome, PassError> {
        let collection = collection_url(&published.collection_url)?;
        let client = DavClient::new(&collection, &published.username, password)?;
        let sending = Arc::new(Sending::default());
        let remote = Remote {
            client,
            collection,
            sending: sending.clone(),
        };
        let api = self.plugin.as_owner();
        let rules = Rules::from_settings(&self.settings.get());
        let vault = Vault {
            api: &api,
            calendar: &self.calendar,
            listings: &self.listings,
            calendar_id: &published.calendar_id,
            rules: &rules,
        };
        // What the pass writes into the vault is the sync's, in the history.
        let _sync = acting_as(Author::Sync {
            calendar: published.calendar_id.clone(),
        });
        self.running()
            .insert(published.calendar_id.clone(), sending);
        let result = pass::run(&vault, &remote, &self.store);
        self.running().remove(&published.calendar_id);
        result
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Sending>>> {
        self.sending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The sync status of `calendar_id` as last saved.
    pub fn status(&self, calendar_id: &str) -> Status {
        self.store.load(calendar_id)
    }

    /// What is known of every published calendar now, in settings order
    /// (`GET /api/v1/calendars`' `published`). Reads each calendar's events
    /// to count what waits, so it runs off the async workers.
    pub fn reports(&self) -> Vec<PublishedReport> {
        let sources = self.calendar.sources();
        let one_way = |id: &str| {
            sources
                .iter()
                .find(|s| s.id == id)
                .is_some_and(|s| s.kind.publishing() == Publishing::OneWay)
        };
        self.settings
            .get()
            .published_calendars
            .iter()
            .map(|published| {
                let status = self.status(&published.calendar_id);
                PublishedReport {
                    calendar_id: published.calendar_id.clone(),
                    last_sync: status
                        .last_sync_millis
                        .and_then(chrono::DateTime::from_timestamp_millis),
                    waiting: self.waiting(&published.calendar_id),
                    last_error: status.last_error,
                    conflicts: status.conflicts,
                    progress: self
                        .running()
                        .get(&published.calendar_id)
                        .and_then(|sending| sending.progress()),
                    one_way: one_way(&published.calendar_id),
                }
            })
            .collect()
    }

    /// How many of `calendar_id`'s events wait to reach the server.
    pub fn waiting(&self, calendar_id: &str) -> usize {
        let api = self.plugin.as_owner();
        let rules = Rules::from_settings(&self.settings.get());
        let vault = Vault {
            api: &api,
            calendar: &self.calendar,
            listings: &self.listings,
            calendar_id,
            rules: &rules,
        };
        let local = vault.items().unwrap_or_default();
        pass::waiting(&self.store.load(calendar_id), local)
    }
}

/// `url` as a collection URL: http(s), ending in `/`.
fn collection_url(url: &str) -> Result<Url, DavError> {
    let mut url = Url::parse(url.trim())
        .map_err(|e| DavError::Protocol(format!("the collection address is not a URL: {e}")))?;
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}
