//! A CalDAV calendar added in Settings › Calendars against a real Radicale
//! server, and subscription feeds made and revoked in Calendar Apps, driven
//! through the real window (tauri-driver + WebKitWebDriver under Xvfb), with
//! the session's real keyring and the app's real loopback servers.

use crate::support;

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_testkit::radicale::{PASSWORD, Radicale, USER};
use reqwest::StatusCode;
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const TITLES: &str = "[...document.querySelectorAll('.fc-event-title')].map(e => e.textContent)";

fn settings_file(instance: &AppHarness) -> String {
    std::fs::read_to_string(instance.config_home().join("almanac/settings.json")).unwrap()
}

/// The text of the element `id` once it is not empty.
async fn message(session: &Session, id: &str) -> String {
    let text = session
        .wait_for(&format!("document.getElementById('{id}').textContent"))
        .await;
    text.as_str().unwrap().to_string()
}

/// Saves what the window shows as `artifacts/screenshots/settings-<name>-light.png`.
async fn screenshot(session: &Session, name: &str) {
    session.painted().await;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../artifacts/screenshots/settings-{name}-light.png"
    ));
    session.screenshot(&path).await;
}

/// A Radicale server whose calendar holds the resource `name` (`ics`), put
/// there as another client would before the app starts.
async fn radicale_with(name: &'static str, ics: String) -> Radicale {
    tokio::task::spawn_blocking(move || {
        let server = Radicale::start();
        server.put(name, &ics);
        server
    })
    .await
    .unwrap()
}

/// `GET url` over loopback: its status and body.
async fn fetch(url: &str) -> (StatusCode, String) {
    let response = reqwest::get(url).await.unwrap();
    (response.status(), response.text().await.unwrap())
}

