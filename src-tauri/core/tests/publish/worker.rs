//! The worker: `publishedCalendars` in the settings, the password in the
//! OS keyring, a vault edit pushed by itself, a phone's change pulled on
//! "sync now".

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::publish::{password_key, worker};
use almanac_core::settings::PublishedCalendar;
use almanac_core::settings::class::Actor;
use almanac_testkit::eventually;
use almanac_testkit::radicale::{PASSWORD, Radicale, USER};

use crate::publish::support::{CALENDAR, Setup, property};

#[test]
fn the_worker_pushes_vault_edits_and_pulls_on_sync_now() {
    // The worker runs on this runtime; the test (and its blocking clients)
    // on its own thread.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = Radicale::start();
    let setup = Setup::new(&server, &[]);
    // In the real keyring (no other test publishes this calendar id).
    Passwords::default()
        .set(&password_key(CALENDAR), PASSWORD)
        .unwrap();
    let now = {
        let _entered = runtime.enter();
        worker::start(&setup.publisher, &setup.settings, &setup.calendar)
    };
    let mut settings = (*setup.settings.get()).clone();
    settings.published_calendars.push(PublishedCalendar {
        calendar_id: CALENDAR.into(),
        url: server.calendar(),
        username: USER.into(),
        poll_seconds: 3600,
    });
    setup.settings.replace(Actor::User, settings).unwrap();

    // Written in the vault: on the server without asking.
    let path = setup.vault.write(
        "events/2026-04-01 Written.md",
        "---\ntitle: Written\nallDay: true\ndate: 2026-04-01\n---\nKept.\n",
    );
    setup.calendar.refresh_path(&path);
    let publisher = setup.publisher.clone();
    runtime.block_on(eventually("the note's event on the server", || {
        let status = publisher.status(CALENDAR);
        async move { (status.items.len() == 1 && status.last_error.is_none()).then_some(()) }
    }));
    let phone = setup.on_phone();
    assert_eq!(phone.len(), 1, "{phone:?}");
    assert_eq!(
        property(phone.values().next().unwrap(), "SUMMARY").as_deref(),
        Some("Written")
    );

    // Made on the phone: in the vault once asked (the poll is an hour off).
    setup.phone(&["create", "phone-2", "From the phone", "2026-04-02"]);
    now.request();
    almanac_testkit::wait_until(&setup.calendar, "the phone's event in the vault", |c| {
        c.source_events(CALENDAR)
            .unwrap_or_default()
            .iter()
            .any(|e| e.title == "From the phone")
    });
    Passwords::default()
        .delete(&password_key(CALENDAR))
        .unwrap();
}
