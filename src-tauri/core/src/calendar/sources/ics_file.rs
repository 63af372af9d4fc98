//! The `icsfile` kind: a read-only calendar read from one `.ics` file in
//! the vault (an export, a calendar another tool writes there). The file is
//! found and watched as notes are, so an edit to it shows without a
//! restart, and read by the one iCalendar reader (`ical::parse`) with a
//! feed's bounds.
//!
//! A file that cannot be read at all (not iCalendar, past a bound such as
//! components nested too deep) gives no events and a status naming it; a
//! bad item in it is left out and named, the rest shows.

use chrono_tz::Tz;

use super::{ParsedNote, SourceConfig, ical};
use crate::ics::bounds::Limits;
use almanac_model::status::SkippedNote;

/// Reads the file at vault-relative `path` into cache entries.
pub fn parse_note(source: &SourceConfig, path: &str, text: &str, display_tz: Tz) -> ParsedNote {
    match ical::parse(source, text, display_tz, &Limits::FEED) {
        Ok(parsed) => {
            let mut note = parsed.note;
            // The reader names items by source id (a feed has no path);
            // here the file is what the user can open.
            for skipped in &mut note.skipped {
                if let Some(rest) = skipped.path.strip_prefix(source.id.as_str()) {
                    skipped.path = format!("{path}{rest}");
                }
            }
            note
        }
        Err(reason) => ParsedNote {
            entries: vec![],
            skipped: vec![SkippedNote {
                path: path.to_string(),
                reason: format!("not read as iCalendar: {reason}"),
            }],
        },
    }
}

/// The source's status: why the file, or some of its items, could not be
/// read (`skipped` as [`parse_note`] reported them), or that it is missing.
pub fn status(path: &str, present: bool, skipped: &[&SkippedNote]) -> Option<String> {
    if !present {
        return Some(format!("`{path}` is not in the vault (or is not a file)"));
    }
    let first = skipped.first()?;
    let more = match skipped.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Some(format!("{}: {}{more}", first.path, first.reason))
}
