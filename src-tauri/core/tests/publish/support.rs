//! An engine with one calendar published to a collection, and the phone
//! (`phone.py`, the Python `caldav` library) on that collection.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use almanac_core::api::{CalendarPlugin, DeclineAll, HeadlessUi};
use almanac_core::calendar::{Calendar, Event};
use almanac_core::clock::SystemClock;
use almanac_core::publish::pass::{Outcome, PassError};
use almanac_core::publish::{Published, Publisher};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{KindSettings, SettingsStore};
use almanac_core::tokens::{HashFileStore, TokenStore};

use crate::common::TestVault;

/// The published calendar's id.
pub const CALENDAR: &str = "notes";

/// A server the core loop runs against: stopped and started again on the
/// same port and storage.
pub trait Server {
    /// The published collection's URL.
    fn collection(&self) -> String;
    fn user(&self) -> &str;
    fn password(&self) -> &str;
    fn stop(&mut self);
    fn resume(&mut self);
}

pub struct Setup {
    pub vault: TestVault,
    pub calendar: Calendar,
    pub settings: Arc<SettingsStore>,
    pub publisher: Arc<Publisher>,
    pub published: Published,
    password: String,
    /// The collection as the phone reaches it (the server itself, when the
    /// sync goes through an [`Interposer`](super::interpose::Interposer)).
    phone_url: String,
}

impl Setup {
    /// A vault whose Full Note calendar `notes` (`events/`, default
    /// reminders 10 minutes before) is published to `server`'s collection,
    /// with `notes`.
    pub fn new(server: &dyn Server, notes: &[(&str, &str)]) -> Setup {
        let full_note = KindSettings::FullNote {
            directory: "events".into(),
        };
        Setup::of(server, full_note, &server.collection(), notes)
    }

    /// A vault whose calendar `notes` of `kind` (default reminders 10
    /// minutes before) is published to `collection` on `server`, with
    /// `notes`.
    pub fn of(
        server: &dyn Server,
        kind: KindSettings,
        collection: &str,
        notes: &[(&str, &str)],
    ) -> Setup {
        let mut vault = TestVault::new();
        vault.settings.calendar_sources = vec![crate::common::source(CALENDAR, kind)];
        vault.settings.reminders.default_reminders = true;
        for (rel, text) in notes {
            vault.write(rel, text);
        }
        let paths = vault.paths();
        let settings = Arc::new(SettingsStore::open(&paths.settings_file()).unwrap());
        settings
            .replace(Actor::User, vault.settings.clone())
            .unwrap();
        let calendar = Calendar::open(&settings.get(), &paths);
        let tokens = Arc::new(
            TokenStore::open(
                paths.tokens_file(),
                Arc::new(HashFileStore::new(paths.token_hashes_file())),
                Arc::new(SystemClock),
            )
            .unwrap(),
        );
        let plugin = Arc::new(CalendarPlugin::new(
            settings.clone(),
            calendar.clone(),
            tokens,
            Arc::new(HeadlessUi),
            Arc::new(DeclineAll),
        ));
        let publisher = Arc::new(Publisher::new(
            plugin,
            calendar.clone(),
            settings.clone(),
            &paths,
        ));
        Setup {
            vault,
            calendar,
            settings,
            publisher,
            published: Published {
                calendar_id: CALENDAR.into(),
                collection_url: collection.into(),
                username: server.user().into(),
            },
            password: server.password().into(),
            phone_url: collection.into(),
        }
    }

    /// The sync goes to the collection at `url` (a proxy in front of it);
    /// the phone still to the server itself. Before the first pass.
    pub fn sync_through(&mut self, url: String) {
        self.published.collection_url = url;
    }

    /// The calendar is now kept in the collection at `url`, for the sync
    /// and the phone alike.
    pub fn publish_to(&mut self, url: String) {
        self.phone_url = url.clone();
        self.published.collection_url = url;
    }

    pub fn try_sync(&self) -> Result<Outcome, PassError> {
        self.publisher.sync(&self.published, &self.password)
    }

    /// One pass, which must get through.
    pub fn sync(&self) -> Outcome {
        self.try_sync().expect("the pass gets through")
    }

    /// Runs the phone with `args`; its output.
    pub fn phone(&self, args: &[&str]) -> String {
        run_phone(self.phone_command(args))
    }

    /// The phone's command with `args`, to run later ([`run_phone`]).
    pub fn phone_command(&self, args: &[&str]) -> Command {
        let python = almanac_testkit::venv("caldav-venv.sh").join("bin/python");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/publish/phone.py");
        let mut command = Command::new(&python);
        command
            .arg(&script)
            .arg(&self.phone_url)
            .arg(&self.published.username)
            .arg(&self.password)
            .args(args);
        command
    }

    /// What the phone sees: each event's calendar text by UID.
    pub fn on_phone(&self) -> BTreeMap<String, String> {
        serde_json::from_str(&self.phone(&["list"])).unwrap()
    }

    /// The calendar's events (the series once, not per occurrence).
    pub fn events(&self) -> Vec<Event> {
        self.calendar
            .source_events(CALENDAR)
            .expect("the calendar is there")
    }

    /// The event titled `title`.
    pub fn titled(&self, title: &str) -> Event {
        self.events()
            .into_iter()
            .find(|e| e.title == title)
            .unwrap_or_else(|| panic!("no event `{title}` in {:?}", self.titles()))
    }

    pub fn titles(&self) -> Vec<String> {
        let mut titles: Vec<String> = self.events().into_iter().map(|e| e.title).collect();
        titles.sort();
        titles
    }

    /// The text of the note of the event with `uid`, and its path.
    pub fn note(&self, uid: &str) -> (String, String) {
        let event = self
            .events()
            .into_iter()
            .find(|e| e.uid.as_deref() == Some(uid))
            .unwrap_or_else(|| panic!("no note with UID {uid} in {:?}", self.titles()));
        let rel = event.file_path.unwrap();
        let text = self.vault.read(&rel);
        (rel, text)
    }

    /// Replaces `from` with `to` in the note at `rel`, as an editor would,
    /// and has the engine read it now.
    pub fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.vault.read(rel);
        assert!(text.contains(from), "{rel}: {text}");
        let path = self.vault.write(rel, &text.replacen(from, to, 1));
        self.calendar.refresh_path(&path);
    }

    /// Renames the note at `rel` to `to`, as Obsidian would.
    pub fn rename(&self, rel: &str, to: &str) {
        let (from, into) = (self.vault.vault().join(rel), self.vault.vault().join(to));
        std::fs::rename(&from, &into).unwrap();
        self.calendar.refresh_path(&from);
        self.calendar.refresh_path(&into);
    }

    /// Deletes the note at `rel`.
    pub fn remove(&self, rel: &str) {
        let path = self.vault.vault().join(rel);
        std::fs::remove_file(&path).unwrap();
        self.calendar.refresh_path(&path);
    }
}

/// Runs the phone's `command`; its output, which must say it succeeded.
pub fn run_phone(mut command: Command) -> String {
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "phone {command:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The value of `name` in a calendar text (its first line of that name).
pub fn property(ics: &str, name: &str) -> Option<String> {
    ics.lines()
        .map(|l| l.trim_end_matches('\r'))
        .find(|l| l.starts_with(&format!("{name}:")) || l.starts_with(&format!("{name};")))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.to_string())
}
