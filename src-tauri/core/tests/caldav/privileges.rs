//! What the server lets clients write is the calendar's kind's to say (the
//! registry's writability), for a calendar and each of its resources alike:
//! a CalDAV-source calendar (two-way, on a real Radicale server) is
//! writable, its events too, and a write reaches that server; an ICS feed's
//! events are read-only, as the feed is.

use std::sync::{Arc, Mutex};

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::calendar::{Calendar, EventQuery};
use almanac_core::settings::{CalendarSource, KindSettings};
use almanac_testkit::radicale::{PASSWORD, Radicale, USER};
use almanac_testkit::{HttpStub, wait_until};
use reqwest::StatusCode;

use crate::caldav::support::CaldavHarness;

const FEED: &str = "published";

fn vcalendar(uid: &str, title: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//privileges//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART:20260113T090000Z\r\nDTEND:20260113T100000Z\r\n\
         SUMMARY:{title}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

fn calendar_source(id: &str, kind: KindSettings) -> CalendarSource {
    CalendarSource {
        id: id.into(),
        name: id.into(),
        color: "#336699".into(),
        kind,
        order: None,
        components: None,
    }
}

/// The privileges of each resource (not the collection) of a `207`, by href.
fn resource_privileges(multistatus: &str) -> Vec<(String, String)> {
    multistatus
        .split("<D:response>")
        .filter_map(|response| {
            let href = response
                .split("<D:href>")
                .nth(1)?
                .split("</D:href>")
                .next()?;
            let privileges = response
                .split("<D:current-user-privilege-set>")
                .nth(1)?
                .split("</D:current-user-privilege-set>")
                .next()?;
            href.ends_with(".ics")
                .then(|| (href.to_string(), privileges.to_string()))
        })
        .collect()
}

const PRIVILEGES: &str =
    r#"<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-privilege-set/></d:prop></d:propfind>"#;

const QUERY_PRIVILEGES: &str = r#"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:current-user-privilege-set/></d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>"#;

fn titles(calendar: &Calendar, id: &str) -> Vec<String> {
    calendar
        .query(&EventQuery {
            calendars: Some(vec![id.to_string()]),
            ..EventQuery::default()
        })
        .into_iter()
        .map(|e| e.title)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_caldav_sources_events_are_writable_and_a_feeds_are_not() {
    let server = Arc::new(tokio::task::spawn_blocking(Radicale::start).await.unwrap());
    let dav = format!("privileges-dav-{}", std::process::id());
    Passwords::default().set(&dav, PASSWORD).unwrap();
    let filled = server.clone();
    tokio::task::spawn_blocking(move || filled.put("shared.ics", &vcalendar("shared-1", "Shared")))
        .await
        .unwrap();
    let body = Arc::new(Mutex::new(vcalendar("published-1", "Published")));
    let served = body.clone();
    let feed = HttpStub::start(move |stream| {
        use std::io::Write;
        let body = served.lock().unwrap().clone();
        let _ = stream.write_all(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    });
    let (dav_url, feed_url) = (server.url("/"), format!("http://{}/feed.ics", feed.addr));
    let dav_id = dav.clone();
    let app = CaldavHarness::start_with(move |builder| {
        builder.settings(move |settings| {
            settings.calendar_sources.push(calendar_source(
                &dav_id,
                KindSettings::Caldav {
                    url: dav_url,
                    username: USER.into(),
                    calendar_url: String::new(),
                },
            ));
            settings.calendar_sources.push(calendar_source(
                FEED,
                KindSettings::Ical {
                    url: feed_url,
                    allow_private_network: true,
                },
            ));
        })
    })
    .await;
    let calendar = app.core.calendar.clone();
    let read = dav.clone();
    tokio::task::spawn_blocking(move || {
        calendar.revalidate(true);
        wait_until(&calendar, "both remote calendars read", |c| {
            !titles(c, &read).is_empty() && !titles(c, FEED).is_empty()
        });
    })
    .await
    .unwrap();
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));

    for (method, body) in [("PROPFIND", PRIVILEGES), ("REPORT", QUERY_PRIVILEGES)] {
        let answer = |path: String| {
            let client = &client;
            async move {
                let reply = client.query(method, &path, body).await;
                assert_eq!(reply.status(), StatusCode::MULTI_STATUS, "{method} {path}");
                resource_privileges(&reply.text().await.unwrap())
            }
        };
        let two_way = answer(format!("/calendars/{dav}/")).await;
        assert_eq!(two_way.len(), 1, "{method}: {two_way:?}");
        for name in ["read", "write", "write-content", "bind", "unbind"] {
            assert!(
                two_way[0].1.contains(&format!("<D:{name}/>")),
                "{method}: a CalDAV calendar's event lacks {name}: {two_way:?}"
            );
        }
        let published = answer(format!("/calendars/{FEED}/")).await;
        assert_eq!(published.len(), 1, "{method}: {published:?}");
        assert!(published[0].1.contains("<D:read/>"), "{published:?}");
        assert!(
            !published[0].1.contains("write"),
            "{method}: a feed's event is read-only: {published:?}"
        );
    }

    // The privilege is real: an edit through Almanac's server reaches the
    // CalDAV server; the feed's refuses.
    let two_way = client
        .query("PROPFIND", &format!("/calendars/{dav}/"), PRIVILEGES)
        .await
        .text()
        .await
        .unwrap();
    let href = &resource_privileges(&two_way)[0].0;
    let edited = client
        .put(href, None, vcalendar("shared-1", "Shared, edited"))
        .await;
    assert!(edited.status().is_success(), "{edited:?}");
    let stored = server.clone();
    let on_server = tokio::task::spawn_blocking(move || stored.get("shared.ics"))
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        on_server.contains("SUMMARY:Shared\\, edited"),
        "{on_server}"
    );
    let published = client
        .query("PROPFIND", &format!("/calendars/{FEED}/"), PRIVILEGES)
        .await
        .text()
        .await
        .unwrap();
    let href = &resource_privileges(&published)[0].0;
    let refused = client
        .put(href, None, vcalendar("published-1", "Published, edited"))
        .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let _ = Passwords::default().delete(&dav);
}
