//! An engine with one Full Note calendar and one CalDAV calendar on a
//! Radicale server, its password in the real OS keyring.

use almanac_core::calendar::SourceInfo;
use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::calendar::{Calendar, Event, EventQuery};
use almanac_core::settings::KindSettings;
use almanac_testkit::wait_until;

use crate::caldav_source::common::TestVault;
use crate::caldav_source::radicale::{PASSWORD, Radicale, USER};

/// A source id unique to this test process and `name` (the keyring is
/// shared by every test).
pub fn source_id(name: &str) -> String {
    format!("dav-{name}-{}", std::process::id())
}

pub struct Setup {
    pub vault: TestVault,
    pub id: String,
}

impl Setup {
    /// A vault whose CalDAV source `name` points at `server`'s root (the
    /// calendar is discovered) with `password` in the keyring.
    pub fn new(name: &str, server: &Radicale, password: &str) -> Setup {
        let id = source_id(name);
        Passwords::default().set(&id, password).unwrap();
        let vault = TestVault::new().with_timezone("Europe/Berlin").with_source(
            &id,
            KindSettings::Caldav {
                url: server.url("/"),
                username: USER.into(),
                calendar_url: String::new(),
            },
        );
        Setup { vault, id }
    }

    pub fn correct(name: &str, server: &Radicale) -> Setup {
        Self::new(name, server, PASSWORD)
    }

    /// The setup with one more calendar `id` of `kind`.
    pub fn with_source(mut self, id: &str, kind: KindSettings) -> Setup {
        let source = crate::caldav_source::common::source(id, kind);
        self.vault.settings.calendar_sources.push(source);
        self
    }

    pub fn open(&self) -> Calendar {
        Calendar::open(&self.vault.settings, &self.vault.paths())
    }

    /// The CalDAV calendar's status in the calendar list.
    pub fn info(&self, calendar: &Calendar) -> SourceInfo {
        calendar
            .sources()
            .into_iter()
            .find(|s| s.id == self.id)
            .unwrap()
    }

    /// The CalDAV calendar's events.
    pub fn events(&self, calendar: &Calendar) -> Vec<Event> {
        calendar.query(&EventQuery {
            calendars: Some(vec![self.id.clone()]),
            ..Default::default()
        })
    }

    /// Asks for a sync and waits until `ready` holds.
    pub fn sync_until(
        &self,
        calendar: &Calendar,
        what: &str,
        ready: impl FnMut(&Calendar) -> bool,
    ) {
        calendar.revalidate(true);
        wait_until(calendar, what, ready);
    }

    /// The distinct titles of the CalDAV calendar's occurrences.
    pub fn titles(&self, calendar: &Calendar) -> Vec<String> {
        let mut titles: Vec<String> = self.events(calendar).into_iter().map(|e| e.title).collect();
        titles.sort();
        // A series' occurrences share its title.
        titles.dedup();
        titles
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = Passwords::default().delete(&self.id);
    }
}

/// A minimal VCALENDAR with one timed event.
pub fn vevent(uid: &str, title: &str, start: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART:{start}\r\nDURATION:PT1H\r\nSUMMARY:{title}\r\n\
         END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}
