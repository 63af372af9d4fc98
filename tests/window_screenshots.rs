//! Every window, in light and dark, rendered for real and saved as PNG under
//! `artifacts/screenshots/` for review, each taken once the page has painted.
//! Each shot also checks that the page loaded, used the theme asked for, and
//! shows the vault's and daemon's data; the calendar's month and week show a
//! populated vault of two calendars, each in its colour; the first start's
//! welcome offers a Full Calendar vault's import.

use crate::support;

use std::path::PathBuf;

use chrono::NaiveDate;
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};
use support::{epoch_now, eventually, port_open};

fn screenshot_path(window: &str, theme: Theme) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../artifacts/screenshots")
        .join(format!("{window}-{}.png", theme.name()))
}

/// The two calendars' colours: the screenshots show each calendar's events
/// in its own colour.
const WORK_COLOR: (&str, &str) = ("#3b6fd4", "rgb(59, 111, 212)");
const HOME_COLOR: (&str, &str) = ("#c2410c", "rgb(194, 65, 12)");

/// An instance with a realistic mix around today in two calendars (Work and
/// Home, each with its colour): timed, all-day, multi-day, weekly and
/// monthly series, open and done tasks, and a long title.
async fn populated_instance() -> AppHarness {
    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "calendarSources": [
            { "type": "local", "id": "work", "name": "Work", "directory": "work", "color": WORK_COLOR.0 },
            { "type": "local", "id": "home", "name": "Home", "directory": "home", "color": HOME_COLOR.0 },
        ],
    }));
    let today = chrono::Utc::now().date_naive();
    let day = |offset: i64| today + chrono::Duration::days(offset);
    let since = day(-40);
    let timed = |title: &str, date: NaiveDate, start: &str, end: &str| {
        format!(
            "title: {title}\nallDay: false\ndate: {date}\nstartTime: \"{start}\"\nendTime: \"{end}\""
        )
    };
    let notes = [
        ("work", "Standup", timed("Standup", today, "09:00", "09:30")),
        (
            "work",
            "Release day",
            format!("title: Release day\nallDay: true\ndate: {today}"),
        ),
        (
            "work",
            "Conference",
            format!(
                "title: Conference in Lyon\nallDay: true\ndate: {}\nendDate: {}",
                day(1),
                day(3)
            ),
        ),
        (
            "work",
            "Weekly review",
            format!(
                "title: Weekly review\ntype: recurring\ndaysOfWeek: [F]\nstartRecur: {since}\nstartTime: \"16:00\"\nendTime: \"17:00\""
            ),
        ),
        (
            "work",
            "Quarterly planning",
            timed(
                "Quarterly planning with the design and engineering teams",
                day(-1),
                "10:00",
                "12:00",
            ),
        ),
        (
            "work",
            "Send the report",
            format!(
                "{}\ncompleted: false",
                timed("Send the report", day(2), "11:00", "11:30")
            ),
        ),
        (
            "work",
            "Lunch with Ada",
            timed("Lunch with Ada", day(1), "12:30", "13:30"),
        ),
        (
            "home",
            "Gym",
            format!(
                "title: Gym\ntype: recurring\ndaysOfWeek: [M, W]\nstartRecur: {since}\nstartTime: \"17:30\"\nendTime: \"18:30\""
            ),
        ),
        (
            "home",
            "Book club",
            format!(
                "title: Book club\ntype: rrule\nrrule: FREQ=MONTHLY;BYDAY=2TU\nstartDate: {since}\nallDay: false\nstartTime: \"18:30\"\nendTime: \"20:00\""
            ),
        ),
        (
            "home",
            "Dinner",
            timed("Dinner with Grace", day(2), "19:00", "21:00"),
        ),
        (
            "home",
            "Dentist",
            timed("Dentist", day(-2), "14:00", "15:00"),
        ),
        (
            "home",
            "Pay rent",
            format!(
                "title: Pay rent\nallDay: true\ndate: {}\ncompleted: false",
                day(4)
            ),
        ),
        (
            "home",
            "Buy groceries",
            format!("title: Buy groceries\nallDay: true\ndate: {today}\ncompleted: true"),
        ),
    ];
    for (calendar, name, frontmatter) in notes {
        let folder = instance.vault().join(calendar);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("{name}.md")),
            format!("---\n{frontmatter}\n---\n"),
        )
        .unwrap();
    }
    instance
}

