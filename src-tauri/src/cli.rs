//! Command-line arguments. Few enough that a hand-rolled parser stays clearer
//! than a dependency.

use std::path::PathBuf;

use almanac_core::api::{AccessRequest, MAX_REASON_CHARS};
use almanac_core::tokens::{Expiry, NewToken, Scope, ScopeSet};

pub const USAGE: &str = "\
Usage: almanac [--headless] [--vault DIR] [--open WINDOW]
       almanac --request-access NAME --scopes SCOPE,... [--reason TEXT]
       almanac --new-feed NAME --calendars ID,... | --list-feeds | --revoke-feed ID
       almanac token create|list|revoke ...   (see `almanac token --help`)
       almanac events|agenda|calendars|reminders ...   (see `almanac events --help`)
       almanac mcp   (MCP for AI assistants on stdin/stdout; see `almanac mcp --help`)

  --headless     run the calendar REST server and the reminder daemon with no
                 windows (the default when no display is available)
  --vault DIR    use DIR as the vault (saved to settings); an existing folder,
                 not /, the home folder itself or a system folder. Imports the
                 Full Calendar plugin's calendars found in it while only the
                 default calendar is configured (see docs/calendar.md)
  --open WINDOW  open a window at start: calendar, sidebar, reminders or
                 settings (a second launch opens it in the running instance)
  --request-access NAME
                 ask the user, in a dialog of the running app, for a token
                 named NAME; if allowed, the app shows its secret once
  --scopes LIST  the scopes to ask for, comma-separated (e.g.
                 events:read,settings:read); needs --request-access
  --reason TEXT  why the token is needed, shown in the dialog
  --new-feed NAME
                 make a read-only subscription feed of the calendars given
                 with --calendars (ids, comma-separated) and print its secret
                 URL, once; it is served by the CalDAV server (docs/caldav.md)
  --list-feeds   list the feeds (never their secrets)
  --revoke-feed ID
                 delete a feed: its URL stops working at once
  -h, --help     show this help

Config: $XDG_CONFIG_HOME/almanac/settings.json   Data: $XDG_DATA_HOME/almanac/
Log level: ALMANAC_LOG=debug";

/// The windows a user can open from the tray or the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    Calendar,
    Sidebar,
    Reminders,
    Settings,
}

impl WindowKind {
    pub const ALL: [WindowKind; 4] = [
        WindowKind::Calendar,
        WindowKind::Sidebar,
        WindowKind::Reminders,
        WindowKind::Settings,
    ];

    /// The name used on the command line, as a window label and as the page
    /// name (`<name>.html`).
    pub fn name(self) -> &'static str {
        match self {
            WindowKind::Calendar => "calendar",
            WindowKind::Sidebar => "sidebar",
            WindowKind::Reminders => "reminders",
            WindowKind::Settings => "settings",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

#[derive(Debug, Default)]
pub struct Args {
    pub headless: bool,
    pub vault: Option<PathBuf>,
    pub open: Option<WindowKind>,
    /// `--request-access`: a token to ask the user for, already validated.
    pub request_access: Option<AccessRequest>,
    /// `--new-feed`, `--list-feeds`, `--revoke-feed`: run it and exit.
    pub feed: Option<FeedCommand>,
    pub help: bool,
}

/// What to do with subscription feeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedCommand {
    New {
        name: String,
        calendars: Vec<String>,
    },
    List,
    Revoke(String),
}

impl Args {
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut parsed = Args::default();
        let (mut access_name, mut scopes, mut reason) = (None, None, None);
        let mut calendars = None;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--headless" => parsed.headless = true,
                "-h" | "--help" => parsed.help = true,
                "--vault" => {
                    let dir = args.next().ok_or("--vault needs a directory")?;
                    parsed.vault = Some(PathBuf::from(dir));
                }
                "--open" => {
                    let name = args.next().ok_or("--open needs a window name")?;
                    let kind = WindowKind::from_name(&name).ok_or_else(|| {
                        format!(
                            "--open: unknown window `{name}` (calendar, sidebar, reminders, settings)"
                        )
                    })?;
                    parsed.open = Some(kind);
                }
                "--request-access" => {
                    access_name = Some(args.next().ok_or("--request-access needs a token name")?);
                }
                "--scopes" => {
                    let list = args.next().ok_or("--scopes needs a list of scopes")?;
                    scopes = Some(parse_scopes(&list)?);
                }
                "--reason" => reason = Some(args.next().ok_or("--reason needs a text")?),
                "--new-feed" => {
                    let name = args.next().ok_or("--new-feed needs a name")?;
                    parsed.feed = Some(FeedCommand::New {
                        name,
                        calendars: Vec::new(),
                    });
                }
                "--calendars" => {
                    let list = args.next().ok_or("--calendars needs calendar ids")?;
                    calendars = Some(
                        list.split(',')
                            .map(str::trim)
                            .filter(|id| !id.is_empty())
                            .map(str::to_string)
                            .collect::<Vec<_>>(),
                    );
                }
                "--list-feeds" => parsed.feed = Some(FeedCommand::List),
                "--revoke-feed" => {
                    let id = args.next().ok_or("--revoke-feed needs a feed id")?;
                    parsed.feed = Some(FeedCommand::Revoke(id));
                }
                other => return Err(format!("unknown argument `{other}`")),
            }
        }
        match (&mut parsed.feed, calendars) {
            (Some(FeedCommand::New { calendars, .. }), Some(ids)) if !ids.is_empty() => {
                *calendars = ids
            }
            (Some(FeedCommand::New { .. }), _) => {
                return Err("--new-feed needs --calendars with at least one calendar id".into());
            }
            (_, Some(_)) => return Err("--calendars needs --new-feed".into()),
            _ => {}
        }
        parsed.request_access = match (access_name, scopes) {
            (Some(name), Some(scopes)) => Some(access_request(name, reason, scopes)?),
            (Some(_), None) => return Err("--request-access needs --scopes".into()),
            (None, Some(_)) => return Err("--scopes needs --request-access".into()),
            (None, None) if reason.is_some() => {
                return Err("--reason needs --request-access".into());
            }
            (None, None) => None,
        };
        Ok(parsed)
    }
}

