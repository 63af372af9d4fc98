//! `CLASS` and `RELATED-TO` sent by a client are kept in the note
//! (`class`, `relatedTo`), served back, and found by searches that ask for
//! them or for their absence (`is-not-defined`), as raw HTTP.

use reqwest::StatusCode;

use crate::caldav::support::CaldavHarness;

fn vevent(uid: &str, summary: &str, extra: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART:20260310T090000Z\r\nDTEND:20260310T100000Z\r\n\
         SUMMARY:{summary}\r\n{extra}END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

const RELATIONS: &str = "CLASS:PRIVATE\r\nRELATED-TO:parent-1\r\n\
     RELATED-TO;RELTYPE=CHILD:kid-2\r\nRELATED-TO;RELTYPE=SIBLING:sib-3\r\n";

/// The class prop-filter of a `calendar-query`, with `test` inside.
fn class_query(test: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">
    <c:prop-filter name="CLASS">{test}</c:prop-filter>
  </c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>"#
    )
}

/// The vault's note whose text contains `needle`.
fn note_with(app: &CaldavHarness, needle: &str) -> String {
    let dir = app.vault().join("events");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
        .find(|text| text.contains(needle))
        .unwrap_or_else(|| panic!("no note in {} with {needle}", dir.display()))
}

#[tokio::test(flavor = "multi_thread")]
async fn class_and_related_to_are_kept_served_and_searched() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let private = "/calendars/local/private-1.ics";
    for (path, body) in [
        (private, vevent("private-1", "Private", RELATIONS)),
        (
            "/calendars/local/plain-1.ics",
            vevent("plain-1", "Plain", ""),
        ),
    ] {
        let put = client.put(path, None, body).await;
        assert_eq!(put.status(), StatusCode::CREATED, "{path}");
    }

    let note = note_with(&app, "title: Private");
    assert!(note.contains("class: PRIVATE\n"), "{note}");
    assert!(
        note.contains("relatedTo:\n- parent-1\n- uid: kid-2\n  relType: CHILD\n- uid: sib-3\n  relType: SIBLING\n"),
        "{note}"
    );
    assert!(!note_with(&app, "title: Plain").contains("class:"));

    let served = client.send("GET", private).await.text().await.unwrap();
    let served = served.replace("\r\n ", "");
    for line in [
        "CLASS:PRIVATE\r\n",
        "RELATED-TO:parent-1\r\n",
        "RELATED-TO;RELTYPE=CHILD:kid-2\r\n",
        "RELATED-TO;RELTYPE=SIBLING:sib-3\r\n",
    ] {
        assert!(served.contains(line), "{line} missing from {served}");
    }

    let search = |test: &'static str| {
        let client = &client;
        async move {
            let answer = client
                .query("REPORT", "/calendars/local/", class_query(test))
                .await;
            assert_eq!(answer.status(), StatusCode::MULTI_STATUS);
            answer.text().await.unwrap()
        }
    };
    let without = search("<c:is-not-defined/>").await;
    assert!(without.contains("plain-1.ics"), "{without}");
    assert!(!without.contains("private-1.ics"), "{without}");
    let with = search(r#"<c:text-match>private</c:text-match>"#).await;
    assert!(with.contains("private-1.ics"), "{with}");
    assert!(!with.contains("plain-1.ics"), "{with}");

    // A client's edit without them removes them from the note.
    let etag = client.send("GET", private).await.headers()["etag"]
        .to_str()
        .unwrap()
        .to_string();
    let put = client
        .put(
            private,
            Some(("If-Match", &etag)),
            vevent("private-1", "Private", ""),
        )
        .await;
    assert_eq!(put.status(), StatusCode::NO_CONTENT);
    let note = note_with(&app, "title: Private");
    assert!(
        !note.contains("class:") && !note.contains("relatedTo"),
        "{note}"
    );
    let served = client.send("GET", private).await.text().await.unwrap();
    assert!(
        !served.contains("CLASS") && !served.contains("RELATED-TO"),
        "{served}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_class_that_is_not_a_token_is_refused_and_nothing_written() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let notes = || {
        let mut names: Vec<_> = std::fs::read_dir(app.vault().join("events"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = notes();
    let put = client
        .put(
            "/calendars/local/odd-1.ics",
            None,
            vevent("odd-1", "Odd", "CLASS:very private\r\n"),
        )
        .await;
    assert_eq!(put.status(), StatusCode::BAD_REQUEST);
    let reason = put.text().await.unwrap();
    assert!(reason.contains("class"), "{reason}");
    assert_eq!(notes(), before);
}
