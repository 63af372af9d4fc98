//! The sidebar: today and the coming week in the settings' display zone (not
//! the machine's), the next reminder, and quick-add writing a real note
//! through the engine, with its errors shown next to the field.

mod support;

use almanac_core::quick_add::{CalendarName, Context, parse};
use almanac_core::tokens::Scope;
use almanac_testkit::quick_add_table::{shown as shown_in_table, table};
use chrono::{Days, Utc};
use chrono_tz::Tz;
use serde_json::{Value, json};
use support::instance::Instance;
use support::webdriver::{Session, Theme, shown_in_zone};
use support::{epoch_now, eventually, port_open};

const ZONE: Tz = Tz::Europe__Berlin;

/// The texts of the agenda's rows: `[time, title]` each.
const ROWS: &str = "[...document.querySelectorAll('.fc-list-event')]
    .map((row) => [row.querySelector('.fc-list-event-time')?.textContent ?? '',
                   row.querySelector('.fc-list-event-title')?.textContent ?? ''])";

/// The agenda row of `title` as `[time, title]`, once shown.
async fn row(session: &Session, title: &str) -> Value {
    session
        .wait_for(&format!("{ROWS}.find((r) => r[1] === '{title}')"))
        .await
}

/// The app on UTC, the settings on Berlin: an agenda or a reminder shown in
/// the machine's zone would be an hour early in winter, two in summer.
async fn start_in_berlin(instance: &Instance) -> Session {
    let session =
        Session::start_with_env(instance, "sidebar", Theme::Light, &[("TZ", "UTC")]).await;
    let machine_offset = session
        .execute("return new Date().getTimezoneOffset();", json!([]))
        .await;
    assert_eq!(machine_offset, json!(0), "the webview runs on UTC");
    session
}

#[tokio::test]
async fn agenda_and_next_reminder_follow_the_display_timezone() {
    let instance = Instance::with_settings(json!({
        "displayTimezone": "Europe/Berlin",
        "restServerEnabled": true,
    }));
    let admin = instance.mint_token(&[Scope::SystemFullAccess]);
    // Tomorrow (UTC) is inside Berlin's "today and six days".
    let day = Utc::now().date_naive() + Days::new(1);
    instance.write_note(
        &format!("{day} Standup.md"),
        &format!(
            "title: Standup\nallDay: false\ndate: {day}\ntimezone: Europe/Berlin\nstartTime: \"09:30\"\nendTime: \"10:30\""
        ),
    );
    instance.write_note(
        &format!("{day} Release.md"),
        &format!("title: Release\nallDay: true\ndate: {day}"),
    );
    let session = start_in_berlin(&instance).await;

    assert_eq!(
        row(&session, "Standup").await,
        json!(["9:30am - 10:30am", "Standup"])
    );
    assert_eq!(
        row(&session, "Release").await,
        json!(["all-day", "Release"])
    );

    // The next reminder, its time in Berlin.
    eventually("the reminder daemon", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;
    let trigger = epoch_now() + 3600;
    instance
        .sync_reminders(json!([
            { "id": "later", "title": "Call the dentist", "body": "Before noon",
              "trigger_at_epoch": trigger + 600, "action_url": "" },
            { "id": "next", "title": "Water the plants", "body": "Balcony first",
              "trigger_at_epoch": trigger, "action_url": "" },
        ]))
        .await;
    session
        .wait_for("document.getElementById('next-reminder-text').dataset.reminderId === 'next'")
        .await;
    let shown = |zone: &str| shown_in_zone(trigger * 1000, zone);
    let when = session
        .execute(
            &format!(
                "return [document.querySelector('.next-reminder-title').textContent,
                         document.querySelector('.next-reminder-when').textContent,
                         {}, {}];",
                shown("Europe/Berlin"),
                shown("UTC")
            ),
            json!([]),
        )
        .await;
    assert_eq!(when[0], "Water the plants");
    assert_eq!(when[1], when[2], "shown in Berlin: {when}");
    assert_ne!(when[1], when[3], "not in the machine's zone: {when}");

    // A new display zone applies live: 09:30 in Berlin is 03:30 in New York.
    instance
        .update_settings(&admin, json!({ "displayTimezone": "America/New_York" }))
        .await;
    session
        .wait_for(&format!(
            "{ROWS}.some((r) => r[1] === 'Standup' && r[0] === '3:30am - 4:30am')"
        ))
        .await;
    session
        .wait_for(&format!(
            "document.querySelector('.next-reminder-when').textContent === {}",
            shown("America/New_York")
        ))
        .await;
    session.end().await;
    support::dismiss_notifications();
}

