//! `calendar-query` REPORTs as clients send them, as raw bodies over HTTP:
//! alarm time ranges (`VALARM` in a `VEVENT` comp-filter), and `expand`.

use reqwest::StatusCode;

use crate::support::Instance;

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
    let app = Instance::start_with(|b| b.note(ALARMED.0, ALARMED.1).note(QUIET.0, QUIET.1)).await;
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
    let app = Instance::start().await;
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
