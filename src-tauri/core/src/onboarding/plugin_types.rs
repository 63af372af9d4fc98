//! The Full Calendar plugins' calendar source types, each mapped to an
//! Almanac source kind or to the reason it is not imported.
//!
//! Both plugins keep a source as one object in `calendarSources`, told apart
//! by `type` (Full Calendar Remastered's `types/calendar_settings.ts`; the
//! original plugin knows `local`, `dailynote`, `ical` and `caldav`, and has
//! neither ids nor names except on CalDAV sources). Remastered's settings
//! code also reads a source's fields from a nested `config` object, so a
//! field is looked up there when the object itself lacks it.
//!
//! [`map_source`] holds the whole mapping in one `match` on the type string:
//! a type Almanac comes to read is one arm changed, and no known type can
//! fall through to a default.

use std::path::Path;

use serde_json::Value;

use super::read_bounded;
use crate::calendar::sources::dailyconfig;
use crate::settings::{KindSettings, TaskDateField};

/// Where the Journals plugin (id `journals`) keeps its settings, relative to
/// the vault: remastered's `journals` sources name one of its journals.
pub const JOURNALS_SETTINGS: &str = ".obsidian/plugins/journals/data.json";

/// One entry of the plugin's `calendarSources`.
#[derive(Clone, Copy)]
pub(super) struct Entry<'a>(pub &'a Value);

impl<'a> Entry<'a> {
    /// The field `key`, from the entry or its nested `config`.
    pub fn field(&self, key: &str) -> Option<&'a Value> {
        self.0
            .get(key)
            .or_else(|| self.0.get("config").and_then(|config| config.get(key)))
    }

    /// The text field `key`, trimmed; `None` when missing or empty.
    pub fn text(&self, key: &str) -> Option<&'a str> {
        self.field(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    }

    fn required(&self, key: &str) -> Result<&'a str, String> {
        self.text(key).ok_or_else(|| format!("`{key}` is missing"))
    }
}

/// The Almanac source kind for a plugin source of type `kind`, or why it is
/// not imported. `vault` is read for what the entry refers to (the Journals
/// plugin's settings, Obsidian's Daily notes settings), never written.
pub(super) fn map_source(entry: Entry, kind: &str, vault: &Path) -> Result<KindSettings, String> {
    match kind {
        "local" => Ok(KindSettings::FullNote {
            directory: entry.required("directory")?.to_string(),
        }),
        // The early Journals integration: a daily-note source whose
        // `provider` is `journals` (the plugin migrates it to `journals`).
        "dailynote" if entry.text("provider") == Some("journals") => journal(entry, vault),
        // No folder of its own: the notes' folder comes from Obsidian's
        // Daily notes settings, as in Almanac.
        "dailynote" => Ok(KindSettings::DailyNote {
            directory: String::new(),
            heading: entry.required("heading")?.to_string(),
        }),
        "journals" => journal(entry, vault),
        "ical" => ical(entry),
        // A CalDAV task list is a calendar collection too; discovery finds
        // it from the same addresses.
        "caldav" | "caldavtasks" => caldav(entry),
        // The plugin's Tasks source has no folder: the whole vault. Its
        // date field is a plugin-wide setting ([`tasks_date_field`]).
        "tasks" => Ok(KindSettings::Tasks {
            directory: String::new(),
            date_field: TaskDateField::default(),
        }),
        "holidays" => holidays(entry),
        "google" => Err(
            "Google Calendar is read through Google's sign-in, which Almanac does \
             not have: add the calendar's secret address in iCal format (Google Calendar › \
             Settings › Integrate calendar) as an ICS feed, or sync it to a CalDAV server and \
             add that as a CalDAV calendar"
                .into(),
        ),
        "googletasks" => Err(
            "Google Tasks is read through Google's sign-in, which Almanac \
             does not have, and has no ICS address: keep these tasks in a CalDAV task list \
             (added as a CalDAV calendar) or in the vault"
                .into(),
        ),
        "outlook" => Err(
            "Outlook is read through Microsoft's sign-in, which Almanac does not \
             have: publish the calendar in Outlook (Settings › Calendar › Shared calendars) and \
             add its ICS link as an ICS feed, or sync it to a CalDAV server and add that as a \
             CalDAV calendar"
                .into(),
        ),
        "tasknotes" => Err(
            "TaskNotes tasks are read through the TaskNotes plugin inside \
             Obsidian, which Almanac cannot run: keep them in Full Calendar in Obsidian"
                .into(),
        ),
        "bases" => Err(
            "a Bases view is computed by Obsidian itself, which Almanac cannot run: \
             add the folder of its notes as a notes-folder calendar if they carry Full \
             Calendar's event fields"
                .into(),
        ),
        unknown => Err(format!("unknown calendar type {unknown}")),
    }
}