#[tokio::test]
async fn quick_add_creates_the_event_in_the_display_zone_and_shows_errors_inline() {
    let instance = Instance::with_settings(json!({ "displayTimezone": "Europe/Berlin" }));
    let session = start_in_berlin(&instance).await;
    session
        .wait_for("document.getElementById('quick-add-calendar').value === 'local'")
        .await;

    // No date: refused next to the field, nothing written.
    session.type_into("#quick-add-text", "Standup").await;
    session.click("#quick-add-submit").await;
    let error = session
        .wait_for("!document.getElementById('quick-add-error').hidden && document.getElementById('quick-add-error').textContent")
        .await;
    assert!(
        error.as_str().unwrap().contains("No date or time"),
        "{error}"
    );
    assert_eq!(notes(&instance), Vec::<String>::new());

    // "Tomorrow" is tomorrow in Berlin, whatever the machine's date.
    let tomorrow = Utc::now().with_timezone(&ZONE).date_naive() + Days::new(1);
    session
        .execute(
            "document.getElementById('quick-add-text').value = ''",
            json!([]),
        )
        .await;
    session
        .type_into("#quick-add-text", "Lunch with Ada tomorrow 12:30")
        .await;
    session.click("#quick-add-submit").await;
    session
        .wait_for("document.getElementById('quick-add').dataset.created === 'Lunch with Ada'")
        .await;
    let name = format!("{tomorrow} Lunch with Ada.md");
    assert_eq!(notes(&instance), vec![name.clone()]);
    let note = std::fs::read_to_string(instance.vault().join("events").join(&name)).unwrap();
    for line in [
        "title: Lunch with Ada",
        "allDay: false",
        &format!("date: {tomorrow}"),
    ] {
        assert!(note.lines().any(|l| l == line), "{line:?} in {note}");
    }
    for (key, time) in [("startTime", "12:30"), ("endTime", "13:30")] {
        assert!(
            note.lines()
                .any(|l| l.starts_with(&format!("{key}:")) && l.contains(time)),
            "{key} {time} in {note}"
        );
    }
    assert!(
        !note.contains("timezone"),
        "a wall time in the display zone: {note}"
    );
    assert!(
        session
            .execute(
                "return document.getElementById('quick-add-error').hidden",
                json!([])
            )
            .await
            .as_bool()
            .unwrap()
    );
    // The agenda shows it at 12:30, as written.
    assert_eq!(
        row(&session, "Lunch with Ada").await,
        json!(["12:30pm - 1:30pm", "Lunch with Ada"])
    );

    // The same again: the engine refuses to replace the note, and says so.
    session
        .type_into("#quick-add-text", "Lunch with Ada tomorrow 12:30")
        .await;
    session.click("#quick-add-submit").await;
    let error = session
        .wait_for("!document.getElementById('quick-add-error').hidden && document.getElementById('quick-add-error').textContent")
        .await;
    assert!(
        error.as_str().unwrap().contains("already exists"),
        "{error}"
    );
    assert_eq!(notes(&instance), vec![name]);
    session.end().await;
}

/// Rows of docs/quick-add.md's phrase table typed into the sidebar: each
/// previews under the field, then creates the event the core's grammar
/// reads from the line now, in the calendar it names, in the display zone.
#[tokio::test]
async fn quick_add_rows_of_the_phrase_table_create_their_events() {
    let table = table();
    let mut sources = vec![json!({ "type": "local", "id": "local", "name": "Events",
                                   "directory": "events", "color": "#3b6fd4" })];
    for (id, name) in &table.calendars {
        sources.push(json!({ "type": "local", "id": id, "name": name,
                             "directory": id, "color": "#00aa00" }));
    }
    let instance = Instance::with_settings(json!({
        "displayTimezone": table.zone,
        "restServerEnabled": true,
        "calendarSources": sources,
    }));
    let reader = instance.mint_token(&[Scope::EventsRead]);
    let zone: Tz = table.zone.parse().unwrap();
    let session = start_in_berlin(&instance).await;
    session
        .wait_for("document.getElementById('quick-add-calendar').value === 'local'")
        .await;
    let calendars: Vec<CalendarName> = table
        .calendars
        .iter()
        .map(|(id, name)| CalendarName {
            id: id.clone(),
            name: name.clone(),
        })
        .collect();
    for phrase in [
        "Workshop 3-4pm tomorrow",
        "Review in Work tomorrow at 10",
        "Standup every Monday at 9:30",
        "Conference Dec 3-5",
    ] {
        assert!(
            table.rows.iter().any(|row| row.phrase == phrase),
            "{phrase} is a row of docs/quick-add.md"
        );
        let title = phrase.split(' ').next().unwrap();
        session
            .execute(
                "document.getElementById('quick-add-text').value = ''",
                json!([]),
            )
            .await;
        session.type_into("#quick-add-text", phrase).await;
        // The preview is the core's reading, before anything is written.
        session
            .wait_for(&format!(
                "document.getElementById('quick-add-preview').textContent.startsWith('{title}:')"
            ))
            .await;
        session.click("#quick-add-submit").await;
        let id = session
            .wait_for(&format!(
                "document.getElementById('quick-add').dataset.created === '{title}'
                 && document.getElementById('quick-add').dataset.createdId"
            ))
            .await;
        let id = id.as_str().unwrap().to_string();
        let expected = parse(
            phrase,
            &Context {
                now: Utc::now(),
                zone,
                calendars: &calendars,
            },
        )
        .unwrap();
        let details: Value = reqwest::Client::new()
            .get(format!(
                "{}/events/{}",
                instance.api(),
                id.replace('%', "%25")
                    .replace('/', "%2F")
                    .replace(' ', "%20")
            ))
            .bearer_auth(&reader)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let event = &details["details"]["event"];
        let calendar = expected.calendar_id.as_deref();
        assert_eq!(
            event["calendarId"],
            calendar.unwrap_or("local"),
            "{phrase}: {details}"
        );
        assert_eq!(
            shown_in_table(event, calendar),
            shown_in_table(&serde_json::to_value(&expected.fields).unwrap(), calendar),
            "{phrase}: {details}"
        );
    }
    session.end().await;
}

/// The notes in the vault's `events` folder, sorted.
fn notes(instance: &Instance) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(instance.vault().join("events"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
