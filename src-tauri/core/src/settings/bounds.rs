//! The settings checks that keep one setting from opening a door: which URL
//! schemes a reminder may open, how many calendar sources there are, and
//! that the three servers never share a port. Called from
//! [`Settings::validate`], so a patch (any actor's), a replacement and the
//! settings file at start are all held to them.

use super::{Settings, SettingsError};

/// Calendar sources at most. Each one is fetched, watched or synced and
/// shown as its own calendar; a hundred is far beyond a person's calendars,
/// and keeps a script from making the app fetch thousands of feeds.
pub const MAX_CALENDAR_SOURCES: usize = 100;

/// `reminders.allowedSchemes` entries at most.
pub const MAX_ALLOWED_SCHEMES: usize = 32;

/// Bytes of one scheme name at most.
pub const MAX_SCHEME_BYTES: usize = 32;

/// Schemes a reminder may never open, whatever the settings say: each one
/// reads local files, runs script or code, or shows content the link itself
/// carries, rather than handing a link to an app.
pub const REFUSED_SCHEMES: [&str; 13] = [
    "file",
    "javascript",
    "vbscript",
    "data",
    "blob",
    "filesystem",
    "about",
    "view-source",
    "jar",
    "resource",
    "ms-msdt",
    "search-ms",
    "ms-officecmd",
];

/// Checks the schemes, the number of sources and the ports.
pub(super) fn check(settings: &Settings) -> Result<(), SettingsError> {
    check_schemes(&settings.reminders.allowed_schemes)?;
    let sources = settings.calendar_sources.len();
    if sources > MAX_CALENDAR_SOURCES {
        return Err(invalid(
            "calendarSources",
            format!("{sources} calendars; at most {MAX_CALENDAR_SOURCES} are allowed"),
        ));
    }
    check_ports(settings)
}

fn check_schemes(schemes: &[String]) -> Result<(), SettingsError> {
    const KEY: &str = "reminders.allowedSchemes";
    if schemes.len() > MAX_ALLOWED_SCHEMES {
        return Err(invalid(
            KEY,
            format!(
                "{} schemes; at most {MAX_ALLOWED_SCHEMES} are allowed",
                schemes.len()
            ),
        ));
    }
    for scheme in schemes {
        if !is_scheme_name(scheme) {
            return Err(invalid(
                KEY,
                format!(
                    "`{}` is not a scheme name: lowercase letters, digits, `+`, `-` \
                     and `.`, starting with a letter, at most {MAX_SCHEME_BYTES} bytes",
                    scheme.escape_debug()
                ),
            ));
        }
        if REFUSED_SCHEMES.contains(&scheme.as_str()) {
            return Err(invalid(
                KEY,
                format!("`{scheme}:` links are never opened by a reminder"),
            ));
        }
    }
    Ok(())
}

/// `^[a-z][a-z0-9+.-]*$` (RFC 3986's scheme, in its canonical lowercase),
/// at most [`MAX_SCHEME_BYTES`].
fn is_scheme_name(scheme: &str) -> bool {
    let mut bytes = scheme.bytes();
    scheme.len() <= MAX_SCHEME_BYTES
        && bytes.next().is_some_and(|first| first.is_ascii_lowercase())
        && bytes.all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.')
        })
}

/// The REST server, the reminder daemon and the CalDAV server each listen on
/// their own port, even while one of them is off (turning it on must not
/// take another's port). A clash names the later key in this order, and the
/// message names the other.
fn check_ports(settings: &Settings) -> Result<(), SettingsError> {
    let ports = [
        ("localServerPort", settings.local_server_port),
        ("reminders.daemonPort", settings.reminders.daemon_port),
        ("caldavServer.port", settings.caldav_server.port),
    ];
    for (index, (key, port)) in ports.iter().enumerate() {
        if let Some((other, _)) = ports[..index].iter().find(|(_, p)| p == port) {
            return Err(invalid(
                key,
                format!(
                    "{port} is already `{other}`; the REST server, the reminder daemon \
                     and the CalDAV server each need their own port"
                ),
            ));
        }
    }
    Ok(())
}

fn invalid(key: &str, reason: String) -> SettingsError {
    SettingsError::Invalid {
        key: key.to_string(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheme_names_follow_rfc_3986_in_lowercase() {
        for good in [
            "obsidian",
            "https",
            "mailto",
            "zotero",
            "x-devonthink-item",
            "a1+b.c",
        ] {
            assert!(is_scheme_name(good), "{good}");
        }
        let long = "a".repeat(MAX_SCHEME_BYTES + 1);
        for bad in [
            "",
            "1abc",
            "HTTPS",
            "ob sidian",
            "a:b",
            "é",
            "-x",
            long.as_str(),
        ] {
            assert!(!is_scheme_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_defaults_pass() {
        check(&Settings::default()).unwrap();
    }
}