#[tokio::test]
async fn a_caldav_calendar_is_added_and_a_feed_made_and_revoked_in_settings() {
    let today = chrono::Utc::now().format("%Y%m%d").to_string();
    let server = radicale_with(
        "standup.ics",
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
             UID:standup\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{today}T090000Z\r\n\
             DURATION:PT1H\r\nSUMMARY:Standup on Radicale\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        ),
    )
    .await;
    let caldav_port = almanac_testkit::free_port();
    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "caldavServer": { "enabled": true, "port": caldav_port },
    }));
    let secret = instance.seed_token("driver", &["ui:open-calendar", "providers:write"]);
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session.click("#tab-calendars").await;
    session
        .wait_for("!document.getElementById('panel-calendars').hidden")
        .await;

    // A wrong password: the server's refusal next to the password field,
    // and nothing saved.
    session
        .execute(
            "const select = document.getElementById('add-type'); select.value = 'caldav'; \
             select.dispatchEvent(new Event('change'));",
            json!([]),
        )
        .await;
    session.type_into("#add-url", &server.url("/")).await;
    session.type_into("#add-username", USER).await;
    session.type_into("#add-password", "wrong").await;
    session.click("#add-submit").await;
    let error = message(&session, "add-password-error").await;
    assert!(
        error.contains("refused this user name or password"),
        "{error}"
    );
    assert!(!settings_file(&instance).contains(r#""type": "caldav""#));
    screenshot(&session, "caldav-add").await;

    // The right one: the calendar is added, its password in the keyring.
    session.retype("#add-password", PASSWORD).await;
    session.click("#add-submit").await;
    let row = "li[data-calendar-id='caldav_1']";
    session
        .wait_for(&format!("document.querySelector(\"{row}\")"))
        .await;
    let settings = settings_file(&instance);
    assert!(settings.contains(&server.calendar()), "{settings}");
    assert!(
        !settings.contains(PASSWORD),
        "no password in the settings file"
    );
    let keyring = Passwords::default();
    assert_eq!(keyring.get("caldav_1").unwrap().as_deref(), Some(PASSWORD));
    session
        .wait_for(&format!(
            "document.querySelector(\"{row} .calendar-count\").textContent.startsWith('1 event, synced')"
        ))
        .await;
    let where_ = session.text(&format!("{row} .calendar-where")).await;
    assert!(where_.contains("CalDAV calendar alice at"), "{where_}");

    // A new password is checked with the server before it is kept.
    session.click(&format!("{row} .change-password")).await;
    session
        .wait_for("document.getElementById('password-dialog').open")
        .await;
    session.type_into("#password-new", "nope").await;
    session.click("#password-save").await;
    let error = message(&session, "password-new-error").await;
    assert!(error.contains("refused"), "{error}");
    assert_eq!(keyring.get("caldav_1").unwrap().as_deref(), Some(PASSWORD));
    session.retype("#password-new", PASSWORD).await;
    session.click("#password-save").await;
    session
        .wait_for("!document.getElementById('password-dialog').open")
        .await;

    // Its event in the calendar window.
    let http = reqwest::Client::new();
    let opened = http
        .post(format!("{}/ui/open-calendar", instance.api()))
        .bearer_auth(&secret)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), StatusCode::OK);
    let settings_window = session.window_handle().await;
    let calendar_window = support::eventually("the calendar window", || async {
        session
            .window_handles()
            .await
            .into_iter()
            .find(|handle| *handle != settings_window)
    })
    .await;
    session.switch_to_window(&calendar_window).await;
    session
        .wait_for(&format!("{TITLES}.includes('Standup on Radicale')"))
        .await;
    session.switch_to_window(&settings_window).await;

    // The server gone: the calendar's status says so, next to it.
    let mut server = server;
    server.stop();
    let revalidated = http
        .post(format!("{}/providers/revalidate", instance.api()))
        .bearer_auth(&secret)
        .json(&json!({ "force": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(revalidated.status(), StatusCode::OK);
    let problem = session
        .wait_for(&format!(
            "document.querySelector(\"{row} .calendar-problem\").textContent"
        ))
        .await;
    assert!(
        problem.as_str().unwrap().contains("cannot be reached"),
        "{problem}"
    );

    // A feed of it: its URL shown once, served over loopback until revoked.
    session.click("#tab-api").await;
    session
        .wait_for("!document.getElementById('panel-api').hidden")
        .await;
    session.type_into("#feed-name", "Phone").await;
    session
        .click("#feed-calendars input[data-calendar-id='caldav_1']")
        .await;
    session.click("#feed-create").await;
    let url = message(&session, "feed-url").await;
    assert!(
        url.starts_with(&format!("http://127.0.0.1:{caldav_port}/feeds/")),
        "{url}"
    );
    let off = session
        .execute(
            "return document.getElementById('feed-off').hidden",
            json!([]),
        )
        .await;
    assert_eq!(off, json!(true), "the server is on: no warning");
    session.click("#feed-copy").await;
    let copied = message(&session, "feed-copy-message").await;
    assert!(
        copied == "Copied" || copied.starts_with("Selected"),
        "{copied}"
    );
    screenshot(&session, "feeds").await;
    let (status, body) = fetch(&url).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("SUMMARY:Standup on Radicale"), "{body}");
    session.click("#feed-done").await;
    assert_eq!(
        session.text("#feed-url").await,
        "",
        "the URL leaves the page"
    );
    let listed = session.text("#feed-rows").await;
    assert!(
        listed.contains("Phone") && listed.contains("Work"),
        "{listed}"
    );
    let secret_part = url.rsplit('/').next().unwrap().trim_end_matches(".ics");
    assert!(!listed.contains(secret_part), "the list shows no secret");

    session.click("#feed-rows button.danger").await;
    session
        .wait_for("document.getElementById('feed-revoke-dialog').open")
        .await;
    session.click("#feed-revoke-confirm").await;
    session
        .wait_for("!document.getElementById('no-feeds').hidden")
        .await;
    assert_eq!(fetch(&url).await.0, StatusCode::NOT_FOUND);
    session.end().await;
    keyring.delete("caldav_1").unwrap();
}

/// "This occurrence" of a CalDAV series, edited in the calendar window, is
/// kept by the series itself as an edited occurrence (`RECURRENCE-ID` in the
/// same resource on the server): other CalDAV clients still see one series,
/// not a copy next to a skipped date.
#[tokio::test]
async fn one_occurrence_of_a_caldav_series_is_edited_in_place_from_the_window() {
    let today = chrono::Utc::now().date_naive();
    let first = (today - chrono::Duration::days(3))
        .format("%Y%m%d")
        .to_string();
    let server = radicale_with(
        "daily.ics",
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
             UID:daily\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{first}T090000Z\r\n\
             DURATION:PT30M\r\nRRULE:FREQ=DAILY;COUNT=7\r\nSUMMARY:Daily sync\r\n\
             END:VEVENT\r\nEND:VCALENDAR\r\n"
        ),
    )
    .await;
    // The session's keyring is shared by this file's tests: an id of its own.
    // No calendarUrl, as an import leaves it: the first sync discovers it.
    let id = format!("caldav_series_{}", std::process::id());
    let keyring = Passwords::default();
    keyring.set(&id, PASSWORD).unwrap();
    let instance = AppHarness::with_settings(json!({
        "initialView": "dayGridMonth",
        "displayTimezone": "UTC",
        "calendarSources": [{ "type": "caldav", "id": id, "name": "Radicale", "color": "#0f766e",
                              "url": server.calendar(), "username": USER }],
    }));
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    let in_day = |date: chrono::NaiveDate, title: &str| {
        format!(".fc-daygrid-day[data-date='{date}'] .fc-event[data-title='{title}']")
    };
    session
        .wait_for(&format!(
            "document.querySelector(\"{}\")",
            in_day(today, "Daily sync")
        ))
        .await;
    session.click(&in_day(today, "Daily sync")).await;
    session
        .wait_for("!document.getElementById('ev-scope').hidden")
        .await;
    assert_eq!(session.text("#ev-occurrence").await, today.to_string());
    session.retype("#ev-title", "Daily sync with Ada").await;
    session.click("#ev-save").await;
    session
        .wait_for("!document.getElementById('event-dialog').open")
        .await;

    // On the server: the same resource, the series and its edited occurrence.
    let resource = server.url("/alice/work/daily.ics");
    let ics = support::eventually("the edited occurrence on the server", || {
        let resource = resource.clone();
        async move {
            let body = reqwest::Client::new()
                .get(resource)
                .basic_auth(USER, Some(PASSWORD))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            body.contains("RECURRENCE-ID").then_some(body)
        }
    })
    .await;
    let unfolded = ics.replace("\r\n ", "");
    for line in [
        format!("RECURRENCE-ID:{}T090000Z", today.format("%Y%m%d")),
        "SUMMARY:Daily sync with Ada".to_string(),
        "SUMMARY:Daily sync\r\n".to_string(),
        "RRULE:FREQ=DAILY;COUNT=7".to_string(),
    ] {
        assert!(unfolded.contains(&line), "{line:?} in\n{ics}");
    }
    assert!(
        !unfolded.contains("EXDATE"),
        "not skipped and copied:\n{ics}"
    );

    // In the window: that day's occurrence renamed, the others as they were.
    session
        .wait_for(&format!(
            "document.querySelector(\"{}\") && !document.querySelector(\"{}\")",
            in_day(today, "Daily sync with Ada"),
            in_day(today, "Daily sync")
        ))
        .await;
    let others = session
        .execute(
            "return document.querySelectorAll(\".fc-event[data-title='Daily sync']\").length",
            json!([]),
        )
        .await;
    assert!(others.as_u64() >= Some(3), "{others}");
    session.end().await;
    keyring.delete(&id).unwrap();
}
