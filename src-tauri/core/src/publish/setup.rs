//! Publishing a calendar from Settings › Calendars ("Show on my phone"):
//! the account is signed in to and its calendars discovered as the CalDAV
//! account form does (which proves the credentials), the collection is one
//! of them or a new one ([`super::collection`]), the password goes into
//! the OS keyring under [`super::password_key`] and the calendar into
//! `publishedCalendars`, as the user. Stopping removes both. The worker
//! sees the settings change and starts the first pass at once.
//!
//! Every refusal names the form field it concerns (`url`, `username`,
//! `password`, `collection`), in plain words; nothing is stored unless
//! every step succeeded.

use serde::Deserialize;
use serde_json::json;

use super::collection;
use super::password_key;
use crate::calendar::sources::caldav::account::{SetupError, refuse, signed_in};
use crate::calendar::sources::caldav::discover::Discovered;
use crate::calendar::sources::caldav::password::Passwords;
use crate::settings::class::Actor;
use crate::settings::{DEFAULT_POLL_SECONDS, PublishedCalendar, SettingsStore};

/// A CalDAV account as the user typed it. No `Debug`: it holds the
/// password.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// The server's address, where discovery starts.
    pub url: String,
    pub username: String,
    pub password: String,
}

/// The account's collections a calendar can be published to.
pub fn collections(account: &Account) -> Result<Vec<Discovered>, SetupError> {
    signed_in(
        account.url.trim(),
        account.username.trim(),
        &account.password,
    )
    .map(|(_, found)| found)
}

/// Publishes calendar `calendar_id` to `account`'s collection
/// `collection_url`, or to a new collection with the calendar's name and
/// colour when it is `None`; the entry added to `publishedCalendars`.
pub fn publish(
    settings: &SettingsStore,
    passwords: &Passwords,
    calendar_id: &str,
    account: &Account,
    collection_url: Option<&str>,
) -> Result<PublishedCalendar, SetupError> {
    let current = settings.get();
    let source = current
        .calendar_sources
        .iter()
        .find(|s| s.id == calendar_id)
        .ok_or_else(|| refuse("collection", "This calendar is not in Almanac any more."))?;
    if !source.kind.kind().publishable() {
        return Err(refuse(
            "collection",
            "This kind of calendar cannot be shown on a phone yet.",
        ));
    }
    if current
        .published_calendars
        .iter()
        .any(|p| p.calendar_id == calendar_id)
    {
        return Err(refuse(
            "collection",
            "This calendar is on your phone already: stop that first to change where.",
        ));
    }
    let server = account.url.trim();
    let username = account.username.trim();
    let (client, found) = signed_in(server, username, &account.password)?;
    let url = match collection_url {
        Some(wanted) => {
            found
                .into_iter()
                .find(|c| c.url == wanted)
                .ok_or_else(|| {
                    refuse(
                        "collection",
                        "This collection is no longer on the server: choose another.",
                    )
                })?
                .url
        }
        None => {
            collection::create(&client, server, &source.name, &source.color)
                .map_err(|e| refuse("collection", capitalized(&e.to_string())))?
                .url
        }
    };
    let entry = PublishedCalendar {
        calendar_id: calendar_id.to_string(),
        url,
        username: username.to_string(),
        poll_seconds: DEFAULT_POLL_SECONDS,
    };
    let key = password_key(calendar_id);
    passwords.set(&key, &account.password).map_err(|e| {
        refuse(
            "password",
            format!("The password could not be kept in the system keyring: {e}"),
        )
    })?;
    let written = settings.update_from(Actor::User, |current| {
        let free = !current
            .published_calendars
            .iter()
            .any(|p| p.calendar_id == calendar_id);
        free.then(|| {
            let mut published = current.published_calendars.clone();
            published.push(entry.clone());
            json!({ "publishedCalendars": published })
        })
    });
    match written {
        Ok(Some(_)) => Ok(entry),
        outcome => {
            let _ = passwords.delete(&key);
            Err(match outcome {
                Err(error) => refuse("collection", error.to_string()),
                _ => refuse(
                    "collection",
                    "This calendar was published meanwhile (in another window?).",
                ),
            })
        }
    }
}

/// Stops publishing `calendar_id`: its entry leaves `publishedCalendars`
/// and its password the keyring. The collection and its events stay on the
/// server, the notes in the vault.
pub fn unpublish(
    settings: &SettingsStore,
    passwords: &Passwords,
    calendar_id: &str,
) -> Result<(), SetupError> {
    settings
        .update_from(Actor::User, |current| {
            let kept: Vec<PublishedCalendar> = current
                .published_calendars
                .iter()
                .filter(|p| p.calendar_id != calendar_id)
                .cloned()
                .collect();
            (kept.len() != current.published_calendars.len())
                .then(|| json!({ "publishedCalendars": kept }))
        })
        .map_err(|e| refuse("collection", e.to_string()))?;
    passwords.delete(&password_key(calendar_id)).map_err(|e| {
        refuse(
            "password",
            format!("The password could not be removed from the system keyring: {e}"),
        )
    })
}

/// `text` with its first letter in upper case, as a sentence.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
