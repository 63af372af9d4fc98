//! Subscription feeds: chosen calendars at a secret URL, valid for the
//! `icalendar` parser, gone once revoked.

use almanac_core::caldav_server::feeds::FeedStore;
use reqwest::StatusCode;

use crate::caldav::support::{CaldavHarness, HOLIDAYS, LOCAL, client_script, run, venv};

#[tokio::test(flavor = "multi_thread")]
async fn a_feed_imports_cleanly_and_stops_when_revoked() {
    let venv = venv();
    let app = CaldavHarness::start().await;
    let feeds = FeedStore::new(app.core.paths.feeds_file());
    let made = feeds
        .create("Phone", vec![LOCAL.into(), HOLIDAYS.into()])
        .unwrap();
    let url = format!("/feeds/{}.ics", made.secret);

    // No credentials: the secret is the key.
    let anyone = app.as_client(None);
    let answer = anyone.send("GET", &url).await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert!(
        answer.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/calendar")
    );
    let text = answer.text().await.unwrap();
    let file = app.dir.path().join("feed.ics");
    std::fs::write(&file, &text).unwrap();
    let checked = run(
        &venv,
        "python",
        vec![
            client_script("feed_check.py"),
            file.display().to_string(),
            "4".into(),
        ],
    )
    .await;
    assert!(checked.starts_with("feed ok: 4 events"), "{checked}");

    let guessed = anyone.send("GET", "/feeds/guess.ics").await;
    assert_eq!(guessed.status(), StatusCode::NOT_FOUND);
    let rebinding = anyone
        .request("GET", &url)
        .header("Host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebinding.status(), StatusCode::MISDIRECTED_REQUEST);

    feeds.revoke(made.feed.id).unwrap();
    let revoked = anyone.send("GET", &url).await;
    assert_eq!(revoked.status(), StatusCode::NOT_FOUND);
}
