//! One notification per occurrence when a host (the Full Calendar plugin)
//! and the vault both remind of the same event.
//!
//! A host reminder and a vault reminder are the same occurrence when they
//! have the same id (a host that names reminders `<event id>::<start>` as
//! Almanac does), or when they open the same note and trigger at the same
//! second (the plugin's ids are per-session counters, so only its
//! `obsidian://open?…&file=<path>` link and its trigger identify the event).
//!
//! The vault's reminder wins: Almanac reads the note itself, so its reminder
//! has a stable id, no 24-hour horizon, and follows edits while Obsidian is
//! closed. The host's copy stays in the host's set (a later `/sync` still
//! replaces it) but is not scheduled. Once either copy has been shown, the
//! other is not shown either: firing records a key per note and trigger, kept
//! as long as every fired key (see [`crate::schedule`]).

use std::borrow::Cow;
use std::collections::HashSet;

use crate::reminder::{Reminder, Source};

/// The note `reminder` opens, relative to the vault, without `.md`: a vault
/// reminder's own event path, or the `file` parameter of a host's
/// `obsidian://open` link (Obsidian accepts it with or without `.md`).
pub fn note_of(reminder: &Reminder) -> Option<Cow<'_, str>> {
    let path: Cow<'_, str> = match (&reminder.event, reminder.source) {
        (Some(event), _) => Cow::Borrowed(&event.path),
        (None, Source::Vault) => return None,
        (None, Source::Host) => Cow::Owned(obsidian_file(&reminder.action_url)?),
    };
    Some(match path {
        Cow::Borrowed(path) => Cow::Borrowed(path.strip_suffix(".md").unwrap_or(path)),
        Cow::Owned(path) => Cow::Owned(path.strip_suffix(".md").unwrap_or(&path).to_owned()),
    })
}

/// The `file` parameter of an `obsidian://open?…` URL, decoded.
fn obsidian_file(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    if !url.scheme().eq_ignore_ascii_case("obsidian") || url.host_str() != Some("open") {
        return None;
    }
    url.query_pairs()
        .find(|(key, _)| key == "file")
        .map(|(_, file)| file.replace('\\', "/"))
        .filter(|file| !file.is_empty())
}

/// The fired-key id that records "`source`'s reminder for `note` fired".
/// It starts with a NUL, which no reminder id may contain, so it can never
/// be mistaken for one.
pub fn note_fired_id(source: Source, note: &str) -> String {
    let source = match source {
        Source::Host => "host",
        Source::Vault => "vault",
    };
    format!("\0note\0{source}\0{note}")
}

/// Whether a fired-key id is a note key rather than a reminder's id.
pub fn is_note_key(id: &str) -> bool {
    id.starts_with('\0')
}

/// Whether `id` is a note key recorded by `source`'s reminders.
pub fn is_note_key_of(source: Source, id: &str) -> bool {
    id.starts_with(&note_fired_id(source, ""))
}

/// The note key `reminder` records when it fires, if it opens a note.
pub fn fired_note_key(reminder: &Reminder) -> Option<String> {
    note_of(reminder).map(|note| note_fired_id(reminder.source, &note))
}

/// The pending vault set, indexed to answer "does a vault reminder stand for
/// this host reminder?".
#[derive(Debug, Default)]
pub struct VaultCover<'a> {
    ids: HashSet<&'a str>,
    notes: HashSet<(Cow<'a, str>, i64)>,
}

impl<'a> VaultCover<'a> {
    pub fn of(vault: impl IntoIterator<Item = &'a Reminder>) -> Self {
        let mut cover = Self::default();
        for reminder in vault {
            cover.ids.insert(&reminder.id);
            if let Some(note) = note_of(reminder) {
                cover.notes.insert((note, reminder.trigger_at_epoch));
            }
        }
        cover
    }

    /// Whether a vault reminder is the same occurrence as `host`.
    pub fn covers(&self, host: &Reminder) -> bool {
        self.ids.contains(host.id.as_str())
            // The link is read only when it can match: a host's large set
            // with no vault set beside it stays cheap.
            || (!self.notes.is_empty()
                && note_of(host)
                    .is_some_and(|note| self.notes.contains(&(note, host.trigger_at_epoch))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reminder::EventRef;

    fn host(id: &str, trigger: i64, url: &str) -> Reminder {
        Reminder::from_host(id.into(), "T".into(), String::new(), trigger, url.into())
    }

    fn vault(id: &str, trigger: i64, path: &str) -> Reminder {
        Reminder {
            source: Source::Vault,
            event: Some(Box::new(EventRef {
                id: "fullnote:x".into(),
                title: "T".into(),
                path: path.into(),
                start: "2026-11-23T09:30".into(),
            })),
            ..host(id, trigger, "")
        }
    }

    #[test]
    fn the_plugin_link_names_the_note_with_or_without_md() {
        let plugin = host(
            "17",
            1,
            "obsidian://open?vault=My%20Vault&file=events%2F2026-11-23%20Standup.md",
        );
        assert_eq!(
            note_of(&plugin).as_deref(),
            Some("events/2026-11-23 Standup")
        );
        let short = host("1", 1, "obsidian://open?vault=V&file=events/Standup");
        assert_eq!(note_of(&short).as_deref(), Some("events/Standup"));
        for url in ["", "https://example.org/?file=x", "obsidian://open?vault=V"] {
            assert_eq!(note_of(&host("1", 1, url)), None, "{url}");
        }
        let mine = vault("v", 1, "events/2026-11-23 Standup.md");
        assert_eq!(note_of(&mine).as_deref(), Some("events/2026-11-23 Standup"));
    }

    #[test]
    fn a_vault_reminder_covers_the_same_id_or_the_same_note_and_second() {
        let mine = [
            vault("fullnote:events/A.md::2026-11-23T09:30", 100, "events/A.md"),
            vault("fullnote:events/B.md::2026-11-23T10:00", 200, "events/B.md"),
        ];
        let cover = VaultCover::of(&mine);
        // The same id, whatever the link and trigger.
        assert!(cover.covers(&host("fullnote:events/A.md::2026-11-23T09:30", 90, "")));
        // The plugin's session id: matched by note and trigger second.
        let b = "obsidian://open?vault=V&file=events%2FB.md";
        assert!(cover.covers(&host("17", 200, b)));
        assert!(!cover.covers(&host("17", 260, b)), "another trigger");
        assert!(!cover.covers(&host(
            "18",
            200,
            "obsidian://open?vault=V&file=events%2FC.md"
        )));
        assert!(!cover.covers(&host("19", 200, "")), "no note, no match");
    }

    #[test]
    fn note_keys_never_collide_with_ids_and_name_their_source() {
        let key = fired_note_key(&vault("v", 1, "events/A.md")).unwrap();
        assert!(is_note_key(&key) && !is_note_key("17"));
        assert_ne!(key, note_fired_id(Source::Host, "events/A"));
        assert_eq!(key, note_fired_id(Source::Vault, "events/A"));
        assert_eq!(fired_note_key(&host("h", 1, "")), None);
    }
}
