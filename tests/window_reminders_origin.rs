//! The Reminders window says where each reminder comes from (a host that
//! synced it, or the vault) and shows its times in the settings' display
//! zone, not the machine's.

use crate::support;

use almanac_core::tokens::Scope;
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme, shown_in_zone};
use support::{epoch_now, eventually, port_open};

#[tokio::test]
async fn rows_show_their_source_and_times_in_the_display_timezone() {
    let instance = AppHarness::with_settings(json!({
        "displayTimezone": "Asia/Kolkata",
        "restServerEnabled": true,
    }));
    let admin = instance.mint_token(&[Scope::SystemFullAccess]);
    let session =
        Session::start_with_env(&instance, "reminders", Theme::Light, &[("TZ", "UTC")]).await;
    eventually("the reminder daemon", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;
    let trigger = epoch_now() + 3600;
    instance
        .sync_reminders(
            json!([{ "id": "dentist", "title": "Call the dentist", "body": "Before noon",
            "trigger_at_epoch": trigger, "action_url": "" }]),
        )
        .await;
    let row = "#upcoming tr[data-reminder-id=dentist]";
    session
        .wait_for(&format!("document.querySelector('{row}')"))
        .await;

    // Synced over /sync: a host's reminder, with no event of the vault's.
    let origin = session
        .execute(
            &format!(
                "const badge = document.querySelector('{row} .reminder-origin .badge');
                 return [badge.dataset.source, badge.textContent,
                         document.querySelector('{row} .reminder-event')?.textContent ?? null];"
            ),
            json!([]),
        )
        .await;
    assert_eq!(origin, json!(["host", "Host", null]));

    // Kolkata is UTC+5:30 all year: the half hour tells the zones apart.
    let shown = |zone: &str| shown_in_zone(trigger * 1000, zone);
    let when = session
        .execute(
            &format!(
                "return [document.querySelector('{row} td.when').textContent, {}, {}];",
                shown("Asia/Kolkata"),
                shown("UTC")
            ),
            json!([]),
        )
        .await;
    assert_eq!(when[0], when[1], "{when}");
    assert_ne!(when[0], when[2], "{when}");

    // A new display zone applies live.
    instance
        .update_settings(&admin, json!({ "displayTimezone": "America/New_York" }))
        .await;
    session
        .wait_for(&format!(
            "document.querySelector('{row} td.when').textContent === {}",
            shown("America/New_York")
        ))
        .await;
    session.end().await;
}

#[tokio::test]
async fn a_vault_reminder_shows_its_source_and_event() {
    let instance = AppHarness::new();
    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    instance.write_note(
        "Dentist.md",
        &format!(
            "title: Dentist appointment\nallDay: false\ndate: {tomorrow}\nstartTime: \"10:00\"\nendTime: \"11:00\"\nnotify:\n  value: 30"
        ),
    );
    let session = Session::start(&instance, "reminders", Theme::Light).await;
    // Derived from the note by the app itself: no host synced anything.
    let row = "#upcoming tr:has(.badge[data-source=vault])";
    session
        .wait_for(&format!("document.querySelector('{row}')"))
        .await;
    let shown = session
        .execute(
            &format!(
                "return [document.querySelector('{row} .reminder-origin .badge').textContent,
                         document.querySelector('{row} .reminder-event')?.textContent ?? null];"
            ),
            json!([]),
        )
        .await;
    assert_eq!(shown, json!(["Vault", "Dentist appointment"]));
    session.end().await;
}
