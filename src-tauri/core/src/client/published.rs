//! `almanac calendars`' word on each published calendar (docs/caldav.md,
//! "Show a calendar on your phone"): its sync's status, as
//! `GET /api/v1/calendars` answers it in `published`, put into the
//! calendar's own object as `published`, and shown after its line: when it
//! last synced, the changes waiting, the last error and the conflicts. The
//! last error and the conflicts' note names may quote a server or a note's
//! name: they reach a terminal through the rows' escaping ([`super::rows`]).

use chrono::DateTime;
use chrono_tz::Tz;
use serde_json::Value;

use crate::api::shown_text::visible;

/// `calendars` with each report of `published` (the answer's `published`
/// array) as its calendar's `published`.
pub fn merged(mut calendars: Vec<Value>, published: &Value) -> Vec<Value> {
    for report in published.as_array().into_iter().flatten() {
        if let Some(calendar) = calendars
            .iter_mut()
            .find(|c| c["id"] == report["calendarId"])
        {
            calendar["published"] = report.clone();
        }
    }
    calendars
}

/// The status line of a calendar's `published` (`None` when it is not
/// published), for people, every quoted text visibly escaped.
pub fn line(calendar: &Value, zone: Tz) -> Option<String> {
    let report = calendar["published"].as_object()?;
    let mut parts = Vec::new();
    if let Some(progress) = report.get("progress").and_then(Value::as_object) {
        parts.push(format!(
            "sending {} of {}",
            progress["sent"], progress["total"]
        ));
    }
    parts.push(match report.get("lastSync").and_then(Value::as_str) {
        Some(at) => format!("synced {}", local_minute(at, zone)),
        None => "not synced yet".to_string(),
    });
    parts.push(format!("{} waiting", report["waiting"]));
    if let Some(error) = report.get("lastError").and_then(Value::as_str) {
        parts.push(format!("last error: {}", one_line(error)));
    }
    let conflicts = report
        .get("conflicts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(latest) = conflicts.last() {
        parts.push(format!(
            "{} conflict(s), the latest: {} kept, the server's version in {}",
            conflicts.len(),
            one_line(latest["note"].as_str().unwrap_or_default()),
            one_line(latest["conflictNote"].as_str().unwrap_or_default()),
        ));
    }
    Some(format!("  on the phone: {}", parts.join("; ")))
}

/// The TSV cells of a calendar's `published`: `lastSync`, `waiting`,
/// `lastError`, `conflicts` (how many); empty when it is not published.
pub fn last_sync(calendar: &Value) -> String {
    text(&calendar["published"]["lastSync"])
}

pub fn waiting(calendar: &Value) -> String {
    text(&calendar["published"]["waiting"])
}

pub fn last_error(calendar: &Value) -> String {
    text(&calendar["published"]["lastError"])
}

pub fn conflicts(calendar: &Value) -> String {
    calendar["published"]["conflicts"]
        .as_array()
        .map(|c| c.len().to_string())
        .unwrap_or_default()
}

fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `text` on one line, nothing hidden: its own line breaks and tabs are
/// escaped too.
fn one_line(text: &str) -> String {
    visible(text)
        .replace('\n', "[U+000A]")
        .replace('\r', "[U+000D]")
        .replace('\t', "[U+0009]")
}

/// `at` (RFC 3339) as `YYYY-MM-DD HH:MM` in `zone`.
fn local_minute(at: &str, zone: Tz) -> String {
    DateTime::parse_from_rfc3339(at)
        .map(|at| at.with_timezone(&zone).format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|_| visible(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_report_goes_into_its_calendar() {
        let calendars = vec![json!({"id": "a"}), json!({"id": "b"})];
        let merged = merged(calendars, &json!([{"calendarId": "b", "waiting": 2}]));
        assert_eq!(merged[0].get("published"), None);
        assert_eq!(merged[1]["published"]["waiting"], 2);
    }

    #[test]
    fn the_line_says_the_sync_and_escapes_what_it_quotes() {
        let calendar = json!({"id": "a", "published": {
            "calendarId": "a", "lastSync": "2026-03-02T09:30:00Z", "waiting": 3,
            "lastError": "refused \u{1b}[2J\nnow",
            "conflicts": [{"uid": "u", "note": "events/x\u{202e}.md",
                           "conflictNote": "events/x (conflict).md", "atMillis": 0}],
            "progress": {"sent": 1, "total": 3},
        }});
        let line = line(&calendar, Tz::UTC).unwrap();
        assert_eq!(
            line,
            "  on the phone: sending 1 of 3; synced 2026-03-02 09:30; 3 waiting; \
             last error: refused [U+001B][2J[U+000A]now; 1 conflict(s), the latest: \
             events/x[U+202E].md kept, the server's version in events/x (conflict).md"
        );
        assert_eq!(super::line(&json!({"id": "b"}), Tz::UTC), None);
    }
}
