//! The Tauri commands behind Settings' CalDAV parts: adding a CalDAV
//! calendar and changing its password (the core's
//! `calendar::sources::caldav::account` decides), and the subscription
//! feeds (the core's `caldav_server::feeds`, as the command line uses them).

use std::sync::Arc;

use almanac_core::caldav_server::feeds::{Feed, FeedStore, feed_url};
use almanac_core::calendar::sources::caldav::account::{self, Added, NewCalendar, SetupError};
use almanac_core::calendar::sources::caldav::password::Passwords;
use serde::Serialize;
use tauri::State;

use crate::wiring::Services;

/// Adds the CalDAV calendar the form describes, or asks to pick one of the
/// account's calendars; a refusal names its field.
#[tauri::command]
pub async fn caldav_add(
    services: State<'_, Arc<Services>>,
    calendar: NewCalendar,
) -> Result<Added, SetupError> {
    let core = services.core.clone();
    blocking(move || {
        account::add(
            &core.settings,
            &core.calendar,
            &Passwords::default(),
            &calendar,
        )
    })
    .await?
}

/// Stores a new password for CalDAV calendar `id`, once its server took it.
#[tauri::command]
pub async fn caldav_change_password(
    services: State<'_, Arc<Services>>,
    id: String,
    password: String,
) -> Result<(), SetupError> {
    let core = services.core.clone();
    blocking(move || {
        account::change_password(
            &core.settings,
            &core.calendar,
            &Passwords::default(),
            &id,
            &password,
        )
    })
    .await?
}

/// Every subscription feed (never a secret).
#[tauri::command]
pub fn feeds_list(services: State<'_, Arc<Services>>) -> Result<Vec<Feed>, String> {
    feeds(&services).list().map_err(|e| e.to_string())
}

/// A feed just made: the only answer that carries its URL.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MadeFeed {
    feed: Feed,
    url: String,
    /// Whether the CalDAV server, which serves feeds, is on.
    served: bool,
}

/// Makes a feed called `name` of `calendars`.
#[tauri::command]
pub fn feed_create(
    services: State<'_, Arc<Services>>,
    name: String,
    calendars: Vec<String>,
) -> Result<MadeFeed, String> {
    let settings = services.core.settings.get();
    let made = feeds(&services)
        .create_of(&settings, &name, calendars)
        .map_err(|e| e.to_string())?;
    Ok(MadeFeed {
        url: feed_url(&settings, &made.secret),
        feed: made.feed,
        served: settings.caldav_server.enabled,
    })
}

/// Revokes feed `id`: its URL stops working.
#[tauri::command]
pub fn feed_revoke(services: State<'_, Arc<Services>>, id: uuid::Uuid) -> Result<(), String> {
    feeds(&services).revoke(id).map_err(|e| e.to_string())
}

fn feeds(services: &Services) -> FeedStore {
    FeedStore::new(services.core.paths.feeds_file())
}

/// Runs network and keyring work off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, SetupError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| SetupError {
            field: "url",
            message: e.to_string(),
        })
}
