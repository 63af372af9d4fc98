//! Publishing from Settings (`publish::setup`) to a collection made for the
//! calendar (`publish::collection`, `MKCALENDAR`) on real servers: it has
//! the calendar's name and colour, the events arrive in it, the password is
//! in the real keyring (inside session.sh) and nowhere else, stopping
//! removes both, and a server that refuses is a clear error that stores
//! nothing.

use almanac_core::calendar::sources::caldav::DavClient;
use almanac_core::calendar::sources::caldav::discover;
use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::publish::setup::{self, Account};
use almanac_core::publish::{collection, password_key};
use almanac_testkit::radicale::{PASSWORD, Radicale, USER};
use reqwest::Url;

use almanac_core::publish::Published;
use almanac_core::settings::KindSettings;
use almanac_core::settings::class::Actor;

use crate::publish::support::{Server, Setup};

/// A second calendar of the setup's notes folder, `id` (one per test: the
/// keyring is the session's, shared by the tests running at once), is the
/// one these tests publish.
fn second_calendar(setup: &mut Setup, id: &str) {
    let source = crate::common::source(
        id,
        KindSettings::FullNote {
            directory: "events".into(),
        },
    );
    setup
        .settings
        .update_from(Actor::User, |current| {
            let mut sources = current.calendar_sources.clone();
            sources.push(source);
            Some(serde_json::json!({ "calendarSources": sources }))
        })
        .unwrap();
    setup.calendar.catch_up(&setup.settings);
    setup.published = Published {
        calendar_id: id.into(),
        ..setup.published.clone()
    };
}

/// The address a user enters for `server`: its root.
fn root(server: &dyn Server) -> String {
    let collection = Url::parse(&server.collection()).unwrap();
    collection.join("/").unwrap().to_string()
}

/// A collection made on `server` is found by discovery with its name and
/// colour (the name as typed, markup and all).
pub fn is_made_named_and_coloured(server: &dyn Server) {
    let root = root(server);
    let client = DavClient::new(
        &Url::parse(&root).unwrap(),
        server.user(),
        server.password(),
    )
    .unwrap();
    let name = "Work ✓ & <Plans>";
    let made = collection::create(&client, &root, name, "#112233").unwrap();
    assert_eq!(made.name, name);
    let found = discover::calendars(&client, &root).unwrap();
    let listed = found
        .iter()
        .find(|c| c.url == made.url)
        .unwrap_or_else(|| panic!("{} not in {found:?}", made.url));
    assert_eq!(listed.name, name);
    assert_eq!(listed.color.as_deref(), Some("#112233"));
    // A second calendar of the same name gets a collection of its own.
    let again = collection::create(&client, &root, name, "#112233").unwrap();
    assert_ne!(again.url, made.url);
}

#[test]
fn a_collection_is_made_named_and_coloured_on_radicale() {
    is_made_named_and_coloured(&Radicale::start());
}

fn account(server: &Radicale) -> Account {
    Account {
        url: server.url("/"),
        username: USER.into(),
        password: PASSWORD.into(),
    }
}

#[test]
fn a_calendar_is_published_to_a_new_collection_and_stopped() {
    let server = Radicale::start();
    let mut setup = Setup::new(
        &server,
        &[
            (
                "events/a.md",
                "---\ntitle: A\ndate: 2026-03-02\nallDay: true\n---\nbody a\n",
            ),
            (
                "events/b.md",
                "---\ntitle: B\ndate: 2026-03-03\nallDay: true\n---\nbody b\n",
            ),
        ],
    );
    const CALENDAR: &str = "published_new";
    second_calendar(&mut setup, CALENDAR);
    let passwords = Passwords::default();
    let entry = setup::publish(
        &setup.settings,
        &passwords,
        CALENDAR,
        &account(&server),
        None,
    )
    .unwrap();
    assert_ne!(entry.url, server.calendar(), "a new collection");
    assert_eq!(
        setup.settings.get().published_calendars,
        vec![entry.clone()]
    );
    assert_eq!(entry.calendar_id, CALENDAR);
    assert_eq!(
        passwords.get(&password_key(CALENDAR)).unwrap().as_deref(),
        Some(PASSWORD)
    );
    let settings_file = std::fs::read_to_string(setup.vault.paths().settings_file()).unwrap();
    assert!(!settings_file.contains(PASSWORD), "{settings_file}");
    // Named and coloured as the calendar.
    let client = DavClient::new(&Url::parse(&server.url("/")).unwrap(), USER, PASSWORD).unwrap();
    let found = discover::calendars(&client, &server.url("/")).unwrap();
    let made = found.iter().find(|c| c.url == entry.url).unwrap();
    assert_eq!(made.name, "published_new calendar");
    assert_eq!(made.color.as_deref(), Some("#123456"));

    // A second publish of the same calendar is refused, naming why.
    let twice = setup::publish(
        &setup.settings,
        &passwords,
        CALENDAR,
        &account(&server),
        None,
    )
    .unwrap_err();
    assert_eq!(twice.field, "collection");
    assert!(twice.message.contains("already"), "{twice}");

    setup.publish_to(entry.url.clone());
    assert_eq!(setup.sync().pushed, 2);
    assert_eq!(setup.on_phone().len(), 2);
    let report = &setup.publisher.reports()[0];
    assert_eq!(report.waiting, 0);
    assert_eq!(report.progress, None, "no pass runs now");

    setup::unpublish(&setup.settings, &passwords, CALENDAR).unwrap();
    assert!(setup.settings.get().published_calendars.is_empty());
    assert_eq!(passwords.get(&password_key(CALENDAR)).unwrap(), None);
}

#[test]
fn an_existing_collection_is_chosen_by_its_address() {
    let server = Radicale::start();
    let mut setup = Setup::new(&server, &[]);
    const CALENDAR: &str = "published_existing";
    second_calendar(&mut setup, CALENDAR);
    let passwords = Passwords::default();
    let gone = setup::publish(
        &setup.settings,
        &passwords,
        CALENDAR,
        &account(&server),
        Some(&server.url("/alice/nowhere/")),
    )
    .unwrap_err();
    assert_eq!(gone.field, "collection");
    let entry = setup::publish(
        &setup.settings,
        &passwords,
        CALENDAR,
        &account(&server),
        Some(&server.calendar()),
    )
    .unwrap();
    assert_eq!(entry.url, server.calendar());
    setup::unpublish(&setup.settings, &passwords, CALENDAR).unwrap();
}

#[test]
fn a_server_that_refuses_the_new_collection_is_a_clear_error_and_nothing_is_kept() {
    let mut server = Radicale::start();
    server.stop();
    server.resume_read_only();
    let mut setup = Setup::new(&server, &[]);
    const CALENDAR: &str = "published_refused";
    second_calendar(&mut setup, CALENDAR);
    let passwords = Passwords::default();
    let refused = setup::publish(
        &setup.settings,
        &passwords,
        CALENDAR,
        &account(&server),
        None,
    )
    .unwrap_err();
    assert_eq!(refused.field, "collection");
    assert!(
        refused
            .message
            .contains("the server does not let this account create calendars"),
        "{refused}"
    );
    assert!(refused.message.contains("403"), "{refused}");
    assert!(setup.settings.get().published_calendars.is_empty());
    assert_eq!(passwords.get(&password_key(CALENDAR)).unwrap(), None);

    // A wrong password is the password field's, before anything is made.
    let mut wrong = account(&server);
    wrong.password = "wrong".into();
    let refused = setup::publish(&setup.settings, &passwords, CALENDAR, &wrong, None).unwrap_err();
    assert_eq!(refused.field, "password");
}
