//! The request limits of docs/security.md ("CalDAV server requests"), each
//! sent just under and just past over real HTTP, with a read-only token:
//! property names, multiget hrefs, bodies per method, XML depth and
//! entities, answer bytes, and many heavy requests at once. After each
//! refusal the server still answers.

use almanac_core::tokens::Scope;
use almanac_testkit::InstanceBuilder;
use reqwest::StatusCode;

use crate::caldav::support::{CaldavHarness, Client};

/// The tests that measure this process's peak memory run one at a time,
/// so that none counts another's.
static MEASURING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const NS: &str = r#"xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav""#;

/// An instance whose local calendar holds `count` more one-hour events.
async fn with_events(count: usize) -> CaldavHarness {
    CaldavHarness::start_with(|mut builder: InstanceBuilder| {
        for i in 0..count {
            let day = 1 + i % 28;
            builder = builder.note(
                &format!("events/2026-02-{day:02} Load {i}.md"),
                &format!(
                    "---\ntitle: Load {i}\nallDay: false\ndate: 2026-02-{day:02}\n\
                     startTime: \"10:00\"\nendTime: \"11:00\"\n---\n"
                ),
            );
        }
        builder
    })
    .await
}

/// A `PROPFIND` body asking for `names` (inner XML of `d:prop`).
fn propfind(names: &str) -> String {
    format!(r#"<d:propfind {NS}><d:prop>{names}</d:prop></d:propfind>"#)
}

/// `count` distinct unknown property names.
fn distinct_names(count: usize) -> String {
    (0..count)
        .map(|i| format!("<x:p{i} xmlns:x=\"urn:x\"/>"))
        .collect()
}

/// This process's resident set and its peak since the last reset, in kB;
/// the peak is reset first, so growth is measured from now.
fn reset_peak_rss() -> u64 {
    // Writing 5 resets VmHWM to the current RSS (proc(5)).
    std::fs::write("/proc/self/clear_refs", "5").expect("clear_refs");
    status_kb("VmRSS:")
}

fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

/// The message of the `400` a REPORT of `body` gets.
async fn refused(client: &Client<'_>, body: String) -> String {
    let answer = client.query("REPORT", "/calendars/local/", body).await;
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    answer.json::<serde_json::Value>().await.unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Asserts the server still answers a plain PROPFIND with `token`.
async fn still_answers(app: &CaldavHarness, token: &str) {
    let answer = app
        .as_client(Some(token))
        .query("PROPFIND", "/calendars/local/", propfind("<d:getetag/>"))
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
}

/// The issue's attack: `<C:calendar-data/>` 40,000 times on a calendar of
/// 50 events, with a read-only token. Before the limits: 1.5 GB of answer,
/// 4.2 GB of RSS. Now the PROPFIND body is refused at once (`413`), the same
/// names in a REPORT (whose body may be larger) are too many XML elements
/// (`400`), and 15,000 of them, under both limits, are answered once each.
#[tokio::test(flavor = "multi_thread")]
async fn forty_thousand_calendar_data_names_get_a_small_answer() {
    let app = with_events(50).await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));
    let report = |names: &str| {
        format!(
            r#"<c:calendar-query {NS}><d:prop>{names}</d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>"#
        )
    };
    let attack = "<c:calendar-data/>".repeat(40_000);
    let _alone = MEASURING.lock().await;
    let before = reset_peak_rss();

    let propfind = client
        .query("PROPFIND", "/calendars/local/", propfind(&attack))
        .await;
    assert_eq!(propfind.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body = propfind.text().await.unwrap();
    assert!(body.contains("limited to 65536 bytes"), "{body}");
    assert!(body.len() < 1024, "{body}");

    let message = refused(&client, report(&attack)).await;
    assert!(message.contains("more than 20000 elements"), "{message}");

    let repeated = "<c:calendar-data/>".repeat(15_000);
    let answer = client
        .query("REPORT", "/calendars/local/", report(&repeated))
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    let body = answer.text().await.unwrap();
    let responses = body.matches("<D:response>").count();
    assert_eq!(
        responses,
        50 + 4,
        "the 50 events and the instance's own four"
    );
    assert_eq!(body.matches("<C:calendar-data>").count(), responses);
    assert!(body.len() < 256 * 1024, "{} bytes", body.len());

    let growth_mb = status_kb("VmHWM:").saturating_sub(before) / 1024;
    assert!(growth_mb < 100, "RSS grew by {growth_mb} MB");
    still_answers(&app, &token).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn property_names_are_answered_once_and_capped_at_64() {
    let app = CaldavHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));

    let repeated = propfind(&"<d:getetag/>".repeat(3_000));
    let answer = client
        .query("PROPFIND", "/calendars/local/", repeated)
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    let body = answer.text().await.unwrap();
    assert_eq!(
        body.matches("<D:getetag>").count(),
        body.matches("<D:response>").count() - 1,
        "one getetag per resource (the collection has none): {body}"
    );

    let at_limit = client
        .query(
            "PROPFIND",
            "/calendars/local/",
            propfind(&distinct_names(64)),
        )
        .await;
    assert_eq!(at_limit.status(), StatusCode::MULTI_STATUS);

    let past = client
        .query(
            "PROPFIND",
            "/calendars/local/",
            propfind(&distinct_names(65)),
        )
        .await;
    assert_eq!(past.status(), StatusCode::BAD_REQUEST);
    let body: serde_json::Value = past.json().await.unwrap();
    assert_eq!(body["error"], "Bad Request");
    assert_eq!(
        body["message"],
        "a request may ask for at most 64 distinct properties; this one asks for 65"
    );
    still_answers(&app, &token).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn multiget_hrefs_are_answered_once_and_capped_at_10000() {
    let app = CaldavHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));
    let multiget = |hrefs: String| {
        format!(
            r#"<c:calendar-multiget {NS}><d:prop><d:getetag/></d:prop>{hrefs}</c:calendar-multiget>"#
        )
    };
    let missing = |count: usize| -> String {
        (0..count)
            .map(|i| format!("<d:href>/calendars/local/n{i}.ics</d:href>"))
            .collect()
    };

    let standup = app.href_of(&token, "Standup").await;
    // The same resource, once plain and once percent-encoded, many times.
    let spellings = format!(
        "<d:href>{standup}</d:href><d:href>{}</d:href>",
        standup.replace(".ics", "%2Eics")
    );
    let repeated = client
        .query(
            "REPORT",
            "/calendars/local/",
            multiget(spellings.repeat(2_000)),
        )
        .await;
    assert_eq!(repeated.status(), StatusCode::MULTI_STATUS);
    let body = repeated.text().await.unwrap();
    assert_eq!(body.matches("<D:response>").count(), 1, "{body}");

    let at_limit = client
        .query("REPORT", "/calendars/local/", multiget(missing(10_000)))
        .await;
    assert_eq!(at_limit.status(), StatusCode::MULTI_STATUS);
    let body = at_limit.text().await.unwrap();
    assert_eq!(body.matches("404 Not Found").count(), 10_000);

    let past = client
        .query("REPORT", "/calendars/local/", multiget(missing(10_001)))
        .await;
    assert_eq!(past.status(), StatusCode::BAD_REQUEST);
    let body: serde_json::Value = past.json().await.unwrap();
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("a calendar-multiget may name at most 10000 distinct resources"),
        "{body}"
    );
    still_answers(&app, &token).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bodies_are_capped_per_method() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    // Whitespace pads a valid body to exactly `size` bytes.
    let padded = |size: usize| {
        let body = propfind("<d:getetag/>");
        format!("{body}{}", " ".repeat(size - body.len()))
    };

    let at_limit = client
        .query("PROPFIND", "/calendars/local/", padded(64 * 1024))
        .await;
    assert_eq!(at_limit.status(), StatusCode::MULTI_STATUS);
    let past = client
        .query("PROPFIND", "/calendars/local/", padded(64 * 1024 + 1))
        .await;
    assert_eq!(past.status(), StatusCode::PAYLOAD_TOO_LARGE);

    let report_past = client
        .query("REPORT", "/calendars/local/", padded(1024 * 1024 + 1))
        .await;
    assert_eq!(report_past.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body: serde_json::Value = report_past.json().await.unwrap();
    assert_eq!(
        body["message"],
        "request bodies of this method are limited to 1048576 bytes"
    );

    let put_past = client
        .put(
            "/calendars/local/big.ics",
            None,
            vec![b'x'; 1024 * 1024 + 1],
        )
        .await;
    assert_eq!(put_past.status(), StatusCode::PAYLOAD_TOO_LARGE);
    still_answers(&app, &token).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn deep_xml_entities_and_element_floods_are_refused() {
    let app = CaldavHarness::start().await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));

    let deep = format!(
        "<c:calendar-query {NS}>{}{}</c:calendar-query>",
        "<d:prop>".repeat(10_000),
        "</d:prop>".repeat(10_000)
    );
    assert_eq!(
        refused(&client, deep).await,
        "REPORT body: the XML is nested too deeply"
    );

    let bomb = format!(
        r#"<?xml version="1.0"?><!DOCTYPE c:calendar-query [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><c:calendar-query {NS}><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:prop-filter name="UID"><c:text-match>&b;</c:text-match></c:prop-filter></c:comp-filter></c:filter></c:calendar-query>"#
    );
    assert!(
        refused(&client, bomb)
            .await
            .contains("unknown entity `&b;`")
    );

    let flood = format!(
        "<c:calendar-query {NS}>{}</c:calendar-query>",
        "<x/>".repeat(20_000)
    );
    assert!(
        refused(&client, flood)
            .await
            .contains("more than 20000 elements and attributes")
    );

    let filters = format!(
        r#"<c:calendar-query {NS}><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR">{}</c:comp-filter></c:filter></c:calendar-query>"#,
        r#"<c:prop-filter name="UID"/>"#.repeat(65)
    );
    assert_eq!(
        refused(&client, filters).await,
        "a calendar-query may hold at most 64 prop-filters; this one holds 65"
    );
    still_answers(&app, &token).await;
}

