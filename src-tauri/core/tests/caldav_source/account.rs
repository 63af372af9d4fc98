//! Setting a CalDAV account up as Settings does (discovery with the given
//! credentials, a pick among several calendars, the password into the real
//! OS keyring, the source into the settings file), changing its password,
//! and the calendar URL discovered at sync time written back into settings.

use std::sync::Arc;
use std::time::Duration;

use almanac_core::calendar::Calendar;
use almanac_core::calendar::sources::caldav::account::{
    self, Added, NewCalendar, SetupError, remember_calendar_url,
};
use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::settings::{KindSettings, Settings, SettingsStore};
use almanac_testkit::wait_until;

use crate::caldav_source::common::TestVault;
use crate::caldav_source::radicale::{PASSWORD, Radicale, USER};
use crate::caldav_source::setup::{Setup, vevent};

/// A settings store (a real file) over `vault`'s settings, followed by a
/// calendar engine, as in the app.
struct App {
    file: std::path::PathBuf,
    store: Arc<SettingsStore>,
    calendar: Calendar,
}

impl App {
    fn new(vault: &TestVault) -> App {
        let file = vault.dir.path().join("settings.json");
        std::fs::write(&file, serde_json::to_vec(&vault.settings).unwrap()).unwrap();
        let store = Arc::new(SettingsStore::open(&file).unwrap());
        let calendar = Calendar::open(&store.get(), &vault.paths());
        calendar.follow(&store);
        App {
            file,
            store,
            calendar,
        }
    }

    /// The settings file as written on disk.
    fn file(&self) -> String {
        std::fs::read_to_string(&self.file).unwrap()
    }

    /// Waits (on the store's change channel) until `ready` holds.
    fn settings_until(&self, what: &str, ready: impl Fn(&Settings) -> bool) -> Arc<Settings> {
        let mut changes = self.store.subscribe();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(60), async {
                loop {
                    let now = changes.borrow_and_update().clone();
                    if ready(&now) {
                        return now;
                    }
                    changes.changed().await.unwrap();
                }
            })
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
        })
    }
}

fn form(server: &str, password: &str) -> NewCalendar {
    NewCalendar {
        name: String::new(),
        color: "#3366cc".into(),
        url: server.into(),
        username: USER.into(),
        password: password.into(),
        calendar_url: None,
    }
}

fn calendar_url(settings: &Settings, id: &str) -> Option<String> {
    settings
        .calendar_sources
        .iter()
        .find(|s| s.id == id)
        .and_then(|s| match &s.kind {
            KindSettings::Caldav { calendar_url, .. } => Some(calendar_url.clone()),
            _ => None,
        })
}

#[test]
fn an_account_is_added_with_its_password_in_the_keyring_only() {
    let server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let vault = TestVault::new().with_timezone("Europe/Berlin");
    let app = App::new(&vault);
    let passwords = Passwords::default();
    let before = app.file();

    // Refusals name their field, in plain words, and store nothing.
    let refused =
        |new: &NewCalendar| account::add(&app.store, &app.calendar, &passwords, new).unwrap_err();
    let wrong = refused(&form(&server.url("/"), "wrong"));
    assert_eq!(wrong.field, "password");
    assert!(wrong.message.contains("refused"), "{wrong:?}");
    let bad: SetupError = refused(&form("cloud.example.com", PASSWORD));
    assert_eq!(bad.field, "url");
    assert!(bad.message.contains("https://"), "{bad:?}");
    let mut stopped = Radicale::start();
    let down = stopped.url("/");
    stopped.stop();
    let unreachable = refused(&form(&down, PASSWORD));
    assert_eq!(unreachable.field, "url");
    assert!(
        unreachable.message.contains("cannot reach 127.0.0.1"),
        "{unreachable:?}"
    );
    let mut nameless = form(&server.url("/"), PASSWORD);
    nameless.username = " ".into();
    assert_eq!(refused(&nameless).field, "username");
    assert_eq!(app.file(), before, "nothing written");
    assert_eq!(passwords.get("caldav_1").unwrap(), None, "nothing kept");

    // From the server's root: discovery finds the one calendar.
    let added = account::add(
        &app.store,
        &app.calendar,
        &passwords,
        &form(&server.url("/"), PASSWORD),
    );
    let Ok(Added::Added { id }) = added else {
        panic!("{added:?}");
    };
    assert_eq!(id, "caldav_1");
    let settings = app.store.get();
    let source = settings
        .calendar_sources
        .iter()
        .find(|s| s.id == id)
        .unwrap();
    assert_eq!(source.name, "Work", "the server's name for it");
    assert_eq!(calendar_url(&settings, &id).unwrap(), server.calendar());
    assert_eq!(passwords.get(&id).unwrap().as_deref(), Some(PASSWORD));
    let file = app.file();
    assert!(file.contains(&server.calendar()), "{file}");
    assert!(!file.contains(PASSWORD), "no password in the settings file");
    wait_until(&app.calendar, "the server's event", |c| {
        c.sources().iter().any(|s| s.id == id && s.event_count == 1)
    });

    // The same calendar again is refused.
    let twice = refused(&form(&server.url("/"), PASSWORD));
    assert!(twice.message.contains("already"), "{twice:?}");

    // A second calendar on the account: the user picks.
    server.mkcalendar("home", "Home");
    let several = account::add(
        &app.store,
        &app.calendar,
        &passwords,
        &form(&server.url("/"), PASSWORD),
    );
    let Ok(Added::Choose { calendars }) = several else {
        panic!("{several:?}");
    };
    let mut names: Vec<_> = calendars.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["Home", "Work"]);
    let mut picked = form(&server.url("/"), PASSWORD);
    picked.name = "At home".into();
    picked.calendar_url = Some(server.url("/alice/home/"));
    let Ok(Added::Added { id: second }) =
        account::add(&app.store, &app.calendar, &passwords, &picked)
    else {
        panic!("the picked calendar is added");
    };
    assert_eq!(second, "caldav_2");
    assert_eq!(
        calendar_url(&app.store.get(), &second).as_deref(),
        Some(server.url("/alice/home/").as_str())
    );

    // A new password is checked with the server before it is kept.
    let refused = account::change_password(&app.store, &app.calendar, &passwords, &id, "nope");
    assert_eq!(refused.unwrap_err().field, "password");
    assert_eq!(passwords.get(&id).unwrap().as_deref(), Some(PASSWORD));
    server.set_password("new horse");
    account::change_password(&app.store, &app.calendar, &passwords, &id, "new horse").unwrap();
    assert_eq!(passwords.get(&id).unwrap().as_deref(), Some("new horse"));

    // Removing a calendar forgets its password; the other one keeps its own.
    let rest: Vec<_> = app
        .store
        .get()
        .calendar_sources
        .iter()
        .filter(|s| s.id != second)
        .cloned()
        .collect();
    app.store
        .update(
            almanac_core::settings::class::Actor::User,
            &serde_json::json!({ "calendarSources": rest }),
        )
        .unwrap();
    app.calendar.catch_up(&app.store);
    assert_eq!(passwords.get(&second).unwrap(), None);
    assert_eq!(passwords.get(&id).unwrap().as_deref(), Some("new horse"));
    passwords.delete(&id).unwrap();
}

