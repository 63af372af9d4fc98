//! The sidebar: today and the coming week in the settings' display zone (not
//! the machine's) and on its clock (12 or 24 hours), the next reminder, and quick-add writing a real note
//! through the engine, with its errors shown next to the field.

use crate::support;

use almanac_core::quick_add::{CalendarName, Context, parse};
use almanac_core::tokens::Scope;
use almanac_testkit::quick_add_table::{shown as shown_in_table, table};
use chrono::{Days, NaiveDate, Utc};
use chrono_tz::Tz;
use serde_json::{Value, json};
use support::instance::AppHarness;
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
async fn start_in_berlin(instance: &AppHarness) -> Session {
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
    let instance = AppHarness::with_settings(json!({
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
    // So does the 24-hour clock.
    instance
        .update_settings(&admin, json!({ "timeFormat24h": true }))
        .await;
    session
        .wait_for(&format!(
            "{ROWS}.some((r) => r[1] === 'Standup' && r[0] === '03:30 - 04:30')"
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
    let instance = AppHarness::with_settings(json!({ "displayTimezone": "Europe/Berlin" }));
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

/// docs/quick-add.md's tables typed into the sidebar. Every row previews
/// under the field exactly what the core's grammar reads from it now (in the
/// display zone, with the calendar it names); every refused line previews
/// nothing and, sent, says the doc's reason inline and writes nothing. Four
/// rows are then sent and create the events the core reads.
#[tokio::test]
async fn quick_add_rows_of_the_phrase_table_create_their_events() {
    let table = table();
    let mut sources = vec![json!({ "type": "local", "id": "local", "name": "Events",
                                   "directory": "events", "color": "#3b6fd4" })];
    for (id, name) in &table.calendars {
        sources.push(json!({ "type": "local", "id": id, "name": name,
                             "directory": id, "color": "#00aa00" }));
    }
    let instance = AppHarness::with_settings(json!({
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
    let now = Context {
        now: Utc::now(),
        zone,
        calendars: &calendars,
    };
    // What the core reads from `phrase` at `at`: the title checked against
    // the table, then the preview the window should show.
    let expected_at = |phrase: &str, title: &str, at: chrono::DateTime<Utc>| {
        let context = Context {
            now: at,
            zone,
            calendars: &calendars,
        };
        let read = parse(phrase, &context).unwrap_or_else(|e| panic!("{phrase}: {e}"));
        assert_eq!(read.fields.title.as_deref(), Some(title), "{phrase}");
        let elsewhere = read.calendar_id.as_deref().map(|id| {
            let (_, name) = table
                .calendars
                .iter()
                .find(|(known, _)| known == id)
                .unwrap();
            name.as_str()
        });
        preview_of(&serde_json::to_value(&read.fields).unwrap(), elsewhere)
    };
    for row in &table.rows {
        // "30 minutes from now" is read when the window previews it: the
        // minute may turn between the test's clock and the window's, so the
        // preview is the reading of a moment between the two clock reads.
        let before = expected_at(&row.phrase, &row.shown.title, Utc::now());
        let shown = previewed(&session, &row.phrase).await;
        let after = expected_at(&row.phrase, &row.shown.title, Utc::now());
        assert!(
            shown == before || shown == after,
            "{}: the window previews {shown:?}, the core reads {before:?} (then {after:?})",
            row.phrase
        );
    }
    for refusal in &table.refusals {
        let why = match parse(&refusal.phrase, &now) {
            Ok(read) => {
                // A refusal that hangs on the doc's day (e.g. "tomorrow
                // friday" on a Thursday) reads today: the window must show
                // that reading instead.
                let expected = preview_of(&serde_json::to_value(&read.fields).unwrap(), None);
                assert_eq!(previewed(&session, &refusal.phrase).await, expected);
                continue;
            }
            Err(why) => why.to_string(),
        };
        assert!(
            why.contains(&refusal.message_part),
            "{}: {why}",
            refusal.phrase
        );
        assert_eq!(
            previewed(&session, &refusal.phrase).await,
            "",
            "{}",
            refusal.phrase
        );
        session.click("#quick-add-submit").await;
        let inline = session
            .wait_for(
                "!document.getElementById('quick-add-error').hidden
                 && document.getElementById('quick-add-error').textContent",
            )
            .await;
        let inline = inline.as_str().unwrap();
        assert!(inline.contains(&why), "{}: {inline}", refusal.phrase);
    }
    assert!(notes(&instance).is_empty(), "a refused line wrote a note");
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

/// Types `phrase` into the emptied quick-add field and returns the preview
/// shown once the core's reading of the whole line has arrived.
async fn previewed(session: &Session, phrase: &str) -> String {
    session
        .execute(
            "document.getElementById('quick-add-text').value = ''",
            json!([]),
        )
        .await;
    session.type_into("#quick-add-text", phrase).await;
    let line = serde_json::to_string(phrase).unwrap();
    let shown = session
        .wait_for(&format!(
            "document.getElementById('quick-add-preview').dataset.line === {line}
             && {{ text: document.getElementById('quick-add-preview').textContent }}"
        ))
        .await;
    shown["text"].as_str().unwrap().to_string()
}

/// The preview of a line read as `event` (quick-add's field shape), as
/// `describe` in ui/src/js/quickadd.js words it, dates as the page shows
/// them (en-US): "Lunch: Tue, Nov 24, 12:30 – 13:30", and " · in Work" when
/// the line names a calendar other than the chosen one.
fn preview_of(event: &Value, elsewhere: Option<&str>) -> String {
    let text = |key: &str| event[key].as_str().unwrap_or_default().to_string();
    let day = |key: &str| {
        NaiveDate::parse_from_str(&text(key), "%Y-%m-%d")
            .unwrap_or_else(|_| panic!("{key} is not a date: {event}"))
            .format("%a, %b %-d")
            .to_string()
    };
    let (title, start, end) = (text("title"), text("startTime"), text("endTime"));
    let all_day = event["allDay"].as_bool().unwrap_or(false);
    let hours = match all_day {
        true => "all day".to_string(),
        false => format!("{start} – {end}"),
    };
    let ends_later = event["endDate"].is_string();
    let last = match ends_later {
        true => format!(" – {}", day("endDate")),
        false => String::new(),
    };
    let described = if event["type"] == "single" {
        match (all_day, ends_later) {
            (true, _) => format!("{title}: {}{last}, all day", day("date")),
            (false, true) => format!("{title}: {}, {start}{last}, {end}", day("date")),
            (false, false) => format!("{title}: {}, {hours}", day("date")),
        }
    } else {
        let first = match event["startRecur"].is_string() {
            true => day("startRecur"),
            false => day("startDate"),
        };
        let until = match event["endRecur"].is_string() {
            true => format!(" until {}", day("endRecur")),
            false => String::new(),
        };
        format!(
            "{title}: {} from {first}{until}, {hours}",
            repeats_in_words(event)
        )
    };
    match elsewhere {
        Some(name) => format!("{described} · in {name}"),
        None => described,
    }
}

/// How a series repeats, as the preview says it (quickadd.js `repeats`).
fn repeats_in_words(event: &Value) -> String {
    if let Some(rule) = event["rrule"].as_str() {
        let interval = rule
            .split(';')
            .find_map(|part| part.strip_prefix("INTERVAL="));
        return match interval {
            Some(days) => format!("every {days} days"),
            None => "repeating".into(),
        };
    }
    let interval = event["repeatInterval"].as_i64().filter(|n| *n > 1);
    let every = |unit: &str, plain: &str| match interval {
        Some(n) => format!("every {n} {unit}s"),
        None => plain.to_string(),
    };
    let days: Vec<&str> = event["daysOfWeek"]
        .as_array()
        .map(|days| days.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if days.len() == 7 && interval.is_none() {
        return "every day".into();
    }
    if !days.is_empty() {
        let names: Vec<&str> = days
            .iter()
            .map(|letter| match *letter {
                "U" => "Sun",
                "M" => "Mon",
                "T" => "Tue",
                "W" => "Wed",
                "R" => "Thu",
                "F" => "Fri",
                _ => "Sat",
            })
            .collect();
        let on = if interval.is_some() { "on " } else { "" };
        return format!("{} {on}{}", every("week", "every"), names.join(", "));
    }
    if event["month"].as_i64().is_some_and(|month| month != 0) {
        return every("year", "every year");
    }
    every("month", "every month")
}

/// The notes in the vault's `events` folder, sorted.
fn notes(instance: &AppHarness) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(instance.vault().join("events"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