/// 64 long property names, each echoed back for each of 600 resources,
/// would make a 40 MB answer from a 64 KiB request: refused with `507`
/// before it is built. The same names on the collection alone answer.
#[tokio::test(flavor = "multi_thread")]
async fn an_answer_past_32_mib_is_refused_with_507() {
    let app = with_events(600).await;
    let token = app.token(&[Scope::EventsRead]).await;
    let client = app.as_client(Some(&token));
    let long = "n".repeat(950);
    let names: String = (0..64)
        .map(|i| format!("<x:{long}{i:02} xmlns:x=\"urn:x\"/>"))
        .collect();
    let _alone = MEASURING.lock().await;
    let before = reset_peak_rss();

    let whole = client
        .query("PROPFIND", "/calendars/local/", propfind(&names))
        .await;
    assert_eq!(whole.status(), StatusCode::INSUFFICIENT_STORAGE);
    let body: serde_json::Value = whole.json().await.unwrap();
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("the answer would be larger than 32 MiB"),
        "{body}"
    );

    let collection = client
        .query_at_depth("PROPFIND", "/calendars/local/", "0", propfind(&names))
        .await;
    assert_eq!(collection.status(), StatusCode::MULTI_STATUS);

    let growth_mb = status_kb("VmHWM:").saturating_sub(before) / 1024;
    assert!(growth_mb < 100, "RSS grew by {growth_mb} MB");
    still_answers(&app, &token).await;
}

