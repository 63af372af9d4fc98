//! Every window, in light and dark, rendered for real and saved as PNG under
//! `artifacts/screenshots/` for review. Each shot also checks that the page
//! loaded, used the theme asked for, and shows the vault's and daemon's data.

mod support;

use std::path::PathBuf;

use serde_json::json;
use support::instance::Instance;
use support::webdriver::{Session, Theme};
use support::{epoch_now, eventually, port_open};

fn screenshot_path(window: &str, theme: Theme) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../artifacts/screenshots")
        .join(format!("{window}-{}.png", theme.name()))
}

/// An instance with events today and tomorrow, and reminders: one already
/// fired, one upcoming.
async fn populated_instance() -> Instance {
    let instance = Instance::with_settings(json!({ "restServerEnabled": true }));
    let today = chrono_today();
    instance.write_note(
        &format!("{today} Standup.md"),
        &format!(
            "title: Standup\nallDay: false\ndate: {today}\nstartTime: \"09:00\"\nendTime: \"09:30\""
        ),
    );
    instance.write_note(
        &format!("{today} Release day.md"),
        &format!("title: Release day\nallDay: true\ndate: {today}"),
    );
    instance.write_note(
        "weekly review.md",
        &format!(
            "title: Weekly review\ntype: recurring\ndaysOfWeek: [F]\nstartRecur: {today}\nstartTime: \"16:00\"\nendTime: \"17:00\""
        ),
    );
    instance
}

/// Today's date in UTC (the instance's display time zone).
fn chrono_today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// Syncs one reminder due in two seconds and one due in an hour.
async fn sync_reminders(instance: &Instance) {
    eventually("the reminder daemon", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;
    let now = epoch_now();
    instance
        .sync_reminders(json!([
            { "id": "soon", "title": "Water the plants", "body": "Balcony first",
              "trigger_at_epoch": now + 2, "action_url": "obsidian://open?file=Plants" },
            { "id": "later", "title": "Call the dentist", "body": "Before noon",
              "trigger_at_epoch": now + 3600, "action_url": "https://example.org/dentist" },
        ]))
        .await;
}

/// The page background: what prefers-color-scheme chose.
async fn background(session: &Session) -> String {
    session
        .execute(
            "return getComputedStyle(document.body).backgroundColor",
            json!([]),
        )
        .await
        .as_str()
        .unwrap()
        .to_string()
}

async fn shoot(window: &str, theme: Theme, check: &str) {
    let instance = populated_instance().await;
    let session = Session::start(&instance, window, theme).await;
    if window == "reminders" {
        sync_reminders(&instance).await;
        session.wait_for("document.querySelector('#fired tr[data-reminder-id=soon]') && document.querySelector('#upcoming tr[data-reminder-id=later]')").await;
    }
    session.wait_for(check).await;
    if window == "settings" {
        // Show the token form, then a created token with its one-time secret.
        session.click("#generate-open").await;
        session.type_into("#token-name", "backup script").await;
        for scope in ["events:read", "providers:read"] {
            session
                .click(&format!("input[name=scope][value='{scope}']"))
                .await;
        }
        session
            .screenshot(&screenshot_path("settings-generate", theme))
            .await;
        session.click("#generate-submit").await;
        session
            .wait_for("document.getElementById('secret-value').textContent")
            .await;
    }
    if window == "sidebar" {
        // Docked: flush with the right edge of the screen, full height.
        let rect = session.window_rect().await;
        let screen = session
            .execute("return [screen.width, screen.height]", json!([]))
            .await;
        assert_eq!(
            rect["x"].as_i64().unwrap() + rect["width"].as_i64().unwrap(),
            screen[0].as_i64().unwrap(),
            "{rect}"
        );
        assert_eq!(rect["height"], screen[1], "{rect}");
    }
    let expected = match theme {
        Theme::Light => "rgb(255, 255, 255)",
        Theme::Dark => "rgb(27, 29, 33)",
    };
    assert_eq!(
        background(&session).await,
        expected,
        "{window} in {theme:?}"
    );
    session.screenshot(&screenshot_path(window, theme)).await;
    session.end().await;
}

const CALENDAR_READY: &str =
    "[...document.querySelectorAll('.fc-event-title')].some(e => e.textContent === 'Standup')";

#[tokio::test]
async fn calendar_light_and_dark() {
    for theme in [Theme::Light, Theme::Dark] {
        shoot("calendar", theme, CALENDAR_READY).await;
    }
}

#[tokio::test]
async fn sidebar_light_and_dark_docked_right() {
    for theme in [Theme::Light, Theme::Dark] {
        shoot(
            "sidebar",
            theme,
            "[...document.querySelectorAll('.fc-list-event-title')].some(e => e.textContent === 'Standup')",
        )
        .await;
    }
}

#[tokio::test]
async fn settings_light_and_dark() {
    for theme in [Theme::Light, Theme::Dark] {
        shoot(
            "settings",
            theme,
            "document.getElementById('rest-status').dataset.state === 'running'",
        )
        .await;
    }
}

#[tokio::test]
async fn reminders_light_and_dark() {
    for theme in [Theme::Light, Theme::Dark] {
        shoot("reminders", theme, "true").await;
    }
    support::dismiss_notifications();
}
