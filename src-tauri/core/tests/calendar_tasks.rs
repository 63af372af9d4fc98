//! Obsidian Tasks calendars, black-box: task lines written by hand in a temp
//! vault as the Tasks plugin writes them, a real instance (engine, watcher,
//! tokens in the OS keyring: run under `scripts/session.sh`), the REST
//! server and the CalDAV server on loopback over real HTTP, and the vault
//! reminders the core derives. Dates count from today, so the tasks fall in
//! the reminders' horizon.

use std::sync::Arc;

use almanac_core::app::Core;
use almanac_core::caldav_server;
use almanac_core::rest::{self, Listening, RestState, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{CalendarSource, KindSettings, TaskDateField};
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, TestInstance, free_port, new_token};
use chrono::{NaiveDate, NaiveTime, Utc};
use reqwest::Method;
use serde_json::{Value, json};

const NOTE: &str = "Projects/Home.md";
const CALENDAR: &str = "tasks";

fn day(offset: i64) -> NaiveDate {
    Utc::now().date_naive() + chrono::Duration::days(offset)
}

/// A note as a user keeps it: text, a heading, nested and quoted tasks, a
/// task with no date (not on the calendar), CRLF line ends on one line.
fn home_note() -> String {
    format!(
        "# Home\n\nSome text about the house.\n\n\
         - [ ] Pay rent #home 📅 {rent}\n\
         - [ ] 09:00 - 10:00 Call Ann ⏳ {call}\r\n\
         \x20 - [x] Nested done 📅 {two} ✅ {two}\n\
         > [!todo] Errands\n\
         > - [ ] Post office (2:00 PM-3:00 PM) 🛫 {two}\n\
         - [ ] No date at all\n",
        rent = day(3),
        call = day(1),
        two = day(2),
    )
}

struct App {
    dir: tempfile::TempDir,
    core: Arc<Core>,
    rest: String,
    caldav: String,
    _caldav_server: rest::RestServer,
    _rest_server: Listening,
    client: reqwest::Client,
    token: String,
}

impl App {
    async fn start() -> App {
        let TestInstance { dir, core } = InstanceBuilder::new()
            .note(NOTE, &home_note())
            .note(
                "Elsewhere/Other.md",
                "- [ ] Outside the folder 📅 2026-01-01\n",
            )
            // A rule an RRULE cannot say: shown once, and named.
            .note(
                "Projects/Garden.md",
                &format!("- [ ] Mow 🔁 every week when done 📅 {}\n", day(4)),
            )
            .settings(|settings| {
                settings.calendar_sources.push(CalendarSource {
                    id: CALENDAR.into(),
                    name: "Tasks".into(),
                    color: "#00aa88".into(),
                    kind: KindSettings::Tasks {
                        directory: "Projects".into(),
                        date_field: TaskDateField::Due,
                    },
                    order: None,
                    components: None,
                })
            })
            .open()
            .await;
        let core = Arc::new(core);
        let state = RestState::from(core.as_ref());
        let rest_server = Listening::bind(0, move |port| rest::router(state, port))
            .await
            .unwrap();
        let caldav_server = caldav_server::start(
            core.plugin().clone(),
            core.calendar.clone(),
            &core.paths,
            core.settings.subscribe(),
        );
        let port = free_port();
        let plugin = core.plugin().clone();
        tokio::task::spawn_blocking(move || {
            plugin.update_settings(
                Actor::User,
                &json!({"caldavServer": {"enabled": true, "port": port}}),
            )
        })
        .await
        .unwrap()
        .unwrap();
        caldav_server
            .subscribe()
            .wait_for(|s| matches!(s, ServerState::Listening(a) if a.port() == port))
            .await
            .unwrap();
        let token = new_token(
            &core,
            "tasks test",
            &[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead],
            Expiry::Never,
        )
        .await;
        App {
            rest: format!("http://{}/api/v1", rest_server.local_addr()),
            caldav: format!("http://127.0.0.1:{port}"),
            dir,
            core,
            _caldav_server: caldav_server,
            _rest_server: rest_server,
            client: reqwest::Client::new(),
            token,
        }
    }

