//! Events of remote calendars remind as notes do: an ICS feed served on
//! loopback and a CalDAV calendar on a real Radicale server (its password
//! in the OS keyring: run under scripts/session.sh). Each event reminds by
//! its first `VALARM` before its start, else by the default minutes; a feed
//! refresh or a CalDAV sync re-derives that calendar's reminders.

use std::sync::{Arc, Mutex};

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::vault_reminders::VaultReminder;
use almanac_testkit::net::HttpStub;
use almanac_testkit::radicale::{PASSWORD, Radicale, USER};

use super::*;

/// A VEVENT on `day(offset)` at `hh_mm` UTC, an hour long, with a display
/// alarm `alarm` minutes before when given.
fn vevent(uid: &str, title: &str, offset: i64, hh_mm: &str, alarm: Option<u32>) -> String {
    let start = at(offset, hh_mm).format("%Y%m%dT%H%M%SZ");
    let alarm = alarm.map_or(String::new(), |minutes| {
        format!("BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-PT{minutes}M\r\nEND:VALARM\r\n")
    });
    format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{start}\r\n\
         DURATION:PT1H\r\nSUMMARY:{title}\r\n{alarm}END:VEVENT\r\n"
    )
}

fn vcalendar(vevents: &[String]) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//remind//EN\r\n{}END:VCALENDAR\r\n",
        vevents.concat()
    )
}

/// A feed on a loopback port serving whatever `body` holds.
fn feed(body: Arc<Mutex<String>>) -> HttpStub {
    HttpStub::start(move |stream| {
        use std::io::Write;
        let body = body.lock().unwrap().clone();
        let _ = stream.write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    })
}

/// A fixture following a vault with the one source `id` of `kind`.
fn follow(id: &str, kind: KindSettings) -> Fixture {
    let mut vault = TestVault::new();
    vault.settings.calendar_sources = vec![source(id, kind)];
    vault.settings.reminders.horizon_days = 20;
    let store = Arc::new(SettingsStore::open(&vault.paths().settings_file()).unwrap());
    store.replace(Actor::User, vault.settings.clone()).unwrap();
    let calendar = Calendar::open(&store.get(), &vault.paths());
    calendar.follow(&store);
    let set = vault_reminders::start(&calendar, &store);
    calendar.revalidate(true);
    Fixture {
        vault,
        store,
        calendar,
        set,
    }
}

fn titled(set: &VaultReminders, title: &str) -> Option<Arc<VaultReminder>> {
    set.reminders.iter().find(|r| r.title == title).cloned()
}

#[tokio::test]
async fn a_feeds_events_remind_by_their_alarm_or_the_default_and_follow_a_refresh() {
    let body = Arc::new(Mutex::new(vcalendar(&[
        vevent("a", "Feed alarm", 3, "09:00", Some(30)),
        vevent("b", "Feed plain", 3, "11:00", None),
    ])));
    let stub = feed(body.clone());
    let mut fixture = follow(
        "feed",
        KindSettings::Ical {
            url: format!("http://{}/feed.ics", stub.addr),
            allow_private_network: true,
        },
    );
    let set = fixture
        .until("the feed's alarm", |set| {
            titled(set, "Feed alarm").is_some()
        })
        .await;
    assert_eq!(triggers(&set), [("Feed alarm".to_string(), at(3, "08:30"))]);
    let alarm = titled(&set, "Feed alarm").unwrap();
    assert_eq!(alarm.event_id, "ical:feed::a");
    assert_eq!(
        alarm.id,
        format!("ical:feed::a::{}", at(3, "09:00").timestamp_millis())
    );
    assert_eq!(alarm.calendar_id, "feed");
    assert!(alarm.explicit && alarm.minutes_before == 30);
    // No note to open.
    assert_eq!((alarm.path.as_str(), alarm.action_url.as_str()), ("", ""));

    // Default reminders on: the event without an alarm reminds too.
    fixture.patch(json!({"reminders": {"defaultReminders": true, "defaultMinutes": 20}}));
    let set = fixture
        .until("the feed's default reminder", |set| {
            titled(set, "Feed plain").is_some()
        })
        .await;
    assert_eq!(
        triggers(&set),
        [
            ("Feed alarm".to_string(), at(3, "08:30")),
            ("Feed plain".to_string(), at(3, "10:40")),
        ]
    );

    // The feed changes: a refresh moves one reminder and drops the other,
    // with the same id for the same occurrence.
    *body.lock().unwrap() = vcalendar(&[vevent("a", "Feed alarm", 3, "09:00", Some(45))]);
    fixture.calendar.revalidate(true);
    let set = fixture
        .until("the refreshed feed", |set| {
            set.reminders.len() == 1
                && titled(set, "Feed alarm").is_some_and(|r| r.trigger == at(3, "08:15"))
        })
        .await;
    assert_eq!(titled(&set, "Feed alarm").unwrap().id, alarm.id);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_caldav_calendars_events_remind_and_follow_a_sync() {
    let server = Arc::new(tokio::task::spawn_blocking(Radicale::start).await.unwrap());
    let id = format!("remind-dav-{}", std::process::id());
    Passwords::default().set(&id, PASSWORD).unwrap();
    // Radicale is filled over blocking HTTP, off the async workers.
    let put = |alarm: u32| {
        let server = server.clone();
        let ics = vcalendar(&[vevent("dav-1", "Dav alarm", 2, "09:00", Some(alarm))]);
        tokio::task::spawn_blocking(move || server.put("remind.ics", &ics))
    };
    put(10).await.unwrap();
    let mut fixture = follow(
        &id,
        KindSettings::Caldav {
            url: server.url("/"),
            username: USER.into(),
            calendar_url: String::new(),
        },
    );
    let set = fixture
        .until("the CalDAV event's alarm", |set| {
            titled(set, "Dav alarm").is_some()
        })
        .await;
    let reminder = titled(&set, "Dav alarm").unwrap();
    assert_eq!(reminder.trigger, at(2, "08:50"));
    assert_eq!(reminder.event_id, format!("ical:{id}::dav-1"));
    assert_eq!(
        (reminder.path.as_str(), reminder.action_url.as_str()),
        ("", "")
    );

    // Changed on the server (another app): the next sync moves it.
    put(25).await.unwrap();
    fixture.calendar.revalidate(true);
    let set = fixture
        .until("the synced alarm", |set| {
            titled(set, "Dav alarm").is_some_and(|r| r.trigger == at(2, "08:35"))
        })
        .await;
    assert_eq!(titled(&set, "Dav alarm").unwrap().id, reminder.id);
    assert_eq!(set.reminders.len(), 1);
    let _ = Passwords::default().delete(&id);
}
