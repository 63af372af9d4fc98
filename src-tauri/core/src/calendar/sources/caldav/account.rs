//! Setting up a CalDAV account's calendar, as the user does in Settings ›
//! Calendars: the account's calendars are discovered with the credentials
//! given (which proves them), the user picks one when there are several,
//! the password goes into the OS keyring and the source, with its
//! calendar's URL, into the settings. Also: a new password for a calendar
//! already set up, the calendar URL found by discovery at sync time
//! written back (so discovery is not repeated at every start), and which
//! passwords to forget when calendars are removed.
//!
//! Every refusal names the form field it concerns, in plain words.

use std::sync::Arc;

use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::discover::{self, Discovered};
use super::password::Passwords;
use super::{DavClient, DavError};
use crate::calendar::Calendar;
use crate::settings::class::Actor;
use crate::settings::{CalendarSource, KindSettings, Settings, SettingsError, SettingsStore};

/// What the user typed to add an account's calendar. No `Debug`: it holds
/// the password.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewCalendar {
    /// Empty: the calendar's own name on the server.
    #[serde(default)]
    pub name: String,
    pub color: String,
    /// The server's address, where discovery starts.
    pub url: String,
    pub username: String,
    pub password: String,
    /// The calendar picked among several; `None` until the user picked.
    #[serde(default)]
    pub calendar_url: Option<String>,
}

/// What adding did.
#[derive(Debug, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum Added {
    /// Source `id` is in the settings, its password in the keyring.
    Added { id: String },
    /// The account has several calendars: ask again with one of them.
    Choose { calendars: Vec<Discovered> },
}

/// A refusal, and the form field it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct SetupError {
    /// `url`, `username`, `password`, `calendarUrl`, `name` or `color`;
    /// for publishing ([`crate::publish::setup`]) also `collection`.
    pub field: &'static str,
    pub message: String,
}

pub fn refuse(field: &'static str, message: impl Into<String>) -> SetupError {
    SetupError {
        field,
        message: message.into(),
    }
}

/// Adds the calendar `new` describes: see the module's description. Nothing
/// is stored unless every step succeeds.
pub fn add(
    settings: &SettingsStore,
    calendar: &Calendar,
    passwords: &Passwords,
    new: &NewCalendar,
) -> Result<Added, SetupError> {
    let server = new.url.trim();
    let found = account_calendars(server, new.username.trim(), &new.password)?;
    let chosen = match (&new.calendar_url, found.as_slice()) {
        (Some(wanted), _) => found.iter().find(|c| c.url == *wanted).ok_or_else(|| {
            refuse(
                "calendarUrl",
                "This calendar is no longer on the server: choose another.",
            )
        })?,
        (None, [only]) => only,
        (None, _) => return Ok(Added::Choose { calendars: found }),
    };
    let current = settings.get();
    if let Some(twin) = current.calendar_sources.iter().find(|s| {
        s.kind
            .caldav_account()
            .is_some_and(|account| account.calendar_url == chosen.url)
    }) {
        return Err(refuse(
            "url",
            format!("This calendar is in Almanac already, as “{}”.", twin.name),
        ));
    }
    let id = free_id(&current);
    let name = match new.name.trim() {
        "" => chosen.name.clone(),
        name => name.to_string(),
    };
    let source = CalendarSource {
        id: id.clone(),
        name,
        color: new.color.clone(),
        kind: KindSettings::Caldav {
            url: server.to_string(),
            username: new.username.trim().to_string(),
            calendar_url: chosen.url.clone(),
        },
        order: None,
        components: None,
    };
    passwords.set(&id, &new.password).map_err(|e| {
        refuse(
            "password",
            format!("The password could not be kept in the system keyring: {e}"),
        )
    })?;
    let written = settings.update_from(Actor::User, |current| {
        // Taken meanwhile (another window added a calendar): refused below.
        let free = !current.calendar_sources.iter().any(|s| s.id == id);
        free.then(|| with_sources(current, |sources| sources.push(source)))
    });
    match written {
        Ok(Some(_)) => {
            calendar.catch_up(settings);
            Ok(Added::Added { id })
        }
        outcome => {
            let _ = passwords.delete(&id);
            Err(match outcome {
                Err(error) => settings_refusal(error),
                _ => refuse("url", "The calendars changed meanwhile: add it again."),
            })
        }
    }
}

/// Replaces the stored password of CalDAV source `id`, once the server took
/// it, and syncs the calendar with it.
pub fn change_password(
    settings: &SettingsStore,
    calendar: &Calendar,
    passwords: &Passwords,
    id: &str,
    password: &str,
) -> Result<(), SetupError> {
    let current = settings.get();
    let Some(KindSettings::Caldav { url, username, .. }) = current
        .calendar_sources
        .iter()
        .find(|s| s.id == id)
        .map(|s| &s.kind)
    else {
        return Err(refuse(
            "password",
            "This is not a CalDAV calendar (any more).",
        ));
    };
    account_calendars(url, username, password)?;
    passwords.set(id, password).map_err(|e| {
        refuse(
            "password",
            format!("The password could not be kept in the system keyring: {e}"),
        )
    })?;
    calendar.revalidate(true);
    Ok(())
}

