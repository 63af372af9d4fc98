//! The kind's events where clients see them: a whole core with its REST
//! server and its CalDAV server on loopback ports, and its vault reminders.

use std::sync::Arc;

use almanac_core::caldav_server;
use almanac_core::rest::{self, Listening, RestState, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, PATIENCE, free_port, new_token};
use serde_json::json;

use crate::source_contract::checks::{TITLE, day, events_of};
use crate::source_contract::common::{source, wait_until};
use crate::source_contract::fixtures::KindFixture;

pub async fn everywhere<F: KindFixture>() {
    // A fixture may block (a CalDAV server is filled over blocking HTTP).
    let (fixture, builder, placed) = tokio::task::spawn_blocking(|| {
        let fixture = F::start();
        let mut placed = None;
        let builder = InstanceBuilder::new().settings(|settings| {
            settings.display_timezone = "UTC".into();
            settings.reminders.default_reminders = true;
            settings.reminders.default_minutes = 15;
            settings
                .calendar_sources
                .push(source(&fixture.id(), fixture.source()));
            placed = Some(fixture.put_event(&settings.vault_path, TITLE, day()));
        });
        (fixture, builder, placed.expect("the settings were made"))
    })
    .await
    .unwrap();
    let id = fixture.id();
    let instance = builder.open().await;
    let core = Arc::new(instance.core);
    let calendar = core.calendar.clone();
    let waited = (id.clone(), placed.clone());
    tokio::task::spawn_blocking(move || {
        calendar.revalidate(true);
        wait_until(&calendar, "the kind's event", |c| {
            !events_of(c, &waited.0, &waited.1).is_empty()
        });
    })
    .await
    .unwrap();
    let token = new_token(&core, "contract", &[Scope::EventsRead], Expiry::Never).await;
    let client = reqwest::Client::new();

    // REST.
    let state = RestState::from(core.as_ref());
    let rest = Listening::bind(0, move |port| rest::router(state, port))
        .await
        .unwrap();
    let from = placed.date - chrono::Duration::days(1);
    let to = placed.date + chrono::Duration::days(1);
    let answer = client
        .get(format!(
            "http://{}/api/v1/events?start={from}&end={to}&calendars={id}",
            rest.local_addr()
        ))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success(), "{answer:?}");
    let text = answer.text().await.unwrap();
    assert!(text.contains(&placed.title), "over REST: {text}");

    // The CalDAV server, switched on as the Settings window does.
    let server = caldav_server::start(
        core.plugin().clone(),
        core.calendar.clone(),
        &core.paths,
        core.settings.subscribe(),
    );
    let port = free_port();
    let plugin = core.plugin().clone();
    tokio::task::spawn_blocking(move || {
        plugin
            .update_settings(
                Actor::User,
                &json!({"caldavServer": {"enabled": true, "port": port}}),
            )
            .unwrap()
    })
    .await
    .unwrap();
    server
        .subscribe()
        .wait_for(|s| matches!(s, ServerState::Listening(a) if a.port() == port))
        .await
        .unwrap();
    let listing = client
        .request(
            reqwest::Method::from_bytes(b"PROPFIND").unwrap(),
            format!("http://127.0.0.1:{port}/calendars/{id}/"),
        )
        .basic_auth("contract", Some(&token))
        .header("Depth", "1")
        .body(
            r#"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop></d:propfind>"#,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(listing.status(), reqwest::StatusCode::MULTI_STATUS);
    let text = listing.text().await.unwrap();
    assert!(
        text.contains(&format!("SUMMARY:{}", placed.title)),
        "over CalDAV: {text}"
    );

    // Vault reminders: every kind's events remind (default reminders are
    // on), at the start minus the event's own alarm or the default minutes.
    let mut reminders = core.vault_reminders();
    let reminded = |set: &almanac_core::vault_reminders::VaultReminders| {
        set.reminders.iter().any(|r| r.title == placed.title)
    };
    let found = tokio::time::timeout(PATIENCE, reminders.wait_for(|set| reminded(set)))
        .await
        .is_ok_and(|found| found.is_ok());
    assert!(
        found,
        "no vault reminder for the event: {:?}",
        reminders.borrow().reminders
    );
    let set = reminders.borrow().clone();
    let reminder = set
        .reminders
        .iter()
        .find(|r| r.title == placed.title)
        .unwrap();
    // The occurrence the calendar shows (a kind whose events are not the
    // fixture's 09:00 ones, all-day holidays say, is checked alike).
    let shown = events_of(&core.calendar, &id, &placed);
    let start = match shown[0].start_millis {
        Some(millis) => chrono::DateTime::from_timestamp_millis(millis).unwrap(),
        // An all-day event (a holiday) starts at midnight in the display zone.
        None => {
            use chrono::TimeZone;
            let zone: chrono_tz::Tz = core.settings.get().display_timezone.parse().unwrap();
            let day = chrono::NaiveDate::parse_from_str(&shown[0].date, "%Y-%m-%d").unwrap();
            zone.from_local_datetime(&day.and_time(chrono::NaiveTime::MIN))
                .earliest()
                .unwrap()
                .with_timezone(&chrono::Utc)
        }
    };
    assert_eq!(reminder.start, start);
    assert_eq!(reminder.calendar_id, id);
    assert_eq!(
        reminder.trigger,
        start - chrono::Duration::minutes(i64::from(reminder.minutes_before)),
    );
    if !reminder.explicit {
        assert_eq!(reminder.minutes_before, 15, "the default minutes");
    }
    tokio::task::spawn_blocking(move || drop(fixture))
        .await
        .unwrap();
}
