//! Writes from a calendar app are in the history with the token they came
//! with, and undone byte for byte: a `PUT` of a new event, a `PUT` editing
//! a note with keys and a body of its own, a `DELETE`.

use almanac_core::history::{Author, ChangeFilter};
use reqwest::StatusCode;

use super::support::{CaldavHarness, PLANNING, STANDUP};
use crate::common::snapshot;

#[tokio::test(flavor = "multi_thread")]
async fn caldav_writes_are_listed_with_their_token_and_undone_byte_for_byte() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let before = snapshot(&app.vault());

    let new = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n\
               UID:history-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260210T100000Z\r\n\
               DTEND:20260210T110000Z\r\nSUMMARY:From a phone\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let put = client
        .put("/calendars/local/history-1.ics", None, new)
        .await;
    assert_eq!(put.status(), StatusCode::CREATED);

    let planning = app.href_of(&token, "Planning").await;
    let ics = client.send("GET", &planning).await.text().await.unwrap();
    let moved = ics.replace("SUMMARY:Planning", "SUMMARY:Planning (moved)");
    let put = client.put(&planning, None, moved).await;
    assert!(put.status().is_success(), "{}", put.status());
    let standup = app.href_of(&token, "Standup").await;
    let delete = client.send("DELETE", &standup).await;
    assert!(delete.status().is_success(), "{}", delete.status());
    assert!(!app.vault().join(STANDUP).exists());
    assert!(
        !app.vault().join(PLANNING).exists(),
        "renamed with its title"
    );

    let calendar = app.core.calendar.clone();
    let changes = calendar.history().list(&ChangeFilter::default(), 100);
    assert_eq!(changes.len(), 3, "{changes:?}");
    for change in &changes {
        let author = Author::Token {
            name: "caldav test".into(),
        };
        assert_eq!(change.author, author);
    }
    tokio::task::spawn_blocking(move || {
        for change in &changes {
            calendar.undo(change.id).unwrap();
        }
    })
    .await
    .unwrap();
    assert_eq!(snapshot(&app.vault()), before);
}