/// The date that places a task, from Full Calendar Remastered's
/// `tasksIntegration.calendarDisplayDateTarget`, whose default is the
/// scheduled date (the original plugin has no Tasks sources).
pub(super) fn tasks_date_field(settings: &serde_json::Map<String, Value>) -> TaskDateField {
    match settings
        .get("tasksIntegration")
        .and_then(|tasks| tasks.get("calendarDisplayDateTarget"))
        .and_then(Value::as_str)
    {
        Some("dueDate") => TaskDateField::Due,
        Some("startDate") => TaskDateField::Start,
        _ => TaskDateField::Scheduled,
    }
}

/// The name the plugin gives a source that has none (its settings
/// migration does the same), except that a feed is named by its host, not
/// its address: an ICS address often carries a secret.
pub(super) fn default_name(entry: Entry, kind: &str) -> String {
    let named = match kind {
        "local" => entry.text("directory").map(str::to_string),
        "dailynote" => Some("Daily Note".to_string()),
        "tasks" => Some("Tasks".to_string()),
        "holidays" => Some("Holidays".to_string()),
        "journals" => entry.text("journalId").map(|id| format!("Journals: {id}")),
        "ical" => entry
            .text("url")
            .and_then(|url| url::Url::parse(url).ok())
            .and_then(|url| url.host_str().map(str::to_string)),
        _ => None,
    };
    named.unwrap_or_else(|| "Unnamed Calendar".to_string())
}

/// An ICS source: an http(s) or `webcal` address is a feed (the plugin
/// fetches `webcal://` as `https://`); anything else is a file in the vault.
fn ical(entry: Entry) -> Result<KindSettings, String> {
    let url = entry.required("url")?;
    let (scheme, rest) = url.split_once("://").unwrap_or_default();
    let url = match scheme.to_ascii_lowercase().as_str() {
        "http" | "https" => url.to_string(),
        "webcal" | "webcals" => format!("https://{rest}"),
        // No scheme: the plugin reads it as a file of the vault.
        "" => return ics_file(url),
        _ => return Err(format!("ICS url `{url}` is not http(s) or webcal")),
    };
    Ok(KindSettings::Ical {
        url,
        allow_private_network: false,
    })
}

/// A vault `.ics` file, by its vault-relative path as the plugin reads it.
fn ics_file(path: &str) -> Result<KindSettings, String> {
    checked(KindSettings::IcsFile {
        path: path.to_string(),
    })
}

/// Remastered's holiday calendar (`date-holidays` underneath): its
/// `country` and `state` codes are ISO 3166's, as Almanac's data's are.
/// One the data does not have is skipped with why, not imported broken.
fn holidays(entry: Entry) -> Result<KindSettings, String> {
    checked(KindSettings::Holidays {
        country: entry.required("country")?.to_ascii_uppercase(),
        subdivision: entry.text("state").unwrap_or_default().to_ascii_uppercase(),
    })
}

/// `kind` if the settings will take it, else why not (the plan applies as
/// one settings change, which one bad source would refuse whole).
fn checked(kind: KindSettings) -> Result<KindSettings, String> {
    match kind.invalid_field() {
        Some((_, why)) => Err(why),
        None => Ok(kind),
    }
}