/// `events:read,settings:read` → the scope set; unknown names are refused
/// (a typo must not silently ask for less).
pub fn parse_scopes(list: &str) -> Result<ScopeSet, String> {
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            name.parse::<Scope>().map_err(|unknown| {
                let known: Vec<_> = Scope::ALL.iter().map(|s| s.as_str()).collect();
                format!("--scopes: {unknown} ({})", known.join(", "))
            })
        })
        .collect()
}

/// Checks the request the way the token store will, so a bad one fails here
/// with a usage error instead of as a dialog that can never succeed.
fn access_request(
    name: String,
    reason: Option<String>,
    scopes: ScopeSet,
) -> Result<AccessRequest, String> {
    let checked = NewToken {
        name,
        scopes,
        expiry: Expiry::Never,
    }
    .validated()
    .map_err(|e| format!("--request-access: {e}"))?;
    let reason = reason.unwrap_or_default().trim().to_string();
    if reason.chars().count() > MAX_REASON_CHARS {
        return Err(format!("--reason: at most {MAX_REASON_CHARS} characters"));
    }
    Ok(AccessRequest {
        name: checked.name,
        reason,
        scopes,
    })
}

/// Whether a graphical session is reachable.
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        Args::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn feed_commands_need_their_arguments() {
        assert_eq!(
            parse(&["--new-feed", "Phone", "--calendars", "work, home"])
                .unwrap()
                .feed,
            Some(FeedCommand::New {
                name: "Phone".into(),
                calendars: vec!["work".into(), "home".into()]
            })
        );
        assert!(
            parse(&["--new-feed", "Phone"])
                .unwrap_err()
                .contains("--calendars")
        );
        assert!(
            parse(&["--calendars", "a"])
                .unwrap_err()
                .contains("--new-feed")
        );
        assert_eq!(
            parse(&["--list-feeds"]).unwrap().feed,
            Some(FeedCommand::List)
        );
        assert!(parse(&["--revoke-feed"]).is_err());
    }

    #[test]
    fn open_takes_a_known_window() {
        assert_eq!(
            parse(&["--open", "sidebar"]).unwrap().open,
            Some(WindowKind::Sidebar)
        );
        assert!(
            parse(&["--open", "nope"])
                .unwrap_err()
                .contains("unknown window")
        );
        assert!(parse(&["--open"]).is_err());
    }

    #[test]
    fn request_access_takes_a_valid_name_and_known_scopes() {
        let args = parse(&[
            "--request-access",
            " backup ",
            "--scopes",
            "events:read, settings:read",
            "--reason",
            "nightly export",
        ])
        .unwrap();
        let request = args.request_access.unwrap();
        assert_eq!(
            (request.name.as_str(), request.reason.as_str()),
            ("backup", "nightly export")
        );
        assert_eq!(
            request.scopes.iter().collect::<Vec<_>>(),
            [Scope::EventsRead, Scope::SettingsRead]
        );
        assert_eq!(
            parse(&["--request-access", "x", "--scopes", "events:read"])
                .unwrap()
                .request_access
                .unwrap()
                .reason,
            ""
        );
    }

    #[test]
    fn bad_access_requests_are_usage_errors() {
        let error = |args: &[&str]| parse(args).unwrap_err();
        assert!(
            error(&["--request-access", "x", "--scopes", "events:delete"])
                .contains("unknown scope `events:delete`")
        );
        assert!(
            error(&["--request-access", " ", "--scopes", "events:read"])
                .contains("must not be empty")
        );
        assert!(error(&["--request-access", "x", "--scopes", ","]).contains("scope"));
        assert!(error(&["--request-access", "x"]).contains("needs --scopes"));
        assert!(error(&["--scopes", "events:read"]).contains("needs --request-access"));
        assert!(error(&["--reason", "why"]).contains("needs --request-access"));
        let long = "r".repeat(MAX_REASON_CHARS + 1);
        assert!(
            error(&[
                "--request-access",
                "x",
                "--scopes",
                "events:read",
                "--reason",
                &long
            ])
            .contains("--reason")
        );
    }
}