    fn note(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("vault").join(NOTE)).unwrap()
    }

    fn write_note(&self, text: &str) {
        std::fs::write(self.dir.path().join("vault").join(NOTE), text).unwrap();
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.rest))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let reply = request.send().await.unwrap();
        let status = reply.status().as_u16();
        (status, reply.json().await.unwrap_or(Value::Null))
    }

    /// The tasks calendar's events from yesterday to ten days ahead.
    async fn tasks(&self) -> Vec<Value> {
        let path = format!(
            "/events?calendar={CALENDAR}&start={}&end={}",
            day(-1),
            day(10)
        );
        let (status, body) = self.call(Method::GET, &path, None).await;
        assert_eq!(status, 200, "{body}");
        body["events"].as_array().unwrap().clone()
    }

    async fn task(&self, title: &str) -> Value {
        self.tasks()
            .await
            .into_iter()
            .find(|e| e["title"] == title)
            .unwrap_or_else(|| panic!("no task {title}"))
    }
}

fn encoded(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// The lines of `after` that differ from `before` (same line count).
fn changed_lines(before: &str, after: &str) -> Vec<(usize, String)> {
    let (before, after): (Vec<&str>, Vec<&str>) =
        (before.split('\n').collect(), after.split('\n').collect());
    assert_eq!(before.len(), after.len(), "lines were added or removed");
    before
        .iter()
        .zip(&after)
        .enumerate()
        .filter(|(_, (b, a))| b != a)
        .map(|(i, (_, a))| (i, a.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn tasks_are_served_ticked_moved_and_keep_their_ids() {
    let app = App::start().await;

    // Over REST: every dated task of the folder, titled without its fields.
    let tasks = app.tasks().await;
    let mut titles: Vec<&str> = tasks.iter().map(|e| e["title"].as_str().unwrap()).collect();
    titles.sort();
    assert_eq!(
        titles,
        [
            "Call Ann",
            "Mow",
            "Nested done",
            "Pay rent #home",
            "Post office"
        ]
    );
    let rent = app.task("Pay rent #home").await;
    assert_eq!(rent["date"], day(3).to_string());
    assert_eq!(rent["allDay"], true);
    assert_eq!(rent["completed"], false);
    assert_eq!(rent["filePath"], NOTE);
    let call = app.task("Call Ann").await;
    assert_eq!(
        (call["startTime"].as_str(), call["endTime"].as_str()),
        (Some("09:00"), Some("10:00"))
    );
    let post = app.task("Post office").await;
    assert_eq!(post["startTime"], "14:00");
    assert_eq!(
        app.task("Nested done").await["completed"],
        day(2).to_string()
    );
    let (_, calendars) = app.call(Method::GET, "/calendars", None).await;
    let listed = calendars["calendars"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == CALENDAR)
        .unwrap()
        .clone();
    assert_eq!(
        (listed["type"].as_str(), listed["editable"].as_bool()),
        (Some("tasks"), Some(true))
    );
    let problem = listed["lastError"].as_str().unwrap();
    assert!(
        problem.starts_with("Projects/Garden.md:1: kept once") && problem.contains("when done"),
        "{problem}"
    );

    // Over CalDAV: the calendar's tasks as VTODOs.
    let body = app
        .client
        .request(Method::from_bytes(b"PROPFIND").unwrap(), format!("{}/calendars/{CALENDAR}/", app.caldav))
        .basic_auth("someone", Some(&app.token))
        .header("Depth", "1")
        .body(r#"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop></d:propfind>"#)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for summary in ["Pay rent #home", "Call Ann", "Nested done", "Post office"] {
        assert!(
            body.contains(&format!("SUMMARY:{summary}&#13;")),
            "{summary}: {body}"
        );
    }
    assert!(body.contains("BEGIN:VTODO") && !body.contains("BEGIN:VEVENT"));

    // Ticking over REST rewrites that line only: the box and a done date.
    let before = app.note();
    let rent_id = rent["id"].as_str().unwrap().to_string();
    let path = format!("/events/{}", encoded(&rent_id));
    let (status, reply) = app
        .call(
            Method::PUT,
            &path,
            Some(json!({"event": {"completed": true}})),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["event"]["id"], rent_id.as_str());
    assert_eq!(reply["event"]["completed"], day(0).to_string());
    assert_eq!(
        changed_lines(&before, &app.note()),
        [(
            4,
            format!("- [x] Pay rent #home 📅 {} ✅ {}", day(3), day(0))
        )]
    );
    // The CRLF line ended as it was: every other byte is the same.
    assert!(app.note().contains(&format!("⏳ {}\r\n", day(1))));

    // Moving it rewrites its due date, nothing else. The date is part of
    // the task's text, so the answer names its new id.
    let before = app.note();
    let (status, reply) = app
        .call(
            Method::PUT,
            &path,
            Some(json!({"event": {"date": day(5).to_string()}})),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["event"]["date"], day(5).to_string());
    assert_eq!(
        changed_lines(&before, &app.note()),
        [(
            4,
            format!("- [x] Pay rent #home 📅 {} ✅ {}", day(5), day(0))
        )]
    );
    let rent_id = reply["event"]["id"].as_str().unwrap().to_string();
    let path = format!("/events/{}", encoded(&rent_id));

    // What a task line cannot hold is refused, and nothing is written.
    let before = app.note();
    let (status, reply) = app
        .call(
            Method::PUT,
            &path,
            Some(json!({"event": {"title": "Rent"}})),
        )
        .await;
    assert_eq!(status, 400, "{reply}");
    let (status, reply) = app
        .call(
            Method::POST,
            "/events",
            Some(json!({"calendarId": CALENDAR, "event": {"title": "New", "date": day(1).to_string(), "allDay": true}})),
        )
        .await;
    assert_eq!(status, 400, "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("add the task in a note"),
        "{reply}"
    );
    let (status, _) = app.call(Method::DELETE, &path, None).await;
    assert_eq!(status, 400);
    assert_eq!(app.note(), before);

    // Lines added above, another task ticked in the editor: the ids stay.
    let call_id = call["id"].as_str().unwrap().to_string();
    let edited = format!("---\ntags: [home]\n---\n\n{}", app.note()).replace(
        "- [ ] 09:00 - 10:00 Call Ann",
        "- [x] 09:00 - 10:00 Call Ann",
    );
    app.write_note(&edited);
    let mut changes = app.core.calendar.subscribe();
    let ticked = tokio::time::timeout(almanac_testkit::PATIENCE, async {
        loop {
            changes.borrow_and_update();
            // The note is written in place, as an editor may: a read may
            // catch it half written, without the task, until the next change.
            let call = app
                .tasks()
                .await
                .into_iter()
                .find(|e| e["title"] == "Call Ann");
            if let Some(call) = call.filter(|call| call["completed"] != false) {
                return call;
            }
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("the edit is seen");
    assert_eq!(ticked["id"], call_id.as_str());
    assert_eq!(app.task("Pay rent #home").await["id"], rent_id.as_str());
    let (status, details) = app.call(Method::GET, &path, None).await;
    assert_eq!(status, 200, "{details}");
    assert_eq!(details["details"]["location"]["lineNumber"], 8);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_reminds_like_any_event() {
    let app = App::start().await;
    let mut set = app.core.vault_reminders();
    let settings = app.core.settings.clone();
    tokio::task::spawn_blocking(move || {
        settings.update(
            Actor::User,
            &json!({"reminders": {"defaultReminders": true, "defaultMinutes": 15}}),
        )
    })
    .await
    .unwrap()
    .unwrap();
    let at = |offset: i64, hh_mm: &str| {
        day(offset)
            .and_time(NaiveTime::parse_from_str(hh_mm, "%H:%M").unwrap())
            .and_utc()
    };
    let reminders = tokio::time::timeout(
        almanac_testkit::PATIENCE,
        set.wait_for(|set| set.reminders.iter().any(|r| r.calendar_id == CALENDAR)),
    )
    .await
    .expect("the tasks remind")
    .unwrap()
    .clone();
    let mut triggers: Vec<(String, chrono::DateTime<Utc>)> = reminders
        .reminders
        .iter()
        .filter(|r| r.calendar_id == CALENDAR)
        .map(|r| (r.title.clone(), r.trigger))
        .collect();
    triggers.sort_by_key(|(_, trigger)| *trigger);
    // The done task never reminds; the timed ones 15 minutes before they
    // start, the all-day one 15 minutes before its day.
    assert_eq!(
        triggers,
        [
            ("Call Ann".to_string(), at(1, "08:45")),
            ("Post office".to_string(), at(2, "13:45")),
            ("Pay rent #home".to_string(), at(2, "23:45")),
            ("Mow".to_string(), at(3, "23:45")),
        ]
    );
    let call = reminders
        .reminders
        .iter()
        .find(|r| r.title == "Call Ann")
        .unwrap();
    assert_eq!(call.path, NOTE);
    assert!(call.event_id.starts_with(&format!("task:{NOTE}::")));
}
