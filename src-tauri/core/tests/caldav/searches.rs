//! `calendar-query` REPORTs as clients send them, as raw bodies over HTTP:
//! alarm time ranges (`VALARM` in a `VEVENT` comp-filter), and `expand`.

use reqwest::StatusCode;

use crate::caldav::support::CaldavHarness;

/// Alarms 15 minutes before 08:00 UTC on 10 January 2026 (07:45), and a
/// second event the same morning without one.
const ALARMED: (&str, &str) = (
    "events/2026-01-10 Alarmed.md",
    "---\ntitle: Alarmed\nallDay: false\ndate: 2026-01-10\nstartTime: \"09:00\"\n\
     endTime: \"10:00\"\nalarms:\n  - minutesBefore: 15\n---\n",
);
const QUIET: (&str, &str) = (
    "events/2026-01-10 Quiet.md",
    "---\ntitle: Quiet\nallDay: false\ndate: 2026-01-10\nstartTime: \"08:50\"\n\
     endTime: \"09:30\"\n---\n",
);

fn alarm_query(start: &str, end: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">
    <c:comp-filter name="VALARM"><c:time-range start="{start}" end="{end}"/></c:comp-filter>
  </c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>"#
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_alarm_time_range_finds_the_events_whose_alarm_rings_in_it() {
    let app =
        CaldavHarness::start_with(|b| b.note(ALARMED.0, ALARMED.1).note(QUIET.0, QUIET.1)).await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let ask = |start: &'static str, end: &'static str| {
        let client = &client;
        async move {
            let answer = client
                .query("REPORT", "/calendars/local/", alarm_query(start, end))
                .await;
            assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
            answer.text().await.unwrap()
        }
    };
    // Berlin is UTC+1 in January: the alarm rings at 07:45 UTC.
    let ringing = ask("20260110T074000Z", "20260110T075500Z").await;
    assert_eq!(ringing.matches("<D:response>").count(), 1, "{ringing}");
    // The event itself starts in this range, its alarm does not ring in it;
    // the other event starts in it too and has no alarm.
    let later = ask("20260110T080000Z", "20260110T081500Z").await;
    assert_eq!(later.matches("<D:response>").count(), 0, "{later}");
    // Half-open: a range ending at the alarm misses it.
    let before = ask("20260110T073000Z", "20260110T074500Z").await;
    assert_eq!(before.matches("<D:response>").count(), 0, "{before}");
}

fn expand_query(start: &str, end: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data><c:expand start="{start}" end="{end}"/></c:calendar-data></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">
    <c:time-range start="{start}" end="{end}"/>
  </c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>"#
    )
}

