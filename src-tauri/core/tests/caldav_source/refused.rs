//! Writes made offline that the server refuses when they are replayed (the
//! event changed there meanwhile: 412; the user may not write: 403) are
//! never forced and never dropped: each event as it was changed is kept as
//! an `.ics` file in the queue's `refused/` folder, and the calendar's
//! status says where for as long as one is there.

use std::path::PathBuf;

use almanac_core::calendar::EventFields;
use serde_json::json;

use crate::caldav_source::radicale::Radicale;
use crate::caldav_source::setup::{Setup, vevent};

fn fields(value: serde_json::Value) -> EventFields {
    serde_json::from_value(value).unwrap()
}

/// The files kept in `refused/`, with their text.
fn kept(setup: &Setup) -> Vec<(PathBuf, String)> {
    let dir = setup.vault.paths().caldav_queue_dir().join("refused");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .map(|entry| entry.unwrap().path())
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, text)
        })
        .collect()
}

#[test]
fn a_queued_write_over_a_change_made_meanwhile_is_kept_aside_and_named() {
    let mut server = Radicale::start();
    server.put("a.ics", &vevent("a", "Standup", "20260105T090000Z"));
    server.put("b.ics", &vevent("b", "Review", "20260106T090000Z"));
    let setup = Setup::correct("replay-conflict", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the events", |c| {
        setup.titles(c) == ["Review", "Standup"]
    });
    let id_of = |title: &str| {
        let events = setup.events(&calendar);
        events.into_iter().find(|e| e.title == title).unwrap().id
    };
    let (standup, review) = (id_of("Standup"), id_of("Review"));
    server.stop();
    calendar
        .update(&standup, fields(json!({"title": "Standup (offline)"})))
        .unwrap();
    calendar.delete(&review, None).unwrap();
    assert_eq!(setup.titles(&calendar), ["Standup (offline)"]);

    // Back, and another client edits the same event before Almanac syncs.
    server.resume();
    server.put(
        "a.ics",
        &vevent("a", "Standup by phone", "20260105T090000Z"),
    );
    setup.sync_until(&calendar, "the replay", |c| {
        setup
            .info(c)
            .last_error
            .is_some_and(|e| e.contains("changed on the server meanwhile (a.ics)"))
    });
    // The offline delete went through; the edit was not forced over the
    // other client's, and is kept where the status says.
    assert_eq!(server.get("b.ics"), None);
    let stored = server.get("a.ics").unwrap();
    assert!(stored.contains("SUMMARY:Standup by phone"), "{stored}");
    let kept = kept(&setup);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let (file, text) = &kept[0];
    assert!(text.contains("SUMMARY:Standup (offline)"), "{text}");
    let status = setup.info(&calendar).last_error.unwrap();
    assert!(status.contains(&file.display().to_string()), "{status}");
    setup.sync_until(&calendar, "the server's version", |c| {
        setup.titles(c) == ["Standup by phone"]
    });
}

#[test]
fn a_queued_write_the_server_forbids_is_kept_and_the_status_says_where() {
    let mut server = Radicale::start();
    let setup = Setup::correct("replay-forbidden", &server);
    let calendar = setup.open();
    setup.sync_until(&calendar, "the first sync", |c| {
        setup.info(c).last_fetched.is_some()
    });
    server.stop();
    calendar
        .create(
            &setup.id,
            fields(json!({
                "title": "Planned offline",
                "date": "2026-02-04",
                "allDay": true,
                "description": "The minutes",
            })),
        )
        .unwrap();

    // The account may read the calendar, no longer write it: 403.
    server.resume_read_only();
    setup.sync_until(&calendar, "the refused replay", |c| {
        setup.info(c).last_error.is_some_and(|e| e.contains("403"))
    });
    let kept = kept(&setup);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let text = kept[0].1.replace("\r\n ", "");
    assert!(text.contains("SUMMARY:Planned offline"), "{text}");
    assert!(text.contains("DESCRIPTION:The minutes"), "{text}");
    assert!(!server.get("").unwrap().contains("Planned offline"));
    // The calendar shows the server's version again, not the refused one.
    assert!(setup.titles(&calendar).is_empty());

    // Later syncs still say where it is, until the user takes it away.
    let folder = setup.vault.paths().caldav_queue_dir().join("refused");
    setup.sync_until(&calendar, "the next sync", |c| {
        setup.info(c).last_error.is_some_and(|e| {
            e.contains("1 change(s) the CalDAV server refused")
                && e.contains(&folder.display().to_string())
        })
    });
    std::fs::remove_file(&kept[0].0).unwrap();
    setup.sync_until(&calendar, "a sync with nothing kept", |c| {
        setup.info(c).last_error.is_none()
    });
}
