//! Calendars other than Full Note ones, published to Radicale (one server,
//! a collection each): an Obsidian Tasks calendar (its lines as `VTODO`s:
//! completed on the phone, the line is ticked; ticked in the vault, the
//! task is completed; deleted on the phone, put back, since its line is
//! deleted in Obsidian; one made on the phone stays there, named in the
//! status), a daily-note calendar (both ways), and a vault
//! `.ics` file, published one way (what the phone changes is put back, no
//! file is written).

use std::collections::BTreeMap;

use almanac_core::publish::status::StatusStore;
use almanac_core::settings::{KindSettings, TaskDateField};
use almanac_testkit::radicale::Radicale;

use crate::publish::support::{CALENDAR, Setup, property};

const HOME: &str = "Projects/Home.md";
const HOME_NOTE: &str =
    "# Home\n- [ ] Pay rent 📅 2026-02-04\n- [ ] Order seeds 📅 2026-03-01\nSome prose.\n";
const DAY: &str = "journal/2026-02-03.md";
const DAY_NOTE: &str = "# Tuesday\nSlept well.\n\n## Events\n- [ ] Water plants\n\
- Lunch [startTime:: 12:00] [endTime:: 13:00]\n\n## Notes\n- [ ] not an event\n";
const TEAM: &str = "calendars/team.ics";
const TEAM_ICS: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n\
BEGIN:VEVENT\r\nUID:offsite-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260210T090000Z\r\n\
DTEND:20260210T170000Z\r\nSUMMARY:Offsite\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

/// The UID of the phone's event or task with `summary`.
fn uid_of(phone: &BTreeMap<String, String>, summary: &str) -> String {
    phone
        .iter()
        .find(|(_, ics)| property(ics, "SUMMARY").as_deref() == Some(summary))
        .unwrap_or_else(|| panic!("no `{summary}` on the phone: {phone:?}"))
        .0
        .clone()
}

#[test]
fn tasks_daily_notes_and_read_only_calendars_are_published() {
    let server = Radicale::start();

    // Tasks: every line a VTODO.
    let tasks = KindSettings::Tasks {
        directory: "Projects".into(),
        date_field: TaskDateField::Due,
    };
    let setup = Setup::of(&server, tasks, &server.calendar(), &[(HOME, HOME_NOTE)]);
    assert_eq!(setup.sync().pushed, 2);
    let phone = setup.on_phone();
    assert!(phone.values().all(|ics| ics.contains("BEGIN:VTODO")));
    let rent = uid_of(&phone, "Pay rent");
    let seeds = uid_of(&phone, "Order seeds");
    setup.phone(&["complete", &rent]);
    let pulled = setup.sync();
    assert_eq!((pulled.pulled, pulled.errors.len()), (1, 0), "{pulled:?}");
    let home = setup.vault.read(HOME);
    assert!(home.contains("- [x] Pay rent 📅 2026-02-04 ✅ "), "{home}");
    assert!(home.ends_with("- [ ] Order seeds 📅 2026-03-01\nSome prose.\n"));
    setup.edit(
        HOME,
        "- [ ] Order seeds 📅 2026-03-01",
        "- [x] Order seeds 📅 2026-03-01 ✅ 2026-02-10",
    );
    setup.sync();
    let phone = setup.on_phone();
    assert_eq!(
        property(&phone[&seeds], "STATUS").as_deref(),
        Some("COMPLETED")
    );
    let rent = uid_of(&phone, "Pay rent");
    assert_eq!(
        property(&phone[&rent], "STATUS").as_deref(),
        Some("COMPLETED")
    );
    let home = setup.vault.read(HOME);
    setup.phone(&["delete", &rent]);
    setup.sync();
    assert!(setup.on_phone().contains_key(&rent), "put back");
    assert_eq!(setup.vault.read(HOME), home, "the note as it was");
    // Made on the phone: tasks are added in a note, so it stays on the
    // server, and the status says why.
    setup.phone(&["create", "phone-8", "Buy milk", "2026-02-12"]);
    let refused = setup.sync();
    assert_eq!(refused.errors.len(), 1, "{refused:?}");
    let why = setup.publisher.status(CALENDAR).last_error.unwrap();
    assert!(why.contains("add the task in a note"), "{why}");
    assert_eq!(setup.vault.read(HOME), home);
    assert!(
        setup.on_phone().contains_key("phone-8"),
        "left on the server"
    );

    // Daily notes: both ways.
    server.mkcalendar("daily", "Daily");
    let daily = KindSettings::DailyNote {
        directory: "journal".into(),
        heading: "Events".into(),
    };
    let setup = Setup::of(
        &server,
        daily,
        &server.url("/alice/daily/"),
        &[(DAY, DAY_NOTE)],
    );
    assert_eq!(setup.sync().pushed, 2);
    let phone = setup.on_phone();
    assert!(phone[&uid_of(&phone, "Lunch")].contains("BEGIN:VALARM"));
    let plants = uid_of(&phone, "Water plants");
    setup.phone(&["complete", &plants]);
    setup.sync();
    assert_eq!(
        setup.vault.read(DAY),
        DAY_NOTE.replace("- [ ] Water plants", "- [x] Water plants")
    );
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");
    // A server that refuses the sync token (it forgot it, or never kept
    // one) is listed by ETags: its tasks are listed too, not taken as
    // deleted there (which would put them back, or move their notes to the
    // trash).
    let store = StatusStore::new(&setup.vault.paths().publish_dir());
    let mut status = store.load(CALENDAR);
    status.sync_token = Some("http://radicale.org/ns/sync/forgotten".into());
    store.store(CALENDAR, &status).unwrap();
    let listed = setup.sync();
    assert_eq!(
        (listed.pushed, listed.pulled, listed.errors.len()),
        (0, 0, 0),
        "{listed:?}"
    );
    assert_eq!(
        setup.vault.read(DAY),
        DAY_NOTE.replace("- [ ] Water plants", "- [x] Water plants")
    );

    // A vault .ics file: one way.
    server.mkcalendar("team", "Team");
    let file = KindSettings::IcsFile { path: TEAM.into() };
    let setup = Setup::of(
        &server,
        file,
        &server.url("/alice/team/"),
        &[(TEAM, TEAM_ICS)],
    );
    assert_eq!(setup.sync().pushed, 1);
    let offsite = uid_of(&setup.on_phone(), "Offsite");
    setup.phone(&["retitle", &offsite, "Offsite (moved)"]);
    setup.phone(&["create", "phone-9", "Mine", "2026-02-11"]);
    let overruled = setup.sync();
    assert_eq!(
        (overruled.pushed, overruled.pulled),
        (1, 0),
        "{overruled:?}"
    );
    let phone = setup.on_phone();
    assert_eq!(
        property(&phone[&offsite], "SUMMARY").as_deref(),
        Some("Offsite")
    );
    assert!(
        phone.contains_key("phone-9"),
        "the phone's own event is left alone"
    );
    setup.phone(&["delete", &offsite]);
    setup.sync();
    assert!(setup.on_phone().contains_key(&offsite), "put back");
    assert_eq!(setup.vault.read(TEAM), TEAM_ICS, "the file as it was");
    let settled = setup.sync();
    assert_eq!((settled.pushed, settled.pulled), (0, 0), "{settled:?}");
}
