//! Command-line arguments. Few enough that a hand-rolled parser stays clearer
//! than a dependency.

use std::path::PathBuf;

pub const USAGE: &str = "\
Usage: almanac [--headless] [--vault DIR]

  --headless    run the calendar REST server and the reminder daemon with no
                windows (the default when no display is available)
  --vault DIR   use DIR as the vault (saved to settings)
  -h, --help    show this help

Config: $XDG_CONFIG_HOME/almanac/settings.json   Data: $XDG_DATA_HOME/almanac/
Log level: ALMANAC_LOG=debug";

#[derive(Debug, Default)]
pub struct Args {
    pub headless: bool,
    pub vault: Option<PathBuf>,
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