/// Many heavy requests at once are worked a few at a time: each is answered
/// (or told to come back, `503` with `Retry-After`), none fails, and memory
/// does not multiply.
#[tokio::test(flavor = "multi_thread")]
async fn many_heavy_requests_at_once_are_worked_a_few_at_a_time() {
    let app = with_events(50).await;
    let token = app.token(&[Scope::EventsRead]).await;
    let report = format!(
        r#"<c:calendar-query {NS}><d:prop>{}</d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>"#,
        "<c:calendar-data/>".repeat(15_000)
    );
    let _alone = MEASURING.lock().await;
    let before = reset_peak_rss();
    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let request = app
            .as_client(Some(&token))
            .request("REPORT", "/calendars/local/")
            .header("Depth", "1")
            .body(report.clone());
        requests.spawn(request.send());
    }
    while let Some(answer) = requests.join_next().await {
        let answer = answer.unwrap().unwrap();
        match answer.status() {
            StatusCode::MULTI_STATUS => {}
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_eq!(answer.headers()["retry-after"], "5");
            }
            other => panic!("{other}: {}", answer.text().await.unwrap()),
        }
    }
    let growth_mb = status_kb("VmHWM:").saturating_sub(before) / 1024;
    assert!(growth_mb < 100, "RSS grew by {growth_mb} MB");
    still_answers(&app, &token).await;
}
