//! A month's `calendar-query` asked again, as clients poll the month they
//! show: answered from what the server kept of the first answer, byte for
//! byte the same, and afresh as soon as the calendar changes.

use reqwest::StatusCode;

use crate::caldav::support::{CaldavHarness, Client, JANUARY};

async fn january(client: &Client<'_>) -> String {
    let answer = client.query("REPORT", "/calendars/local/", JANUARY).await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    answer.text().await.unwrap()
}

/// Each `<D:response>` of a multistatus, whole, by its href.
fn responses(body: &str) -> Vec<(String, String)> {
    body.split("<D:response>")
        .skip(1)
        .map(|r| {
            let href = r.split("<D:href>").nth(1).unwrap();
            let href = href.split("</D:href>").next().unwrap().to_string();
            (href, r.to_string())
        })
        .collect()
}

/// The `calendar-data` of one response, unescaped.
fn calendar_data(response: &str) -> String {
    let inner = response.split("<C:calendar-data>").nth(1).unwrap();
    let inner = inner.split("</C:calendar-data>").next().unwrap();
    quick_xml::escape::unescape(inner).unwrap().into_owned()
}

/// The resource of `body` whose text has this `SUMMARY`.
fn titled<'a>(answers: &'a [(String, String)], title: &str) -> Option<&'a (String, String)> {
    answers
        .iter()
        .find(|(_, r)| calendar_data(r).contains(&format!("\r\nSUMMARY:{title}\r\n")))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_month_asked_again_is_the_same_bytes_until_the_calendar_changes() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));

    // The first answer writes every text; the second is served from what
    // the first kept.
    let cold = january(&client).await;
    let warm = january(&client).await;
    assert_eq!(cold, warm);
    let answers = responses(&warm);
    assert_eq!(answers.len(), 4, "{warm}");
    // And a GET, which keeps nothing, writes each text as it was served.
    for (href, response) in &answers {
        let get = client.send("GET", href).await;
        assert_eq!(get.status(), StatusCode::OK);
        let etag = get.headers()["etag"].to_str().unwrap().to_string();
        assert!(response.contains(&format!("<D:getetag>{}</D:getetag>", escape(&etag))));
        assert_eq!(get.text().await.unwrap(), calendar_data(response), "{href}");
    }

    // A new title: that resource's text and ETag are new, the others the
    // same bytes as before.
    let (standup, before) = titled(&answers, "Standup").unwrap().clone();
    let text = calendar_data(&before);
    let renamed = client
        .put(
            &standup,
            None,
            text.replace("SUMMARY:Standup", "SUMMARY:Standup moved"),
        )
        .await;
    assert_eq!(renamed.status(), StatusCode::NO_CONTENT);
    let after = responses(&january(&client).await);
    assert_eq!(after.len(), 4);
    let (href, now) = titled(&after, "Standup moved").expect("the new title is served");
    assert_eq!(*href, standup);
    assert_ne!(etag_of(now), etag_of(&before));
    for (href, response) in answers.iter().filter(|(h, _)| *h != standup) {
        let same = after.iter().find(|(h, _)| h == href).unwrap();
        assert_eq!(same.1, *response, "{href}");
    }

    // Moved to February: January's answer no longer holds it.
    let moved = client
        .put(
            &standup,
            None,
            calendar_data(now).replace("20260105T", "20260205T"),
        )
        .await;
    assert_eq!(moved.status(), StatusCode::NO_CONTENT);
    let without = responses(&january(&client).await);
    assert_eq!(without.len(), 3, "{without:?}");
    assert!(titled(&without, "Standup moved").is_none());
}

fn etag_of(response: &str) -> &str {
    let tag = response.split("<D:getetag>").nth(1).unwrap();
    tag.split("</D:getetag>").next().unwrap()
}

fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}