/// Syncs one reminder due in two seconds and one due in an hour.
async fn sync_reminders(instance: &AppHarness) {
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
    if window == "sidebar" {
        // Its next-reminder line names the one due in an hour.
        sync_reminders(&instance).await;
        session
            .wait_for("document.querySelector('.next-reminder-title')?.textContent === 'Call the dentist'")
            .await;
    }
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

/// Whether an event titled `arguments[0]` is drawn.
const SHOWN: &str = "return [...document.querySelectorAll('.fc-event-title')].some((e) => e.textContent === arguments[0]);";

/// The calendar's month view (the default) and week view of the populated
/// vault, each checked to show its events in their calendars' colours.
async fn shoot_calendar(theme: Theme) {
    let instance = populated_instance().await;
    let session = Session::start(&instance, "calendar", theme).await;
    for (view, name) in [
        ("dayGridMonth", "calendar-month"),
        ("timeGridWeek", "calendar-week"),
    ] {
        if view != "dayGridMonth" {
            session.click(&format!(".fc-{view}-button")).await;
        }
        session
            .wait_for(&format!("document.body.dataset.view === '{view}'"))
            .await;
        session
            .wait_for("[...document.querySelectorAll('.fc-event-title')].some((e) => e.textContent === 'Standup')")
            .await;
        // Today's events and the series are in every view of today. A month
        // cell draws three events: on a Monday, Wednesday or Friday today's
        // fourth (a series, the latest) is under "+1 more", and drawn on the
        // series' other days.
        for title in [
            "Standup",
            "Release day",
            "Buy groceries",
            "Weekly review",
            "Gym",
        ] {
            assert_eq!(
                session.execute(SHOWN, json!([title])).await,
                json!(true),
                "{title} in {view}"
            );
        }
        assert_calendar_colours(&session).await;
        session.screenshot(&screenshot_path(name, theme)).await;
    }
    // The agenda, and a search with its results in the sidebar.
    session.press("a").await;
    session
        .wait_for("document.body.dataset.view === 'agenda' && document.querySelector(\".fc-list-event[data-title='Standup']\")")
        .await;
    session.painted().await;
    session
        .screenshot(&screenshot_path("calendar-agenda", theme))
        .await;
    session.press("/").await;
    session.press("re").await;
    session
        .wait_for("document.body.dataset.searched === 're' && document.querySelector('#search-results li')")
        .await;
    session.painted().await;
    session
        .screenshot(&screenshot_path("calendar-search", theme))
        .await;
    session.end().await;
}

/// Each event is drawn in its calendar's colour: a block's background, or a
/// timed event's dot in the month view.
async fn assert_calendar_colours(session: &Session) {
    let colours = session
        .execute(
            "const colour = (e) => {
               const dot = e.querySelector('.fc-daygrid-event-dot');
               return dot ? getComputedStyle(dot).borderTopColor : getComputedStyle(e).backgroundColor;
             };
             const byCalendar = { work: new Set(), home: new Set() };
             const home = ['Gym', 'Book club', 'Dinner with Grace', 'Dentist', 'Pay rent', 'Buy groceries'];
             // A day's +N more link belongs to no calendar.
             for (const e of document.querySelectorAll('.fc-event:not(.almanac-more)')) {
               const title = e.querySelector('.fc-event-title')?.textContent;
               if (title) byCalendar[home.includes(title) ? 'home' : 'work'].add(colour(e));
             }
             return [[...byCalendar.work], [...byCalendar.home]];",
            json!([]),
        )
        .await;
    assert_eq!(colours, json!([[WORK_COLOR.1], [HOME_COLOR.1]]));
}

#[tokio::test]
async fn calendar_month_and_week_populated_light_and_dark() {
    for theme in [Theme::Light, Theme::Dark] {
        shoot_calendar(theme).await;
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
    support::dismiss_notifications();
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

/// The first start's welcome, with the import of a Full Calendar vault
/// offered (its calendars, reminder and display settings listed).
#[tokio::test]
async fn welcome_light_and_dark() {
    for theme in [Theme::Light, Theme::Dark] {
        let instance = AppHarness::new();
        std::fs::remove_file(instance.data_home().join("almanac/autostart-asked")).unwrap();
        let vault = instance.root().join("Work Notes");
        let plugin = vault.join(".obsidian/plugins/full-calendar-remastered/data.json");
        std::fs::create_dir_all(plugin.parent().unwrap()).unwrap();
        std::fs::write(
            &plugin,
            json!({
                "calendarSources": [
                    {"type": "local", "id": "local_1", "name": "Team", "directory": "Calendar", "color": "#2e7d32"}
                ],
                "firstDay": 1,
                "timeFormat24h": true,
                "initialView": {"desktop": "timeGridWeek", "mobile": "timeGrid3Days"},
                "enableReminders": true,
                "defaultReminderMinutes": 15
            })
            .to_string(),
        )
        .unwrap();
        let list = instance.config_home().join("obsidian/obsidian.json");
        std::fs::create_dir_all(list.parent().unwrap()).unwrap();
        std::fs::write(
            &list,
            json!({"vaults": {"3f2a9c1d7e6b5a40": {"path": vault, "ts": 1_764_000_000_000_i64}}})
                .to_string(),
        )
        .unwrap();
        let session = Session::start(&instance, "settings", theme).await;
        session
            .wait_for("document.getElementById('first-start').dataset.ready === 'true'")
            .await;
        session.click("#first-start-vaults li button").await;
        session
            .wait_for("!document.getElementById('import-offer').hidden")
            .await;
        session.painted().await;
        session.screenshot(&screenshot_path("welcome", theme)).await;
        session.end().await;
    }
}
