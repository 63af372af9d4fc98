//! iCalendar text past its limits, sent by `PUT`: refused with the
//! `valid-calendar-data` precondition naming the limit, nothing stored, and
//! the server still answering. Just under each limit, the event is stored.

use almanac_core::ics::bounds::{
    MAX_DEPTH, MAX_LINE_BYTES, RESOURCE_MAX_COMPONENTS, RESOURCE_MAX_PROPERTIES,
};
use almanac_core::tokens::Scope;
use reqwest::StatusCode;

use crate::caldav::support::CaldavHarness;

/// An event `uid` with `inside` (whole lines) in its VEVENT: 2 components
/// (VCALENDAR, VEVENT) and 7 properties of its own.
fn event(uid: &str, inside: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART:20260310T100000Z\r\nDTEND:20260310T110000Z\r\n\
         SUMMARY:{uid}\r\n{inside}END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

fn notes(app: &CaldavHarness) -> usize {
    std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_crash_put_is_refused_and_the_server_still_answers() {
    let app = CaldavHarness::start().await;
    let writer = app.token(&[Scope::EventsWrite]).await;
    let before = notes(&app);
    // The report's body: 900 KB, under the body cap, and deep enough to
    // overflow the parser's stack.
    let body = format!("BEGIN:VCALENDAR\r\n{}", "BEGIN:X\r\n".repeat(100_000));
    assert!(body.len() > 900_000 && body.len() < 1024 * 1024);
    let answer = app
        .as_client(Some(&writer))
        .put("/calendars/local/hostile.ics", None, body)
        .await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    let text = answer.text().await.unwrap();
    assert!(text.contains("valid-calendar-data"), "{text}");
    assert!(
        text.contains("iCalendar nesting deeper than 8 components at line 9"),
        "{text}"
    );
    assert_eq!(notes(&app), before, "nothing stored");

    // Still answering, reads and writes.
    app.still_answers().await;
    let good = app
        .as_client(Some(&writer))
        .put("/calendars/local/after.ics", None, event("after", ""))
        .await;
    assert_eq!(good.status(), StatusCode::CREATED);
}

#[tokio::test(flavor = "multi_thread")]
async fn each_limit_refuses_just_past_it_and_takes_just_under_it() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let levels = |n: usize| format!("{}{}", "BEGIN:X\r\n".repeat(n), "END:X\r\n".repeat(n));
    let siblings = |n: usize| "BEGIN:X\r\nEND:X\r\n".repeat(n);
    let properties = |n: usize| "X-A:1\r\n".repeat(n);
    let long_line = |n: usize| format!("X-LONG:{}\r\n", "l".repeat(n - "X-LONG:".len()));
    let cases: [(&str, String, String, &str); 4] = [
        (
            "depth",
            // VCALENDAR > VEVENT > X…
            levels(MAX_DEPTH - 2),
            levels(MAX_DEPTH - 1),
            "iCalendar nesting deeper than 8 components",
        ),
        (
            "components",
            siblings(RESOURCE_MAX_COMPONENTS - 2),
            siblings(RESOURCE_MAX_COMPONENTS - 1),
            "iCalendar text with more than 5000 components",
        ),
        (
            "properties",
            properties(RESOURCE_MAX_PROPERTIES - 7),
            properties(RESOURCE_MAX_PROPERTIES - 6),
            "iCalendar text with more than 100000 properties",
        ),
        (
            "line",
            long_line(MAX_LINE_BYTES),
            long_line(MAX_LINE_BYTES + 1),
            "longer than 262144 bytes",
        ),
    ];
    for (limit, under, past, message) in cases {
        let before = notes(&app);
        let href = format!("/calendars/local/past-{limit}.ics");
        let refused = client.put(&href, None, event(limit, &past)).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{limit}");
        let text = refused.text().await.unwrap();
        assert!(text.contains(message), "{limit}: {text}");
        assert_eq!(notes(&app), before, "{limit}: nothing stored");
        let href = format!("/calendars/local/under-{limit}.ics");
        let taken = client.put(&href, None, event(limit, &under)).await;
        assert_eq!(taken.status(), StatusCode::CREATED, "{limit}");
        assert_eq!(notes(&app), before + 1, "{limit}");
    }
}