/// The plugin's CalDAV entry: where discovery starts, and the user name.
/// Plugin versions differ on what `url` and `homeUrl` hold (the server, the
/// calendar home or the calendar itself), but the deeper of the two is the
/// closest to the calendar, and discovery takes an address that is a
/// calendar as it is. The password, if any, goes to the keyring.
fn caldav(entry: Entry) -> Result<KindSettings, String> {
    let address = |key: &str| {
        entry
            .text(key)
            .filter(|url| url.starts_with("http://") || url.starts_with("https://"))
    };
    let url = address("url").ok_or("CalDAV `url` is missing or not http(s)")?;
    let username = entry.required("username")?;
    let depth = |url: &str| url.trim_end_matches('/').matches('/').count();
    let deepest = match address("homeUrl") {
        Some(home) if depth(home) > depth(url) => home,
        _ => url,
    };
    Ok(KindSettings::Caldav {
        url: deepest.to_string(),
        username: username.to_string(),
        calendar_url: String::new(),
    })
}

/// A Journals source: a daily-note calendar in the journal's folder, when
/// the Journals plugin's settings say where that is and name the notes as
/// Almanac reads daily notes (Obsidian's Daily notes date format).
fn journal(entry: Entry, vault: &Path) -> Result<KindSettings, String> {
    let id = entry.required("journalId")?;
    let heading = entry.required("heading")?.to_string();
    let settings = read_journals(vault)?;
    let journals = settings
        .get("journals")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{JOURNALS_SETTINGS} has no `journals`"))?;
    // Keyed by the journal's id; the plugin's API looks journals up by name.
    let journal = journals
        .get(id)
        .or_else(|| {
            journals
                .values()
                .find(|journal| journal.get("name").and_then(Value::as_str) == Some(id))
        })
        .ok_or_else(|| format!("the Journals plugin has no journal `{id}`"))?;
    let setting = |key: &str| journal.get(key).and_then(Value::as_str).map(str::trim);
    let write = journal
        .get("write")
        .and_then(|write| write.get("type"))
        .and_then(Value::as_str);
    if write != Some("day") {
        return Err(format!("journal `{id}` is not a daily journal"));
    }
    let folder = setting("folder").unwrap_or_default().trim_matches('/');
    if folder.contains("{{") {
        return Err(format!(
            "journal `{id}` files its notes in folders made from their date (`{folder}`), \
             which Almanac does not follow yet"
        ));
    }
    let template = setting("nameTemplate").unwrap_or("{{date}}");
    if template != "{{date}}" {
        return Err(format!(
            "journal `{id}` names its notes `{template}`; Almanac reads daily notes named by \
             their date alone"
        ));
    }
    let daily = dailyconfig::read(vault).format?;
    let format = setting("dateFormat").unwrap_or("YYYY-MM-DD");
    if format != daily.pattern() {
        return Err(format!(
            "journal `{id}` names its notes `{format}`, while Almanac reads daily notes named as \
             Obsidian's Daily notes settings say (`{}`)",
            daily.pattern()
        ));
    }
    Ok(KindSettings::DailyNote {
        // `.` is the vault's root; an empty folder would mean Obsidian's
        // Daily notes folder instead.
        directory: if folder.is_empty() { "." } else { folder }.to_string(),
        heading,
    })
}

/// The Journals plugin's settings object, or why it cannot be read.
fn read_journals(vault: &Path) -> Result<serde_json::Map<String, Value>, String> {
    let cannot = |why: String| format!("the Journals plugin's settings cannot be read: {why}");
    let text = match read_bounded(&vault.join(JOURNALS_SETTINGS)) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "the Journals plugin's settings ({JOURNALS_SETTINGS}) are not in the vault"
            ));
        }
        Err(e) => return Err(cannot(e.to_string())),
    };
    serde_json::from_str(&text).map_err(|e| cannot(e.to_string()))
}
