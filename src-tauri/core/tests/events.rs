//! The application event bus over a real instance (settings file, vault on
//! disk, tokens in the real OS keyring): each change is announced once, from
//! the place it happens, and a subscriber that falls behind is told to
//! resync. Run with `scripts/session.sh cargo nextest run -p almanac-core -E 'test(/^events::/)'`.

use almanac_core::api::ApiError;
use almanac_core::events::{AppEvent, CAPACITY, Delivery, Subscription};
use almanac_core::settings::class::Actor;
use almanac_core::tokens::{Expiry, NewToken, Scope};
use almanac_testkit::InstanceBuilder;
use serde_json::json;

/// What is waiting on `events` now, leaving out calendar generations (a
/// watcher or a feed may bump them at any time). Every change under test is
/// published before the call making it returns.
fn waiting(events: &mut Subscription) -> Vec<AppEvent> {
    std::iter::from_fn(|| events.try_recv())
        .map(|delivery| match delivery {
            Delivery::Event(event) => event,
            Delivery::Resync { missed } => panic!("fell behind by {missed} events"),
        })
        .filter(|event| !matches!(event, AppEvent::CalendarChanged { .. }))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settings_change_through_the_plugin_is_announced_once() {
    let core = InstanceBuilder::new().open().await;
    let mut events = core.events.subscribe();

    let saved = core
        .plugin()
        .update_settings(Actor::User, &json!({"firstDay": 1}))
        .unwrap();
    assert_eq!(saved.first_day, 1);
    assert_eq!(waiting(&mut events), [AppEvent::SettingsChanged(saved)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_settings_change_is_not_announced_even_straight_at_the_store() {
    let core = InstanceBuilder::new().open().await;
    let mut events = core.events.subscribe();
    let script = Actor::Token([Scope::EventsRead].into_iter().collect());

    let refused = core
        .plugin()
        .update_settings(script, &json!({"localServerPort": 9999}))
        .unwrap_err();
    assert!(
        matches!(refused, ApiError::SettingRefused(_)),
        "{refused:?}"
    );
    // The store itself checks the classes: there is no unchecked way in.
    let refused = core
        .settings
        .update(script, &json!({"localServerPort": 9999}))
        .unwrap_err();
    assert!(refused.to_string().contains("localServerPort"), "{refused}");
    assert_eq!(core.settings.get().local_server_port, 8540);
    assert_eq!(waiting(&mut events), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_and_revoking_a_token_are_announced() {
    let core = InstanceBuilder::new().open().await;
    let mut events = core.events.subscribe();

    let created = core
        .tokens
        .create(NewToken {
            name: "bus".into(),
            scopes: [Scope::EventsRead].into_iter().collect(),
            expiry: Expiry::Never,
        })
        .unwrap();
    assert_eq!(waiting(&mut events), [AppEvent::TokensChanged]);
    core.tokens.revoke(created.info.record.id).unwrap();
    assert_eq!(waiting(&mut events), [AppEvent::TokensChanged]);
    // Revoking again changes nothing, so nothing is announced.
    core.tokens.revoke(created.info.record.id).unwrap();
    assert_eq!(waiting(&mut events), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calendar_write_announces_its_generation() {
    let core = InstanceBuilder::new().open().await;
    let mut events = core.events.subscribe();
    let before = *core.calendar.subscribe().borrow();

    core.calendar
        .create(
            "local",
            serde_json::from_value(json!({"title": "Bus", "date": "2024-05-02", "allDay": true}))
                .unwrap(),
        )
        .unwrap();
    let after = *core.calendar.subscribe().borrow();
    let announced: Vec<u64> = std::iter::from_fn(|| events.try_recv())
        .filter_map(|delivery| match delivery {
            Delivery::Event(AppEvent::CalendarChanged { generation }) => Some(generation),
            _ => None,
        })
        .collect();
    assert!(!announced.is_empty(), "no CalendarChanged");
    assert!(announced.is_sorted(), "{announced:?}");
    assert!(
        announced.iter().all(|g| *g > before && *g <= after),
        "{announced:?}"
    );
    // The watch channel and the bus are fed by the same bump.
    assert!(announced.contains(&after), "{announced:?} lacks {after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_that_falls_behind_is_told_to_resync_from_current_state() {
    let core = InstanceBuilder::new().open().await;
    let mut events = core.events.subscribe();

    // More commits than the bus holds, with nobody reading.
    let last = CAPACITY + 10;
    for port in 0..=last {
        let port = 20000 + u16::try_from(port).unwrap();
        core.settings
            .update(Actor::User, &json!({"localServerPort": port}))
            .unwrap();
    }
    let Some(Delivery::Resync { missed }) = events.recv().await else {
        panic!("the lagging subscriber was not told to resync");
    };
    assert!(missed > 0);
    // Resyncing means reading the current state, which has the last commit;
    // the events still held lead up to it.
    let current = core.settings.get();
    assert_eq!(usize::from(current.local_server_port), 20000 + last);
    let rest = waiting(&mut events);
    assert_eq!(rest.last(), Some(&AppEvent::SettingsChanged(current)));
}
