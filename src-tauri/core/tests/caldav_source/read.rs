//! Reading: the first sync, an incremental one after a change made on the
//! server by another client, the disk copy offline, and the error states.

use almanac_core::calendar::Calendar;
use almanac_core::calendar::sources::caldav::mirror::{Mirror, MirrorStore, Resource};
use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::settings::KindSettings;

use crate::caldav_source::radicale::{PASSWORD, Radicale, USER};
use crate::caldav_source::setup::{Setup, source_id, vevent};

/// The local Full Note calendar is untouched: its one note, no error.
fn local_is_fine(calendar: &Calendar) {
    let local = calendar
        .sources()
        .into_iter()
        .find(|s| s.id == "local")
        .unwrap();
    assert_eq!((local.event_count, local.last_error), (1, None));
}

#[test]
fn events_on_the_server_appear_and_follow_changes_made_there() {
    let server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    server.put("b.ics", &vevent("b", "Review", "20260106T090000Z"));
    let setup = Setup::correct("read", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the two events", |c| {
        setup.titles(c) == ["Review", "Standup"]
    });
    let info = setup.info(&calendar);
    assert_eq!(info.kind, "caldav");
    assert_eq!(info.last_error, None);
    assert!(info.editable);
    let mirrors = MirrorStore::new(&setup.vault.paths().ical_cache_dir());
    let first_token = mirrors.load(&setup.id).unwrap().sync_token;
    assert!(first_token.is_some(), "Radicale gives sync tokens");

    // Another client edits one event, deletes the other, adds a third.
    server.put("a.ics", &vevent("a", "Standup (moved)", "20260105T100000Z"));
    server.delete("b.ics");
    server.put("c.ics", &vevent("c", "Retro", "20260107T090000Z"));
    setup.sync_until(&calendar, "the server's changes", |c| {
        setup.titles(c) == ["Retro", "Standup (moved)"]
    });
    let mirror = mirrors.load(&setup.id).unwrap();
    assert_ne!(mirror.sync_token, first_token, "synced to the new token");
    assert_eq!(mirror.resources.len(), 2);
}

#[test]
fn the_calendar_is_there_offline_from_its_disk_copy() {
    let mut server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let setup = Setup::correct("offline", &server);
    setup.vault.write(
        "events/2026-01-05 Local.md",
        "---\ntitle: Local\ndate: 2026-01-05\n---\n",
    );
    {
        let calendar = setup.open();
        setup.sync_until(&calendar, "the event", |c| setup.titles(c) == ["Standup"]);
    }
    server.stop();
    let calendar = setup.open();
    assert_eq!(
        setup.titles(&calendar),
        ["Standup"],
        "loaded from disk at start"
    );
    setup.sync_until(&calendar, "the unreachable state", |c| {
        setup
            .info(c)
            .last_error
            .is_some_and(|e| e.contains("cannot be reached"))
    });
    assert_eq!(setup.titles(&calendar), ["Standup"], "kept while offline");
    local_is_fine(&calendar);
}

#[test]
fn a_wrong_password_is_a_clear_state_and_other_calendars_still_read() {
    let server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let setup = Setup::new("unauthorized", &server, "wrong");
    setup.vault.write(
        "events/2026-01-05 Local.md",
        "---\ntitle: Local\ndate: 2026-01-05\n---\n",
    );
    let calendar = setup.open();
    setup.sync_until(&calendar, "the 401 state", |c| {
        setup.info(c).last_error.is_some_and(|e| e.contains("401"))
    });
    assert!(setup.events(&calendar).is_empty());
    local_is_fine(&calendar);
}

#[test]
fn a_malformed_resource_is_named_and_the_others_still_show() {
    // Radicale refuses malformed iCalendar (and answers 500 for a whole
    // collection holding some), so the malformed resource comes as other
    // servers send it: in the calendar's copy, as last received.
    let server = Radicale::start();
    let setup = Setup::correct("malformed", &server);
    let mut mirror = Mirror {
        calendar_url: server.calendar(),
        fetched_at_millis: Some(chrono::Utc::now().timestamp_millis()),
        ..Default::default()
    };
    for (name, ics) in [
        ("a.ics", vevent("a", "Standup", "20260105T090000Z")),
        (
            "broken.ics",
            "BEGIN:VCALENDAR\r\nthis is not iCalendar\r\n".into(),
        ),
    ] {
        let resource = Resource {
            etag: "\"1\"".into(),
            ics,
        };
        mirror
            .resources
            .insert(server.url(&format!("/alice/work/{name}")), resource);
    }
    MirrorStore::new(&setup.vault.paths().ical_cache_dir())
        .store(&setup.id, &mirror)
        .unwrap();
    setup.vault.write(
        "events/2026-01-05 Local.md",
        "---\ntitle: Local\ndate: 2026-01-05\n---\n",
    );
    let calendar = setup.open();
    local_is_fine(&calendar);
    let error = setup.info(&calendar).last_error.unwrap_or_default();
    assert!(
        error.contains("not valid iCalendar") && error.contains("broken.ics"),
        "{error}"
    );
    assert_eq!(setup.titles(&calendar), ["Standup"]);
}

#[test]
fn each_caldav_calendar_has_its_own_state_and_a_failing_one_breaks_no_other() {
    let server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    let mut stopped = Radicale::start();
    stopped.stop();
    let good = Setup::correct("isolated-good", &server);
    good.vault.write(
        "events/2026-01-05 Local.md",
        "---\ntitle: Local\ndate: 2026-01-05\n---\n",
    );
    // Beside the good calendar: a refused password, an unreachable server
    // and one without a stored password, all in the same vault.
    let (refused, unreachable, no_password) = (
        source_id("isolated-401"),
        source_id("isolated-down"),
        source_id("isolated-none"),
    );
    Passwords::default().set(&refused, "wrong").unwrap();
    Passwords::default().set(&unreachable, PASSWORD).unwrap();
    let kind = |url: String| KindSettings::Caldav {
        url,
        username: USER.into(),
        calendar_url: String::new(),
    };
    let mut vault = good.vault.settings.clone();
    for (id, url) in [
        (&refused, server.url("/")),
        (&unreachable, stopped.url("/")),
        (&no_password, server.url("/")),
    ] {
        vault
            .calendar_sources
            .push(crate::caldav_source::common::source(id, kind(url)));
    }
    let calendar = Calendar::open(&vault, &good.vault.paths());
    let state = |c: &Calendar, id: &str| {
        c.sources()
            .into_iter()
            .find(|s| s.id == id)
            .unwrap()
            .last_error
            .unwrap_or_default()
    };
    good.sync_until(&calendar, "every calendar's state", |c| {
        good.titles(c) == ["Standup"]
            && state(c, &refused).contains("401")
            && state(c, &unreachable).contains("cannot be reached")
            && state(c, &no_password).contains("no password is stored")
    });
    assert_eq!(good.info(&calendar).last_error, None);
    local_is_fine(&calendar);
    for id in [&refused, &unreachable] {
        let _ = Passwords::default().delete(id);
    }
}
