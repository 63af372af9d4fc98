//! The `publishedCalendars` section: vault calendars kept, both ways, in a
//! collection of the user's CalDAV account ([`crate::publish`]). The
//! account's password is not here: it is in the OS keyring, under
//! [`crate::publish::password_key`] of the calendar id.

use serde::{Deserialize, Serialize};

use super::{CalendarSource, SettingsError};

/// The shortest and longest wait between two looks at the server.
pub const POLL_SECONDS: std::ops::RangeInclusive<u32> = 15..=86_400;

/// One published calendar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishedCalendar {
    /// The vault calendar published (a `calendarSources[].id` of any kind
    /// but `caldav`; holidays, feeds and vault `.ics` files one way).
    pub calendar_id: String,
    /// The collection's address on the CalDAV server, e.g.
    /// `https://cloud.example.org/remote.php/dav/calendars/me/almanac/`.
    pub url: String,
    /// The account's user name.
    pub username: String,
    /// Seconds between two looks at the server for the phone's changes
    /// (15-86400); a vault edit is pushed within seconds regardless.
    #[serde(default = "default_poll_seconds")]
    pub poll_seconds: u32,
}

/// The wait between two looks at the server when none is set.
pub const DEFAULT_POLL_SECONDS: u32 = 60;

fn default_poll_seconds() -> u32 {
    DEFAULT_POLL_SECONDS
}

/// Checks the published calendars against the sources they publish.
pub(super) fn validate(
    published: &[PublishedCalendar],
    sources: &[CalendarSource],
) -> Result<(), SettingsError> {
    let mut seen = std::collections::HashSet::new();
    for (index, entry) in published.iter().enumerate() {
        let invalid = |name: &str, reason: String| SettingsError::Invalid {
            key: format!("publishedCalendars[{index}].{name}"),
            reason,
        };
        let source = sources.iter().find(|s| s.id == entry.calendar_id);
        match source {
            None => {
                return Err(invalid(
                    "calendarId",
                    format!("there is no calendar `{}`", entry.calendar_id),
                ));
            }
            Some(source) if !source.kind.kind().publishable() => {
                return Err(invalid(
                    "calendarId",
                    format!(
                        "calendar `{}` is a CalDAV calendar, already on a server",
                        entry.calendar_id
                    ),
                ));
            }
            Some(_) => {}
        }
        if !seen.insert(entry.calendar_id.as_str()) {
            return Err(invalid(
                "calendarId",
                format!("calendar `{}` is published twice", entry.calendar_id),
            ));
        }
        let url = entry.url.trim();
        if !(url.starts_with("https://") || url.starts_with("http://"))
            || reqwest::Url::parse(url).is_err()
        {
            return Err(invalid("url", format!("`{url}` is not an http(s) address")));
        }
        if entry.username.trim().is_empty() {
            return Err(invalid(
                "username",
                "the account's user name is missing".into(),
            ));
        }
        if !POLL_SECONDS.contains(&entry.poll_seconds) {
            return Err(invalid(
                "pollSeconds",
                format!(
                    "{} is outside {}-{}",
                    entry.poll_seconds,
                    POLL_SECONDS.start(),
                    POLL_SECONDS.end()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(id: &str, kind: serde_json::Value) -> CalendarSource {
        let mut entry = kind;
        entry["id"] = id.into();
        entry["name"] = id.into();
        serde_json::from_value(entry).unwrap()
    }

    fn published(calendar_id: &str) -> PublishedCalendar {
        PublishedCalendar {
            calendar_id: calendar_id.into(),
            url: "https://dav.example.org/alice/almanac/".into(),
            username: "alice".into(),
            poll_seconds: 60,
        }
    }

    #[test]
    fn every_calendar_but_a_caldav_one_can_be_published() {
        let sources = [
            source(
                "notes",
                serde_json::json!({"type": "local", "directory": "events"}),
            ),
            source(
                "days",
                serde_json::json!({"type": "dailynote", "heading": "Events"}),
            ),
            source(
                "todo",
                serde_json::json!({"type": "tasks", "directory": "Projects"}),
            ),
            source(
                "fr",
                serde_json::json!({"type": "holidays", "country": "FR"}),
            ),
            source(
                "team",
                serde_json::json!({"type": "icsfile", "path": "team.ics"}),
            ),
            source(
                "feed",
                serde_json::json!({"type": "ical", "url": "https://example.com/a.ics"}),
            ),
            source(
                "work",
                serde_json::json!({"type": "caldav", "url": "https://example.com/", "username": "u"}),
            ),
        ];
        for id in ["notes", "days", "todo", "fr", "team", "feed"] {
            assert!(validate(&[published(id)], &sources).is_ok(), "{id}");
        }
        let refused = validate(&[published("work")], &sources).unwrap_err();
        assert!(
            refused.to_string().contains("already on a server"),
            "{refused}"
        );
    }
}
