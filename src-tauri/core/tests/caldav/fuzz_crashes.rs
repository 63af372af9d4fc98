//! The inputs the fuzzers crashed the CalDAV server with (`fuzz/crashes/`),
//! sent over real HTTP: a `PUT` is refused with the `valid-calendar-data`
//! precondition naming what is wrong and stores nothing, a `PROPFIND` is
//! refused with a `400`, and the server still answers.

use almanac_core::tokens::Scope;
use reqwest::StatusCode;

use crate::caldav::support::CaldavHarness;

fn reproducer(target: &str, name: &str) -> String {
    let path = format!(
        "{}/../../fuzz/crashes/{target}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn notes(app: &CaldavHarness) -> usize {
    std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .count()
}

/// PUTs `body`; asserts the refusal (`status`) names `expected` and nothing
/// is stored.
async fn put_is_refused(app: &CaldavHarness, body: String, status: StatusCode, expected: &str) {
    let writer = app.token(&[Scope::EventsWrite]).await;
    let before = notes(app);
    let answer = app
        .as_client(Some(&writer))
        .put("/calendars/local/crash.ics", None, body)
        .await;
    assert_eq!(answer.status(), status);
    let text = answer.text().await.unwrap();
    if status == StatusCode::FORBIDDEN {
        assert!(text.contains("valid-calendar-data"), "{text}");
    }
    assert!(text.contains(expected), "{text}");
    assert_eq!(notes(app), before, "nothing stored");
    app.still_answers().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_alarm_trigger_past_any_range_is_refused_naming_the_property() {
    let app = CaldavHarness::start().await;
    let body = reproducer("ics_put", "trigger-minutes-out-of-range.ics");
    put_is_refused(
        &app,
        body,
        StatusCode::FORBIDDEN,
        "TRIGGER `-PT999999999999999999M` is longer than",
    )
    .await;
    let long = reproducer("ics_put", "trigger-minutes-out-of-range.ics")
        .replace(
            "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT999999999999999999M\r\nEND:VALARM\r\n",
            "",
        )
        .replace("SUMMARY:x", "SUMMARY:x\r\nDURATION:P9999999999999W");
    put_is_refused(
        &app,
        long,
        StatusCode::FORBIDDEN,
        "DURATION `P9999999999999W` is longer than",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_non_ascii_byday_is_refused_naming_the_rule() {
    let app = CaldavHarness::start().await;
    let body = reproducer("ics_feed", "rrule-byday-non-ascii-in-event.ics");
    // The rule is the engine's to judge: a `400` naming it, as through REST.
    put_is_refused(
        &app,
        body,
        StatusCode::BAD_REQUEST,
        "only printable ASCII belongs in a rule",
    )
    .await;
}

/// The fuzzers' `dav_server` input `name` (first byte: which request) sent
/// as a `PROPFIND` of `path`: refused with a 400 that says `expected`, and
/// the server still answers.
async fn propfind_is_refused(name: &str, path: &str, expected: &str) {
    let app = CaldavHarness::start().await;
    let reader = app.token(&[Scope::EventsRead]).await;
    let body = reproducer("dav_server", name);
    let body = body.get(1..).unwrap().to_string();
    let answer = app
        .as_client(Some(&reader))
        .query("PROPFIND", path, body)
        .await;
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    let text = answer.text().await.unwrap();
    assert!(text.contains(expected), "{text}");
    app.still_answers().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_property_name_that_is_no_xml_name_is_refused_not_echoed() {
    // First byte: `/calendars/local/`, Depth 1.
    propfind_is_refused(
        "property-name-echoed-unescaped",
        "/calendars/local/",
        "not an XML element name",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_property_in_a_namespace_reserved_to_xml_is_refused_not_echoed() {
    // First byte (1): the principal.
    propfind_is_refused(
        "property-in-the-xmlns-namespace",
        "/principal/",
        "reserved to XML",
    )
    .await;
}
