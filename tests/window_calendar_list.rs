//! The calendar window's list of calendars (`ui/src/js/calendar_list.js`):
//! a box hides a calendar's events in the window and the choice survives a
//! restart; Alt-click shows one calendar alone (and again, all of them); a
//! feed says it is read-only, and an error beside its name once its fetch
//! fails; the gear opens Settings on Calendars.

use crate::support;

use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

fn shown(title: &str) -> String {
    format!("document.querySelector(\".fc-event[data-title='{title}']\")")
}

fn box_of(id: &str) -> String {
    format!("#calendar-list input[data-calendar-id='{id}']")
}

#[tokio::test]
async fn hiding_a_calendar_hides_its_events_and_survives_a_restart() {
    // A port nothing listens on: the feed's fetch fails.
    let closed = support::free_port();
    let instance = AppHarness::with_settings(json!({
        "initialView": "dayGridMonth",
        "calendarSources": [
            { "type": "local", "id": "work", "name": "Work", "directory": "events", "color": "#3b6fd4" },
            { "type": "local", "id": "home", "name": "Home", "directory": "home", "color": "#c2410c" },
            { "type": "ical", "id": "feed", "name": "Team feed", "color": "#8e24aa",
              "url": format!("http://127.0.0.1:{closed}/team.ics"), "allowPrivateNetwork": true },
        ],
    }));
    let today = chrono::Utc::now().date_naive();
    std::fs::create_dir_all(instance.vault().join("home")).unwrap();
    std::fs::write(
        instance.vault().join("home/Garden.md"),
        format!("---\ntitle: Garden\nallDay: true\ndate: {today}\n---\n"),
    )
    .unwrap();
    instance.write_note(
        "Report.md",
        &format!("title: Report\nallDay: true\ndate: {today}"),
    );

    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session.wait_for(&shown("Garden")).await;
    session.wait_for(&shown("Report")).await;

    // The feed: read-only at once, an error once its fetch failed.
    let status =
        "document.querySelector(\"#calendar-list li[data-calendar-id='feed'] .cal-status\")";
    session
        .wait_for(&format!(
            "{status}?.textContent === 'read-only' || {status}?.textContent === 'error'"
        ))
        .await;
    session
        .wait_for(&format!(
            "{status}.textContent === 'error' && {status}.title.length > 0"
        ))
        .await;

    // Unticking Home hides its event, Work's stays.
    session.click(&box_of("home")).await;
    session.wait_for(&format!("!{}", shown("Garden"))).await;
    let saved = instance.data_home().join("almanac/calendar-window.json");
    support::eventually("the choice saved", || async {
        std::fs::read_to_string(&saved)
            .ok()
            .filter(|state| state.contains("\"home\""))
    })
    .await;
    assert!(
        session
            .execute(&format!("return Boolean({})", shown("Report")), json!([]))
            .await
            .as_bool()
            .unwrap()
    );

    // The gear opens Settings on its Calendars section.
    let calendar_window = session.window_handle().await;
    session
        .click("#calendar-list li[data-calendar-id='work'] .cal-settings")
        .await;
    let settings = support::eventually("the settings window", || async {
        for handle in session.window_handles().await {
            if handle != calendar_window
                && session
                    .page_in(&handle)
                    .await
                    .is_some_and(|page| page.contains("settings"))
            {
                return Some(handle);
            }
        }
        None
    })
    .await;
    session.switch_to_window(&settings).await;
    session
        .wait_for("document.body.dataset.section === 'calendars'")
        .await;
    session.switch_to_window(&calendar_window).await;
    session.end().await;

    // After a restart Home is still hidden.
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session.wait_for(&shown("Report")).await;
    session
        .wait_for(&format!(
            "document.body.dataset.ready === 'true' && !document.querySelector(\"{}\").checked",
            box_of("home")
        ))
        .await;
    assert!(
        !session
            .execute(&format!("return Boolean({})", shown("Garden")), json!([]))
            .await
            .as_bool()
            .unwrap()
    );

    // Alt-click on Home: Home alone; again: every calendar.
    session
        .execute(
            "document.querySelector(arguments[0]).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, altKey: true }))",
            json!([box_of("home")]),
        )
        .await;
    session.wait_for(&shown("Garden")).await;
    session.wait_for(&format!("!{}", shown("Report"))).await;
    session
        .wait_for(&format!(
            "!document.querySelector(\"{}\").checked && document.querySelector(\"{}\").checked",
            box_of("work"),
            box_of("home")
        ))
        .await;
    session
        .execute(
            "document.querySelector(arguments[0]).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, altKey: true }))",
            json!([box_of("home")]),
        )
        .await;
    session.wait_for(&shown("Report")).await;
    session.wait_for(&shown("Garden")).await;
    session.end().await;
}
