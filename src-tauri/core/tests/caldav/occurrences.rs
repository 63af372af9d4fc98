//! One occurrence of a note series edited or cancelled from a CalDAV
//! client (`RECURRENCE-ID` overrides): a detached note plus a skipped date
//! in the series, read back as one resource with the override.

use crate::caldav::support::{CaldavHarness, client_script, run, venv};

/// The hand-written Gym series of [`CaldavHarness::start`].
const GYM: &str = "events/2026-01-05 Gym.md";

/// Every `.md` file of the vault's `events` folder, by name.
fn notes(app: &CaldavHarness) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(app.vault().join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn the_caldav_library_moves_edits_and_cancels_one_occurrence() {
    let venv = venv();
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let gym_before = app.note(GYM);
    let out = run(
        &venv,
        "python",
        vec![
            client_script("occurrence_edits.py"),
            app.base.clone(),
            token,
        ],
    )
    .await;
    assert!(out.contains("occurrence edits ok"), "{out}");

    // The series skips the moved and the cancelled dates; the moved one is
    // a note of its own naming the series and the occurrence, renamed by
    // the second edit, not copied.
    let series = app.note("events/2026-02-03 Sync.md");
    assert!(
        series.ends_with("uid: sync-1\nskipDates:\n- 2026-02-10\n- 2026-02-17\n---\n"),
        "{series}"
    );
    let detached = app.note("events/2026-02-11 Sync (moved again).md");
    assert!(detached.contains("\nuid: sync-1\n"), "{detached}");
    assert!(
        detached.contains("\nrecurrenceId: 2026-02-10\n"),
        "{detached}"
    );
    assert!(detached.contains("\nstartTime: \"14:00\"\n"), "{detached}");
    assert!(detached.contains("\nlocation: Room 4\n"), "{detached}");
    assert!(!detached.contains("rrule"), "{detached}");
    let listed = notes(&app);
    assert!(
        !listed.iter().any(|n| n.contains("Sync (moved).md")),
        "{listed:?}"
    );
    assert_eq!(
        listed.iter().filter(|n| n.contains("Sync")).count(),
        2,
        "{listed:?}"
    );

    // The hand-written series keeps every byte but its skipped dates and
    // the UID that links the detached note to it.
    let gym = app.note(GYM);
    let expected = gym_before.replace(
        "skipDates: [2026-01-08]\n",
        "skipDates:\n- 2026-01-08\n- 2026-01-12\nuid: fullnote:events/2026-01-05 Gym.md\n",
    );
    assert_eq!(gym, expected);
    let gym_moved = app.note("events/2026-01-12 Gym.md");
    assert!(
        gym_moved.contains("\nrecurrenceId: 2026-01-12\n"),
        "{gym_moved}"
    );
    assert!(
        gym_moved.contains("\nstartTime: \"18:00\"\n"),
        "{gym_moved}"
    );

    // A detached occurrence dropped for an EXDATE: its note is gone, the
    // date skipped.
    let listed = notes(&app);
    let retro: Vec<_> = listed.iter().filter(|n| n.contains("Retro")).collect();
    assert_eq!(retro, ["2026-02-05 Retro.md"], "{listed:?}");
    let series = app.note("events/2026-02-05 Retro.md");
    assert!(series.contains("skipDates:\n- 2026-02-12\n"), "{series}");

    // Deleting the series' resource deletes the series and its detached
    // note.
    let token = app.read_write_token().await;
    let gone = app
        .as_client(Some(&token))
        .send("DELETE", "/calendars/local/sync-1.ics")
        .await;
    assert_eq!(gone.status(), reqwest::StatusCode::NO_CONTENT);
    let listed = notes(&app);
    assert!(!listed.iter().any(|n| n.contains("Sync")), "{listed:?}");
}

/// A weekly series on Mondays at 09:00 Berlin time, with `extra` VEVENTs.
fn weekly(extra: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:plan-1\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20260302T090000\r\n\
         DTEND;TZID=Europe/Berlin:20260302T100000\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\n\
         SUMMARY:Plan\r\nEND:VEVENT\r\n{extra}END:VCALENDAR\r\n"
    )
}

/// An override of `recurrence_id` (Berlin time) moved an hour later.
fn moved(recurrence_id: &str) -> String {
    let day = &recurrence_id[..8];
    format!(
        "BEGIN:VEVENT\r\nUID:plan-1\r\nDTSTAMP:20260101T000000Z\r\n\
         RECURRENCE-ID;TZID=Europe/Berlin:{recurrence_id}\r\n\
         DTSTART;TZID=Europe/Berlin:{day}T100000\r\nDTEND;TZID=Europe/Berlin:{day}T110000\r\n\
         SUMMARY:Plan\r\nEND:VEVENT\r\n"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_override_of_a_date_the_series_lacks_is_refused_and_changes_nothing() {
    let app = CaldavHarness::start().await;
    let token = app.read_write_token().await;
    let client = app.as_client(Some(&token));
    let before = notes(&app);
    // A Tuesday: the series meets on Mondays.
    let bad = weekly(&moved("20260303T090000"));
    let refused = client.put("/calendars/local/plan-1.ics", None, bad).await;
    assert_eq!(refused.status(), reqwest::StatusCode::BAD_REQUEST);
    assert!(refused.text().await.unwrap().contains("2026-03-03"));
    assert_eq!(notes(&app), before, "a new series refused leaves no note");

    let created = client
        .put("/calendars/local/plan-1.ics", None, weekly(""))
        .await;
    assert_eq!(created.status(), reqwest::StatusCode::CREATED);
    let series = app.note("events/2026-03-02 Plan.md");
    let listed = notes(&app);
    let refused = client
        .put(
            "/calendars/local/plan-1.ics",
            None,
            weekly(&moved("20260303T090000")),
        )
        .await;
    assert_eq!(refused.status(), reqwest::StatusCode::BAD_REQUEST);
    assert_eq!(app.note("events/2026-03-02 Plan.md"), series);
    assert_eq!(notes(&app), listed);

    // The same on a Monday is an override like any other.
    let accepted = client
        .put(
            "/calendars/local/plan-1.ics",
            None,
            weekly(&moved("20260309T090000")),
        )
        .await;
    assert_eq!(accepted.status(), reqwest::StatusCode::NO_CONTENT);
    let detached = app.note("events/2026-03-09 Plan.md");
    assert!(detached.contains("\nstartTime: \"10:00\"\n"), "{detached}");
}
