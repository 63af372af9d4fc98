//! The Tauri commands behind Settings › Calendars' "Show on my phone": an
//! account's collections, a calendar published to one of them or to a new
//! one, the published calendars' status (with a first push's progress),
//! "Sync now", and stopping. The core's `publish::setup` decides; the
//! password goes from the form into the keyring and is never answered.

use std::sync::Arc;

use almanac_core::calendar::sources::caldav::account::SetupError;
use almanac_core::calendar::sources::caldav::discover::Discovered;
use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::publish::PublishedReport;
use almanac_core::publish::setup::{self, Account};
use almanac_core::settings::PublishedCalendar;
use serde::Serialize;
use tauri::State;

use super::caldav_commands::blocking;
use crate::wiring::Services;

/// The account's collections a calendar can be published to.
#[tauri::command]
pub async fn publish_collections(account: Account) -> Result<Vec<Discovered>, SetupError> {
    blocking(move || setup::collections(&account)).await?
}

/// Publishes calendar `calendar_id` to `account`'s collection
/// `collection_url`, or to a new one with the calendar's name and colour.
#[tauri::command]
pub async fn publish_calendar(
    services: State<'_, Arc<Services>>,
    calendar_id: String,
    account: Account,
    collection_url: Option<String>,
) -> Result<PublishedCalendar, SetupError> {
    let core = services.core.clone();
    blocking(move || {
        setup::publish(
            &core.settings,
            &Passwords::default(),
            &calendar_id,
            &account,
            collection_url.as_deref(),
        )
    })
    .await?
}

/// Stops publishing `calendar_id` (the setting and the password go).
#[tauri::command]
pub async fn publish_stop(
    services: State<'_, Arc<Services>>,
    calendar_id: String,
) -> Result<(), SetupError> {
    let core = services.core.clone();
    blocking(move || setup::unpublish(&core.settings, &Passwords::default(), &calendar_id)).await?
}

/// What Settings shows of publishing.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhoneStatus {
    /// The calendars whose kind can be published.
    publishable: Vec<String>,
    /// Each published calendar's sync (`GET /calendars`' `published`).
    published: Vec<PublishedReport>,
}

/// Which calendars can be published, and how the published ones sync.
#[tauri::command]
pub async fn publish_status(services: State<'_, Arc<Services>>) -> Result<PhoneStatus, SetupError> {
    let core = services.core.clone();
    // Counting what waits reads the calendars' events: off the async threads.
    blocking(move || PhoneStatus {
        publishable: core
            .settings
            .get()
            .calendar_sources
            .iter()
            .filter(|s| s.kind.kind().publishable())
            .map(|s| s.id.clone())
            .collect(),
        published: core.publisher.reports(),
    })
    .await
}

/// "Sync now": a pass of every published calendar at once.
#[tauri::command]
pub fn publish_sync_now(services: State<'_, Arc<Services>>) {
    services.core.publish_now.request();
}
