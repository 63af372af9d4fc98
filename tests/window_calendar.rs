//! The calendar window: live as the vault changes, and driven by the REST
//! routes `ui/open-calendar`, `ui/open-sidebar` and `ui/change-view` through
//! the shell's UI controller.

use crate::support;

use almanac_core::tokens::Scope;
use chrono::TimeZone;
use chrono_tz::America::New_York;
use chrono_tz::Europe::Berlin;
use reqwest::StatusCode;
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

const TITLES: &str = "[...document.querySelectorAll('.fc-event-title')].map(e => e.textContent)";

#[tokio::test]
async fn calendar_follows_vault_edits() {
    let instance = AppHarness::new();
    let today = today();
    instance.write_note(
        &format!("{today} Planning.md"),
        &format!("title: Planning\nallDay: true\ndate: {today}"),
    );
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for(&format!("{TITLES}.includes('Planning')"))
        .await;

    // A note written by another program appears without any reload.
    instance.write_note(
        &format!("{today} Lunch with Ada.md"),
        &format!("title: Lunch with Ada\nallDay: false\ndate: {today}\nstartTime: \"12:00\"\nendTime: \"13:00\""),
    );
    session
        .wait_for(&format!("{TITLES}.includes('Lunch with Ada')"))
        .await;

    // And disappears when the note is deleted.
    std::fs::remove_file(instance.vault().join(format!("events/{today} Planning.md"))).unwrap();
    session
        .wait_for(&format!("!{TITLES}.includes('Planning')"))
        .await;
    session.end().await;
}

#[tokio::test]
async fn rest_ui_routes_drive_the_windows() {
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    // A token with the three ui scopes. (The calendar window itself may not
    // make tokens: its capability grants only what its page calls.)
    let secret = instance.mint_token(&[
        Scope::UiOpenCalendar,
        Scope::UiOpenSidebar,
        Scope::UiChangeView,
    ]);
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.view === 'dayGridMonth'")
        .await;
    let http = reqwest::Client::new();
    let post = |route: &str, body: serde_json::Value| {
        http.post(format!("{}/ui/{route}", instance.api()))
            .bearer_auth(&secret)
            .json(&body)
            .send()
    };

    let switched = post("change-view", json!({ "viewName": "timeGridWeek" }))
        .await
        .unwrap();
    assert_eq!(switched.status(), StatusCode::OK);
    session
        .wait_for("document.body.dataset.view === 'timeGridWeek'")
        .await;

    let unknown = post("change-view", json!({ "viewName": "yearGrid" }))
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    session
        .wait_for("document.body.dataset.view === 'timeGridWeek'")
        .await;

    assert_eq!(session.window_handles().await.len(), 1);
    let opened = post("open-sidebar", json!({})).await.unwrap();
    assert_eq!(opened.status(), StatusCode::OK);
    support::eventually("the sidebar window", || async {
        (session.window_handles().await.len() == 2).then_some(())
    })
    .await;
    // Opening what is open focuses it: still two windows.
    assert_eq!(
        post("open-sidebar", json!({})).await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        post("open-calendar", json!({})).await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(session.window_handles().await.len(), 2);
    session.end().await;
}

#[tokio::test]
async fn calendar_shows_times_in_the_display_timezone() {
    // The app's process runs on UTC while the settings say Berlin (UTC+1 or
    // +2): rendering in the machine's zone would show 8:30 or 7:30. The
    // event is today (in Berlin), so the week view opens on it: no stepping
    // through the weeks in between.
    let day = chrono::Utc::now().with_timezone(&Berlin).date_naive();
    let instance = AppHarness::with_settings(json!({
        "displayTimezone": "Europe/Berlin",
        "initialView": "timeGridWeek",
        "restServerEnabled": true,
    }));
    let admin = instance.mint_token(&[Scope::SystemFullAccess]);
    instance.write_note(
        &format!("{day} Standup.md"),
        &format!("title: Standup\nallDay: false\ndate: {day}\ntimezone: Europe/Berlin\nstartTime: \"09:30\"\nendTime: \"10:30\""),
    );
    let session =
        Session::start_with_env(&instance, "calendar", Theme::Light, &[("TZ", "UTC")]).await;
    let machine_offset = session
        .execute(
            "return new Date(Date.UTC(2026, 0, 15, 9)).getTimezoneOffset();",
            json!([]),
        )
        .await;
    assert_eq!(machine_offset, json!(0), "the webview runs on UTC");

    session
        .wait_for(&format!("{TITLES}.includes('Standup')"))
        .await;
    let time = session
        .execute(
            "return document.querySelector('.fc-timegrid-event .fc-event-time').textContent;",
            json!([]),
        )
        .await;
    assert_eq!(time, json!("9:30 - 10:30"));

    // A new display zone applies live: 09:30 in Berlin is 03:30 in New York
    // (04:30 in the weeks one of them keeps summer time and the other not).
    let in_new_york = |hour| {
        let berlin = Berlin
            .from_local_datetime(&day.and_hms_opt(hour, 30, 0).unwrap())
            .unwrap();
        berlin.with_timezone(&New_York).format("%-H:%M").to_string()
    };
    let expected = format!("{} - {}", in_new_york(9), in_new_york(10));
    instance
        .update_settings(&admin, json!({ "displayTimezone": "America/New_York" }))
        .await;
    let shown = format!(
        "document.querySelector('.fc-timegrid-event .fc-event-time')?.textContent === '{expected}'"
    );
    session.wait_for(&shown).await;
    session.end().await;
}
