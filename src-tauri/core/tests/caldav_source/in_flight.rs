//! A sync in flight while the settings change (the calendar renamed, the
//! URL discovery found written back, another calendar chosen): what the
//! server answered is never lost. The sync's request is held in a relay
//! ([`Gate`]) while the new settings are put in place, then let through.
//!
//! An answer that went into the calendar's disk copy but not into the
//! cache was lost for good: the next sync found nothing new.

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::settings::{CalendarSource, KindSettings};

use crate::caldav_source::common::{TestVault, wait_until};
use crate::caldav_source::gate::Gate;
use crate::caldav_source::radicale::{PASSWORD, Radicale, USER};
use crate::caldav_source::setup::{Setup, source_id, vevent};

/// Syncs the CalDAV calendar `name` on `server` (reached through a
/// [`Gate`], its calendar URL `calendar_url`: empty to discover it) once,
/// changes its event there, then changes the source with `change` while the
/// next sync's request is held. Returns once the calendar's titles are
/// `expected`, without asking for another sync.
fn change_while_a_sync_is_in_flight(
    name: &str,
    server: &Radicale,
    calendar_url: impl Fn(&Gate) -> String,
    change: impl FnOnce(&Gate, &mut CalendarSource),
    expected: &[&str],
) {
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let gate = Gate::start(server.port);
    let id = source_id(name);
    Passwords::default().set(&id, PASSWORD).unwrap();
    let vault = TestVault::new().with_source(
        &id,
        KindSettings::Caldav {
            url: gate.url("/"),
            username: USER.into(),
            calendar_url: calendar_url(&gate),
        },
    );
    let setup = Setup { vault, id };
    let calendar = setup.open();
    setup.sync_until(&calendar, "the first sync", |c| {
        setup.titles(c) == ["Standup"]
    });

    server.put("a.ics", &vevent("a", "Standup (moved)", "20260105T100000Z"));
    gate.close();
    calendar.revalidate(true);
    gate.wait_held();
    let mut settings = setup.vault.settings.clone();
    let source = settings
        .calendar_sources
        .iter_mut()
        .find(|s| s.id == setup.id)
        .unwrap();
    change(&gate, source);
    calendar.apply_settings(&settings);
    gate.open();
    wait_until(&calendar, &format!("the titles {expected:?}"), |c| {
        setup.titles(c) == expected
    });
    assert_eq!(setup.info(&calendar).last_error, None);
}

fn set_calendar_url(source: &mut CalendarSource, url: String) {
    if let KindSettings::Caldav { calendar_url, .. } = &mut source.kind {
        *calendar_url = url;
    }
}

#[test]
fn a_change_synced_while_the_calendar_is_renamed_shows() {
    change_while_a_sync_is_in_flight(
        "renamed",
        &Radicale::start(),
        |gate| gate.url("/alice/work/"),
        |_, source| source.name = "Renamed".into(),
        &["Standup (moved)"],
    );
}

#[test]
fn a_change_synced_while_the_discovered_calendar_url_is_written_back_shows() {
    change_while_a_sync_is_in_flight(
        "written-back",
        &Radicale::start(),
        |_| String::new(),
        |gate, source| set_calendar_url(source, gate.url("/alice/work/")),
        &["Standup (moved)"],
    );
}

#[test]
fn a_sync_answering_for_a_calendar_no_longer_chosen_is_dropped_and_the_new_one_synced() {
    let server = Radicale::start();
    server.mkcalendar("home", "Home");
    let put = reqwest::blocking::Client::new()
        .put(server.url("/alice/home/b.ics"))
        .basic_auth(USER, Some(PASSWORD))
        .header("Content-Type", "text/calendar")
        .body(vevent("b", "Dentist", "20260106T090000Z"))
        .send()
        .unwrap();
    assert!(put.status().is_success(), "{}", put.status());
    change_while_a_sync_is_in_flight(
        "another",
        &server,
        |gate| gate.url("/alice/work/"),
        |gate, source| set_calendar_url(source, gate.url("/alice/home/")),
        &["Dentist"],
    );
}