#[test]
fn a_calendar_url_discovered_at_sync_time_is_written_into_settings() {
    let server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    // The vault's settings name the server only, as an import leaves them.
    let setup = Setup::correct("writeback", &server);
    let id = setup.id.clone();
    let app = App::new(&setup.vault);
    let settings = app.settings_until("the discovered calendar URL", |s| {
        calendar_url(s, &id).is_some_and(|url| !url.is_empty())
    });
    assert_eq!(calendar_url(&settings, &id).unwrap(), server.calendar());
    assert!(app.file().contains(&server.calendar()), "on disk too");
    // The sources rebuilt for the new settings show what that first sync
    // read, without waiting for the next one (none is asked for here).
    wait_until(&app.calendar, "the first sync's event", |calendar| {
        setup.titles(calendar) == ["Standup"]
    });

    // Only a source still without one, still on that server, is changed.
    assert!(
        remember_calendar_url(&app.store, &id, &server.url("/"), "http://elsewhere/")
            .unwrap()
            .is_none()
    );
    assert_eq!(
        calendar_url(&app.store.get(), &id).unwrap(),
        server.calendar()
    );
}

/// The original plugin (`obsidian-full-calendar`) keeps CalDAV passwords in
/// its settings file, for event calendars (`caldav`) and, in Remastered's
/// shape, task lists (`caldavtasks`) alike.
#[test]
fn a_password_the_plugin_kept_moves_into_the_keyring_on_import() {
    let id = format!("caldav-import-{}", std::process::id());
    let tasks_id = format!("caldavtasks-import-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join(almanac_core::onboarding::ORIGINAL_SETTINGS);
    std::fs::create_dir_all(plugin.parent().unwrap()).unwrap();
    let data = serde_json::json!({"calendarSources": [
        {"type": "caldav", "id": id, "name": "Radicale", "url": "http://dav.example.org/",
         "username": "alice", "password": "plugin secret"},
        {"type": "caldavtasks", "id": tasks_id, "name": "Chores", "url": "http://dav.example.org/",
         "homeUrl": "http://dav.example.org/alice/chores/", "username": "alice",
         "password": " task secret "}
    ]});
    std::fs::write(&plugin, data.to_string()).unwrap();
    let plan = almanac_core::onboarding::plan_import(dir.path()).unwrap();
    assert_eq!(plan.passwords_to_keyring, ["Radicale", "Chores"]);
    let passwords = Passwords::default();

    // Sources not applied (the user has their own): no password is stored.
    let untouched = serde_json::json!({"vaultName": "x"});
    assert_eq!(plan.store_passwords(&untouched, &passwords).unwrap(), 0);
    assert_eq!(passwords.get(&id).unwrap(), None);

    let patch = plan.settings_patch(&Settings::default()).unwrap();
    assert!(
        !patch.to_string().contains("plugin secret") && !patch.to_string().contains("task secret"),
        "never in settings"
    );
    assert_eq!(plan.store_passwords(&patch, &passwords).unwrap(), 2);
    assert_eq!(
        passwords.get(&id).unwrap().as_deref(),
        Some("plugin secret")
    );
    // Taken as written, spaces and all.
    assert_eq!(
        passwords.get(&tasks_id).unwrap().as_deref(),
        Some(" task secret ")
    );
    passwords.delete(&id).unwrap();
    passwords.delete(&tasks_id).unwrap();
}