/// The unfolded `VEVENT`s of a REPORT answer whose summary is `title`, as
/// (`RECURRENCE-ID`, `DTSTART`) lines.
fn occurrences(body: &str, title: &str) -> Vec<(String, String)> {
    let unfolded = body.replace("\r\n ", "").replace("&#13;", "");
    unfolded
        .split("BEGIN:VEVENT")
        .skip(1)
        .filter(|part| part.contains(&format!("SUMMARY:{title}")))
        .map(|part| {
            assert!(
                !part.contains("RRULE") && !part.contains("EXDATE"),
                "{part}"
            );
            let line = |name: &str| {
                part.lines()
                    .find(|l| l.starts_with(name))
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            };
            (line("RECURRENCE-ID"), line("DTSTART"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn expand_answers_each_occurrence_detached_ones_included() {
    let app = CaldavHarness::start().await;
    // The Gym series (Mondays and Thursdays at 07:00, 8 January skipped):
    // its 12 January session moved to 18:00 on its own.
    let gym = "fullnote:events/2026-01-05 Gym.md";
    let calendar = app.core.calendar.clone();
    let fields =
        serde_json::from_value(serde_json::json!({"startTime": "18:00", "endTime": "19:00"}))
            .unwrap();
    tokio::task::spawn_blocking(move || {
        calendar
            .update_occurrence(
                gym,
                chrono::NaiveDate::from_ymd_opt(2026, 1, 12).unwrap(),
                fields,
            )
            .unwrap()
    })
    .await
    .unwrap();
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let answer = client
        .query(
            "REPORT",
            "/calendars/local/",
            expand_query("20260104T230000Z", "20260116T230000Z"),
        )
        .await;
    assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
    let body = answer.text().await.unwrap();
    // One resource for the series, its detached session inside it.
    assert_eq!(body.matches("<D:response>").count(), 3, "{body}");
    let berlin = |at: &str| format!("TZID=Europe/Berlin:{at}");
    let gym = occurrences(&body, "Gym");
    let expected = [
        ("20260105T070000", "20260105T070000"),
        ("20260112T070000", "20260112T180000"),
        ("20260115T070000", "20260115T070000"),
    ];
    assert_eq!(gym.len(), expected.len(), "{body}");
    for ((rid, start), (want_rid, want_start)) in gym.iter().zip(expected) {
        assert!(rid.ends_with(&berlin(want_rid)), "{rid} in {body}");
        assert!(start.ends_with(&berlin(want_start)), "{start} in {body}");
    }
    // A single event is itself, without a RECURRENCE-ID.
    assert_eq!(
        occurrences(&body, "Planning"),
        [(
            String::new(),
            "DTSTART;TZID=Europe/Berlin:20260112T140000".into()
        )]
    );
}

/// An event of 1990 with a location and a category, and one of 2027 with a
/// description.
const REUNION: (&str, &str) = (
    "events/1990-06-01 Reunion.md",
    "---\ntitle: Reunion\nallDay: true\ndate: 1990-06-01\nlocation: Berlin\ncategory: Family\n---\n",
);
const RETRO: (&str, &str) = (
    "events/2027-03-01 Retro.md",
    "---\ntitle: Retro\nallDay: true\ndate: 2027-03-01\ndescription: What went well\n---\n",
);

/// A calendar-query with `filter` inside the `VCALENDAR` comp-filter.
fn filtered(filter: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><c:calendar-data/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR">{filter}</c:comp-filter></c:filter>
</c:calendar-query>"#
    )
}

/// The summaries of a REPORT answer, sorted.
fn summaries(body: &str) -> Vec<String> {
    let mut found: Vec<String> = body
        .replace("\r\n ", "")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("SUMMARY:"))
        .map(|s| s.trim_end_matches("&#13;").to_string())
        .collect();
    found.sort();
    found.dedup();
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn searches_without_or_with_open_ranges_and_by_text_as_clients_send_them() {
    let app =
        CaldavHarness::start_with(|b| b.note(REUNION.0, REUNION.1).note(RETRO.0, RETRO.1)).await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let ask = |filter: String| {
        let client = &client;
        async move {
            let answer = client
                .query("REPORT", "/calendars/local/", filtered(&filter))
                .await;
            assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
            summaries(&answer.text().await.unwrap())
        }
    };
    let event = |inner: &str| format!(r#"<c:comp-filter name="VEVENT">{inner}</c:comp-filter>"#);
    let text = |property: &str, attributes: &str, needle: &str| {
        format!(
            r#"<c:prop-filter name="{property}"><c:text-match{attributes}>{needle}</c:text-match></c:prop-filter>"#
        )
    };
    // No time range: the whole calendar, old and next year's events too.
    let all = ask(event("")).await;
    assert_eq!(
        all,
        ["Gym", "Offsite", "Planning", "Retro", "Reunion", "Standup"]
    );
    // Open ranges: from a start on, up to an end.
    let from = ask(event(r#"<c:time-range start="20270101T000000Z"/>"#)).await;
    assert_eq!(from, ["Retro"]);
    let until = ask(event(r#"<c:time-range end="19910101T000000Z"/>"#)).await;
    assert_eq!(until, ["Reunion"]);
    // Text: case-insensitive unless the collation is i;octet.
    assert_eq!(
        ask(event(&text("SUMMARY", "", "standup"))).await,
        ["Standup"]
    );
    let exact = text("SUMMARY", r#" collation="i;octet""#, "standup");
    assert!(ask(event(&exact)).await.is_empty());
    assert_eq!(
        ask(event(&text("LOCATION", "", "berlin"))).await,
        ["Reunion"]
    );
    assert_eq!(
        ask(event(&text("CATEGORIES", "", "family"))).await,
        ["Reunion"]
    );
    assert_eq!(
        ask(event(&text("DESCRIPTION", "", "WELL"))).await,
        ["Retro"]
    );
    // Filters combine with AND.
    let both = format!(
        "{}{}",
        text("SUMMARY", "", "reunion"),
        text("LOCATION", "", "hamburg")
    );
    assert!(ask(event(&both)).await.is_empty());
    // A property that must be absent.
    let uncategorized = ask(event(
        r#"<c:prop-filter name="CATEGORIES"><c:is-not-defined/></c:prop-filter>"#,
    ))
    .await;
    assert!(
        !uncategorized.contains(&"Reunion".to_string()),
        "{uncategorized:?}"
    );
    assert_eq!(uncategorized.len(), 5, "{uncategorized:?}");
    // No component type named: the filter applies to the events.
    assert_eq!(ask(text("SUMMARY", "", "retro")).await, ["Retro"]);
}
