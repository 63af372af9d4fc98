//! The calendar window's list of calendars (`ui/src/js/calendar_list.js`):
//! a box hides a calendar's events in the window and the choice survives a
//! restart; Alt-click shows one calendar alone (and again, all of them); a
//! feed says it is read-only, and an error beside its name once its fetch
//! fails; the gear opens Settings on Calendars. A feed being fetched says
//! "syncing" for as long as its server takes to answer.

use crate::support;

use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{oneshot, watch};

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

/// A feed server on loopback that holds every request until released:
/// it says when the first one arrived, and answers `body` to each once
/// `release` is sent true (a later fetch, once released, at once).
async fn held_feed(body: String) -> (u16, oneshot::Receiver<()>, watch::Sender<bool>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (arrived, on_arrival) = oneshot::channel();
    let (release, released) = watch::channel(false);
    tokio::spawn(async move {
        let mut arrived = Some(arrived);
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            // The request's head (a GET has no body) arrives whole before
            // the answer is held.
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => head.extend_from_slice(&buf[..read]),
                }
            }
            if let Some(arrived) = arrived.take() {
                arrived.send(()).unwrap();
            }
            let (body, mut released) = (body.clone(), released.clone());
            tokio::spawn(async move {
                released.wait_for(|go| *go).await.unwrap();
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (port, on_arrival, release)
}

#[tokio::test]
async fn a_feed_being_fetched_says_syncing_until_its_server_answers() {
    let today = chrono::Utc::now().date_naive().format("%Y%m%d");
    let feed = format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
         UID:offsite@example.org\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:{today}\r\n\
         SUMMARY:Offsite\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    );
    let (port, arrived, release) = held_feed(feed).await;
    let instance = AppHarness::with_settings(json!({
        "initialView": "dayGridMonth",
        "calendarSources": [
            { "type": "ical", "id": "feed", "name": "Team feed", "color": "#8e24aa",
              "url": format!("http://127.0.0.1:{port}/team.ics"), "allowPrivateNetwork": true },
        ],
    }));
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    arrived.await.unwrap();
    let status =
        "document.querySelector(\"#calendar-list li[data-calendar-id='feed'] .cal-status\")";
    session
        .wait_for(&format!("{status}?.textContent === 'syncing'"))
        .await;
    assert_eq!(
        session
            .execute(&format!("return !!{}", shown("Offsite")), json!([]))
            .await,
        json!(false),
        "nothing is shown before the feed answers"
    );
    release.send(true).unwrap();
    session.wait_for(&shown("Offsite")).await;
    session
        .wait_for(&format!("{status}?.textContent === 'read-only'"))
        .await;
    session.end().await;
}