/// Writes `calendar_url`, found by discovery at sync time, into CalDAV
/// source `id` while it still reads `server` without a calendar URL.
pub fn remember_calendar_url(
    settings: &SettingsStore,
    id: &str,
    server: &str,
    calendar_url: &str,
) -> Result<Option<Arc<Settings>>, SettingsError> {
    settings.update_from(Actor::User, |current| {
        let undiscovered = |s: &CalendarSource| {
            s.id == id
                && s.kind
                    .caldav_account()
                    .is_some_and(|account| account.url == server && account.calendar_url.is_empty())
        };
        current.calendar_sources.iter().any(undiscovered).then(|| {
            with_sources(current, |sources| {
                for source in sources.iter_mut().filter(|s| undiscovered(s)) {
                    if let KindSettings::Caldav {
                        calendar_url: url, ..
                    } = &mut source.kind
                    {
                        *url = calendar_url.to_string();
                    }
                }
            })
        })
    })
}

/// The ids of the CalDAV calendars of `before` that `after` no longer has
/// (as CalDAV calendars): their passwords are to be forgotten.
pub fn removed(before: &Settings, after: &Settings) -> Vec<String> {
    let caldav = |settings: &Settings| -> Vec<String> {
        settings
            .calendar_sources
            .iter()
            .filter(|s| s.kind.kind().uses_password())
            .map(|s| s.id.clone())
            .collect()
    };
    let kept = caldav(after);
    caldav(before)
        .into_iter()
        .filter(|id| !kept.contains(id))
        .collect()
}

/// The event calendars of the account, or why they cannot be listed.
fn account_calendars(
    server: &str,
    username: &str,
    password: &str,
) -> Result<Vec<Discovered>, SetupError> {
    let (_, found) = signed_in(server, username, password)?;
    if found.is_empty() {
        return Err(refuse(
            "url",
            "This account has no event calendar on the server: create one there first.",
        ));
    }
    Ok(found)
}

/// The account at `server` signed in to, with its event calendars (maybe
/// none), or why it cannot be reached: a refusal naming the form field
/// (`url`, `username` or `password`) in plain words.
pub fn signed_in(
    server: &str,
    username: &str,
    password: &str,
) -> Result<(DavClient, Vec<Discovered>), SetupError> {
    let parsed = Url::parse(server)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .ok_or_else(|| {
            refuse(
                "url",
                "Enter the server's address, starting with https:// (or http://).",
            )
        })?;
    if username.is_empty() {
        return Err(refuse("username", "Enter your user name on this server."));
    }
    if password.is_empty() {
        return Err(refuse(
            "password",
            "Enter the password (or the app password) of this account.",
        ));
    }
    let client =
        DavClient::new(&parsed, username, password).map_err(|e| refuse("url", e.to_string()))?;
    let host = parsed.host_str().unwrap_or_default();
    let found = discover::calendars(&client, server).map_err(|error| match error {
        DavError::Unreachable(_) => refuse(
            "url",
            format!("Almanac cannot reach {host}: check the address, and that you are online."),
        ),
        DavError::Unauthorized => refuse(
            "password",
            "The server refused this user name or password. Check both: iCloud, Fastmail \
             and Nextcloud with two-step sign-in need an app password.",
        ),
        DavError::OffOrigin(_) | DavError::TooLarge(_) | DavError::Busy(_) => {
            refuse("url", error.to_string())
        }
        DavError::PreconditionFailed | DavError::Protocol(_) => refuse(
            "url",
            format!("No CalDAV calendars answer at this address ({error}). Check the address."),
        ),
    })?;
    Ok((client, found))
}

/// `caldav_<n>` with the smallest free `n`, as the Full Calendar plugin
/// names sources.
fn free_id(settings: &Settings) -> String {
    (1..)
        .map(|n| format!("caldav_{n}"))
        .find(|id| !settings.calendar_sources.iter().any(|s| s.id == *id))
        .expect("some id is free")
}

/// The patch setting `current`'s calendar sources, changed by `change`.
fn with_sources(current: &Settings, change: impl FnOnce(&mut Vec<CalendarSource>)) -> Value {
    let mut sources = current.calendar_sources.clone();
    change(&mut sources);
    json!({ "calendarSources": sources })
}

/// A settings refusal of the new source, next to the field it names.
fn settings_refusal(error: SettingsError) -> SetupError {
    let field = match &error {
        SettingsError::Invalid { key, .. } => match key.rsplit('.').next() {
            Some("name") => "name",
            Some("color") => "color",
            _ => "url",
        },
        _ => "url",
    };
    let message = match error {
        SettingsError::Invalid { reason, .. } => reason,
        other => other.to_string(),
    };
    refuse(field, message)
}
