//! Command-line arguments. Few enough that a hand-rolled parser stays clearer
//! than a dependency.

use std::path::PathBuf;

pub const USAGE: &str = "\
Usage: almanac [--headless] [--vault DIR] [--open WINDOW]

  --headless     run the calendar REST server and the reminder daemon with no
                 windows (the default when no display is available)
  --vault DIR    use DIR as the vault (saved to settings)
  --open WINDOW  open a window at start: calendar, sidebar, reminders or
                 settings (a second launch opens it in the running instance)
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
    pub help: bool,
}

impl Args {
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut parsed = Args::default();
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
                other => return Err(format!("unknown argument `{other}`")),
            }
        }
        Ok(parsed)
    }
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
}
