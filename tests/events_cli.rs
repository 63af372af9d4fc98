//! `almanac events|agenda|calendars|reminders`: the real binaries, on a temp
//! vault with no instance running (direct mode, under the data folder's
//! lock) and against a running `almanac-server` with a real token in the
//! session's keyring (REST). Ids printed with `--json` go through the real
//! `jq` into `events rm` and `DELETE /api/v1/events/{id}`; `--tsv` goes
//! through the real `cut`. Run inside scripts/session.sh (the keyring).

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use almanac_core::tokens::Scope;
use almanac_testkit::quick_add_table::{shown, table};
use serde_json::{Value, json};
use support::instance::{App, AppHarness};
use support::{app_binary, eventually, port_open, require_desktop_session};

const SERVER: &str = env!("CARGO_BIN_EXE_almanac-server");

/// `PROGRAM ARGS` in `instance`, with `env` set and no token inherited.
fn run_program(
    program: &Path,
    instance: &AppHarness,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    Command::new(program)
        .args(args)
        .envs(instance.env())
        .env_remove("ALMANAC_TOKEN")
        .env_remove("ALMANAC_TOKEN_FILE")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn cli(instance: &AppHarness, args: &[&str], env: &[(&str, &str)]) -> Output {
    run_program(&app_binary(), instance, args, env)
}

/// A shell pipeline with `$ALMANAC` the app binary.
fn pipeline(instance: &AppHarness, script: &str, env: &[(&str, &str)]) -> String {
    let out = Command::new("sh")
        .args(["-ec", script])
        .env("ALMANAC", app_binary())
        .envs(instance.env())
        .env_remove("ALMANAC_TOKEN")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{script}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ids(listing: &Value) -> Vec<String> {
    listing
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["id"].as_str().unwrap().to_string())
        .collect()
}

/// An id as one path segment, as REST clients send it.
fn segment(id: &str) -> String {
    id.bytes()
        .map(|b| match b.is_ascii_alphanumeric() {
            true => (b as char).to_string(),
            false => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn direct_mode_lists_adds_edits_and_removes_on_the_vault() {
    let instance = AppHarness::new();
    instance.write_note(
        "2026-03-02 Standup.md",
        "title: Standup\ntype: recurring\ndaysOfWeek: [M]\nstartRecur: 2026-03-02\nstartTime: \"09:30\"\nendTime: \"10:00\"",
    );
    instance.write_note(
        "2026-03-03 Tabs.md",
        "title: \"Tab\\there\"\ndate: 2026-03-03\nallDay: true",
    );
    let week = [
        "events",
        "list",
        "--from",
        "2026-03-02",
        "--to",
        "2026-03-15",
    ];

    let listed = json_of(&cli(&instance, &[&week[..], &["--json"]].concat(), &[]));
    let standup = "fullnote:events/2026-03-02 Standup.md";
    let tabs = "fullnote:events/2026-03-03 Tabs.md";
    assert_eq!(ids(&listed), [standup, tabs, standup], "{listed}");

    // TSV: one line per event, `id` first, the tab in a title escaped, so
    // `cut` gives back exactly the ids and titles.
    let cut = pipeline(
        &instance,
        "\"$ALMANAC\" events list --from 2026-03-02 --to 2026-03-15 --tsv | cut -f1,7",
        &[],
    );
    assert_eq!(
        cut,
        format!("id\ttitle\n{standup}\tStandup\n{tabs}\tTab\\there\n{standup}\tStandup\n")
    );

    // The same from almanac-server, as people read it.
    let human = stdout(&run_program(Path::new(SERVER), &instance, &week, &[]));
    assert!(human.contains("2026-03-02 09:30-10:00  Standup"), "{human}");

    let added = json_of(&cli(
        &instance,
        &[
            "events",
            "add",
            "--title",
            "Review",
            "--start",
            "2026-03-04T14:00",
            "--end",
            "15:00",
            "--json",
        ],
        &[],
    ));
    let review = added["id"].as_str().unwrap().to_string();
    assert_eq!(review, "fullnote:events/2026-03-04 Review.md");
    let note = instance.vault().join("events/2026-03-04 Review.md");
    let written = std::fs::read_to_string(&note).unwrap();
    assert!(
        written.contains("14:00") && written.contains("15:00"),
        "{written}"
    );

    let edited = json_of(&cli(
        &instance,
        &[
            "events", "edit", &review, "--start", "16:00", "--end", "17:00", "--json",
        ],
        &[],
    ));
    assert_eq!(
        (edited["startTime"].as_str(), edited["endTime"].as_str()),
        (Some("16:00"), Some("17:00"))
    );
    let shown_event = json_of(&cli(&instance, &["events", "show", &review, "--json"], &[]));
    assert_eq!(shown_event["startTime"], "16:00");
    assert_eq!(shown_event["location"]["lineNumber"], 0);

    // One occurrence of the series, then the whole review.
    let gone = cli(
        &instance,
        &["events", "rm", standup, "--occurrence", "2026-03-09"],
        &[],
    );
    assert!(gone.status.success(), "{gone:?}");
    let listed = json_of(&cli(&instance, &[&week[..], &["--json"]].concat(), &[]));
    assert_eq!(ids(&listed), [standup, tabs, review.as_str()], "{listed}");
    assert!(
        cli(&instance, &["events", "rm", &review], &[])
            .status
            .success()
    );
    assert!(!note.exists());

    // Exit codes: no such event 3, bad arguments 2, a refused token 4.
    assert_eq!(
        cli(&instance, &["events", "rm", "fullnote:events/nope.md"], &[])
            .status
            .code(),
        Some(3)
    );
    assert_eq!(
        cli(
            &instance,
            &["events", "show", "fullnote:events/nope.md"],
            &[]
        )
        .status
        .code(),
        Some(3)
    );
    assert_eq!(
        cli(&instance, &["events", "list", "--bogus"], &[])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        cli(&instance, &["events", "list", "--from", "someday"], &[])
            .status
            .code(),
        Some(2)
    );
    let refused = cli(
        &instance,
        &["events", "list"],
        &[("ALMANAC_TOKEN", "ofc_pat_not_a_token")],
    );
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    assert!(
        instance
            .vault()
            .join("events/2026-03-02 Standup.md")
            .exists()
    );

    // A series too costly to expand is named on standard error; the output
    // stays the JSON asked for.
    instance.write_note(
        "Tick.md",
        "title: Tick\ntype: rrule\nrrule: FREQ=SECONDLY\nstartDate: 2020-01-01\nstartTime: \"00:00\"",
    );
    let out = cli(&instance, &[&week[..], &["--json"]].concat(), &[]);
    assert_eq!(ids(&json_of(&out)), [standup, tabs], "{out:?}");
    assert!(stderr(&out).contains("`Tick` was left out"), "{out:?}");
}

#[test]
fn the_quick_add_phrase_table_through_the_command_line() {
    let table = table();
    let mut sources = vec![json!({"type": "local", "id": "local", "name": "Events",
                                  "directory": "events", "color": "#3b6fd4"})];
    for (id, name) in &table.calendars {
        sources.push(
            json!({"type": "local", "id": id, "name": name, "directory": id, "color": "#00aa00"}),
        );
    }
    let instance = AppHarness::with_settings(json!({
        "displayTimezone": table.zone, "calendarSources": sources,
    }));
    let calendar_of = |named: &str| {
        if named == "—" {
            "local".to_string()
        } else {
            named.to_string()
        }
    };
    let mut wrong = Vec::new();
    for row in &table.rows {
        let args = [
            "events",
            "add",
            "--dry-run",
            "--json",
            "--now",
            &table.now,
            "--",
            &row.phrase,
        ];
        let read = json_of(&cli(&instance, &args, &[]));
        let calendar = calendar_of(&row.shown.calendar);
        assert_eq!(read["calendarId"], calendar.as_str(), "{}", row.phrase);
        let named = (row.shown.calendar != "—").then_some(calendar.as_str());
        if shown(&read, named) != row.shown {
            wrong.push(format!(
                "{:?}\n  doc: {:?}\n  got: {:?}",
                row.phrase,
                row.shown,
                shown(&read, named)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        std::fs::read_dir(instance.vault().join("events"))
            .unwrap()
            .next()
            .is_none(),
        "a dry run writes nothing"
    );

    for row in &table.rows {
        let args = [
            "events",
            "add",
            "--json",
            "--now",
            &table.now,
            "--",
            &row.phrase,
        ];
        let event = json_of(&cli(&instance, &args, &[]));
        let calendar = calendar_of(&row.shown.calendar);
        assert_eq!(event["calendarId"], calendar.as_str(), "{}", row.phrase);
        let named = (row.shown.calendar != "—").then_some(calendar.as_str());
        assert_eq!(shown(&event, named), row.shown, "{}: {event}", row.phrase);
        assert!(
            event["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("fullnote:")),
            "{event}"
        );
    }
    for refusal in &table.refusals {
        let out = cli(
            &instance,
            &[
                "events",
                "add",
                "--dry-run",
                "--now",
                &table.now,
                "--",
                &refusal.phrase,
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(2), "{}: {out:?}", refusal.phrase);
        assert!(
            stderr(&out).contains(&refusal.message_part),
            "{}: {}",
            refusal.phrase,
            stderr(&out)
        );
    }
}

/// `almanac-server` on `instance`, once its reminder daemon and, if `rest`,
/// its REST server listen.
async fn running_server(instance: &AppHarness, rest: bool) -> App {
    let app = instance.spawn_program(Path::new(SERVER), &[], std::iter::empty::<(&str, &str)>());
    eventually("the servers to listen", || async {
        (port_open(instance.daemon_port) && (!rest || port_open(instance.rest_port))).then_some(())
    })
    .await;
    app
}

#[tokio::test]
async fn against_a_running_instance_ids_work_in_the_cli_and_in_rest() {
    require_desktop_session();
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    for day in ["05", "06", "07"] {
        instance.write_note(
            &format!("2026-01-{day} Call {day}.md"),
            &format!(
                "title: Call {day}\ndate: 2026-01-{day}\nstartTime: \"08:00\"\nendTime: \"08:30\""
            ),
        );
    }
    let writer =
        instance.mint_token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead]);
    let reader = instance.mint_token(&[Scope::EventsRead]);
    let mut app = running_server(&instance, true).await;
    let writer_env = [("ALMANAC_TOKEN", writer.as_str())];
    let reader_env = [("ALMANAC_TOKEN", reader.as_str())];

    // Without a token the running instance cannot be asked: 4, and why.
    let refused = cli(&instance, &["events", "list"], &[]);
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    assert!(
        stderr(&refused).contains("ALMANAC_TOKEN"),
        "{}",
        stderr(&refused)
    );
    let bad = cli(
        &instance,
        &["events", "list"],
        &[("ALMANAC_TOKEN", "ofc_pat_wrong")],
    );
    assert_eq!(bad.status.code(), Some(4), "{bad:?}");

    // A token file others can read is refused; the owner's own is used.
    let file = instance.root().join("token");
    std::fs::write(&file, format!("{writer}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let file_arg = file.to_str().unwrap();
    let loose = cli(&instance, &["calendars", "--token-file", file_arg], &[]);
    assert_eq!(loose.status.code(), Some(4), "{loose:?}");
    assert!(stderr(&loose).contains("chmod 600"), "{}", stderr(&loose));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let calendars = json_of(&cli(
        &instance,
        &["calendars", "--json", "--token-file", file_arg],
        &[],
    ));
    assert_eq!(calendars[0]["id"], "local", "{calendars}");

    // `--json | jq` ids: accepted by `events rm` and by REST's DELETE.
    let list = "\"$ALMANAC\" events list --from 2026-01-05 --to 2026-01-07 --json";
    let first = pipeline(&instance, &format!("{list} | jq -r '.[0].id'"), &writer_env);
    let first = first.trim();
    assert_eq!(first, "fullnote:events/2026-01-05 Call 05.md");
    assert!(
        cli(&instance, &["events", "rm", first], &writer_env)
            .status
            .success()
    );
    let second = pipeline(&instance, &format!("{list} | jq -r '.[0].id'"), &writer_env);
    let second = second.trim();
    assert_eq!(second, "fullnote:events/2026-01-06 Call 06.md");
    let deleted = reqwest::Client::new()
        .delete(format!("{}/events/{}", instance.api(), segment(second)))
        .bearer_auth(&writer)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    assert!(
        !instance
            .vault()
            .join("events/2026-01-05 Call 05.md")
            .exists()
    );
    assert!(
        !instance
            .vault()
            .join("events/2026-01-06 Call 06.md")
            .exists()
    );
    let tsv = pipeline(
        &instance,
        "\"$ALMANAC\" events list --tsv | cut -f1",
        &writer_env,
    );
    assert_eq!(tsv, "id\nfullnote:events/2026-01-07 Call 07.md\n");

    // Through the instance, a write the token may not make is refused (4)
    // and changes nothing; a missing id is 3.
    let add = [
        "events",
        "add",
        "Lunch tomorrow 12:30",
        "--calendar",
        "local",
    ];
    assert_eq!(cli(&instance, &add, &reader_env).status.code(), Some(4));
    assert_eq!(
        cli(
            &instance,
            &["events", "rm", "fullnote:events/nope.md"],
            &writer_env
        )
        .status
        .code(),
        Some(3)
    );
    let made = json_of(&cli(
        &instance,
        &[&add[..], &["--json"]].concat(),
        &writer_env,
    ));
    assert!(
        made["id"].as_str().unwrap().starts_with("fullnote:events/"),
        "{made}"
    );
    let agenda = stdout(&cli(&instance, &["agenda", "--days", "2"], &writer_env));
    assert!(agenda.contains("12:30-13:30  Lunch"), "{agenda}");

    // The history through the instance: the add is the token's, and undone.
    let changes = json_of(&cli(&instance, &["history", "--json"], &writer_env));
    assert_eq!(
        changes[0]["author"],
        json!({"kind": "token", "name": "black-box test"})
    );
    let lunch = changes[0]["files"][0]["path"].as_str().unwrap().to_string();
    assert!(instance.vault().join(&lunch).exists());
    let id = changes[0]["id"].to_string();
    let undone = stdout(&cli(&instance, &["undo", &id], &writer_env));
    assert!(undone.contains(&format!("(undoes {id})")), "{undone}");
    assert!(!instance.vault().join(&lunch).exists());

    // The reminder daemon's pending reminders.
    instance
        .sync_reminders(json!([{
            "id": "tea", "title": "Tea", "body": "",
            "trigger_at_epoch": support::epoch_now() + 3600, "action_url": "",
        }]))
        .await;
    let next = json_of(&cli(
        &instance,
        &["reminders", "next", "--json"],
        &writer_env,
    ));
    assert_eq!(next[0]["id"], "tea", "{next}");

    // Once it has stopped, the command works on the vault itself; a token
    // given there still holds it to its scopes.
    app.terminate();
    app.exited().await;
    let add = [
        "events",
        "add",
        "--title",
        "Tea",
        "--start",
        "2026-01-08T16:00",
        "--calendar",
        "local",
    ];
    let refused = cli(&instance, &add, &reader_env);
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    assert!(
        stderr(&refused).contains("events:write"),
        "{}",
        stderr(&refused)
    );
    assert!(!instance.vault().join("events/2026-01-08 Tea.md").exists());
    let listed = json_of(&cli(&instance, &["events", "list", "--json"], &reader_env));
    // Call 07 (the lunch was undone).
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert!(
        cli(&instance, &add, &[]).status.success(),
        "the owner needs no token"
    );
    assert!(instance.vault().join("events/2026-01-08 Tea.md").exists());

    // On the vault itself: the owner's add is the command line's, undone by
    // its id; then everything the token did (the two deletes; its add is
    // undone already) in one step, the notes back byte for byte.
    let changes = json_of(&cli(&instance, &["history", "--json"], &[]));
    assert_eq!(changes[0]["author"], json!({"kind": "cli"}), "{changes}");
    let id = changes[0]["id"].to_string();
    let undone = json_of(&cli(&instance, &["undo", &id, "--json"], &[]));
    assert_eq!(undone[0]["undoes"], changes[0]["id"]);
    assert!(!instance.vault().join("events/2026-01-08 Tea.md").exists());
    let since = ["--token", "black-box test", "--since", "2020-01-01"];
    let undone = json_of(&cli(
        &instance,
        &[&["undo"][..], &since, &["--json"]].concat(),
        &[],
    ));
    assert_eq!(undone.as_array().unwrap().len(), 2, "{undone}");
    for day in ["05", "06"] {
        let note = std::fs::read_to_string(
            instance
                .vault()
                .join(format!("events/2026-01-{day} Call {day}.md")),
        )
        .unwrap();
        assert_eq!(
            note,
            format!(
                "---\ntitle: Call {day}\ndate: 2026-01-{day}\nstartTime: \"08:00\"\nendTime: \"08:30\"\n---\n"
            )
        );
    }
}

#[tokio::test]
async fn an_instance_with_its_rest_server_off_is_named_with_exit_code_5() {
    let instance = AppHarness::new();
    let mut app = running_server(&instance, false).await;
    let out = cli(
        &instance,
        &["events", "list"],
        &[("ALMANAC_TOKEN", "ofc_pat_any")],
    );
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert!(stderr(&out).contains("REST server off"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Enable REST Server"),
        "{}",
        stderr(&out)
    );
    app.terminate();
    app.exited().await;
}

#[test]
fn direct_mode_lists_the_vaults_next_reminders() {
    let instance = AppHarness::new();
    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1)).date_naive();
    instance.write_note(
        "Dentist.md",
        &format!(
            "title: Dentist\ndate: {tomorrow}\nstartTime: \"09:30\"\nendTime: \"10:00\"\n\
             notify:\n  value: 15"
        ),
    );
    let next = json_of(&cli(&instance, &["reminders", "next", "--json"], &[]));
    assert_eq!(next[0]["title"], "Dentist", "{next}");
    assert_eq!(next[0]["eventId"], "fullnote:events/Dentist.md");
    assert_eq!(
        next[0]["triggerAt"],
        format!("{tomorrow}T09:15:00+00:00"),
        "{next}"
    );
    let tsv = stdout(&cli(&instance, &["reminders", "next", "--tsv"], &[]));
    assert_eq!(tsv.lines().next(), Some("id\ttriggerAt\ttitle\teventId"));
    assert!(
        tsv.lines()
            .nth(1)
            .unwrap()
            .starts_with("fullnote:events/Dentist.md::")
    );
}

/// A process that holds the data folder's lock (a running Almanac) but
/// whose REST server, switched on in the settings, does not answer.
#[test]
fn an_instance_that_does_not_answer_is_exit_code_5() {
    let instance = AppHarness::with_settings(json!({ "restServerEnabled": true }));
    let paths = almanac_core::paths::Paths::new(
        instance.config_home().join("almanac"),
        instance.data_home().join("almanac"),
    );
    let _held = almanac_core::data_lock::DataLock::acquire(&paths).unwrap();
    let out = cli(
        &instance,
        &["calendars"],
        &[("ALMANAC_TOKEN", "ofc_pat_any")],
    );
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert!(stderr(&out).contains("did not answer"), "{out:?}");
}

/// Another program listening on Almanac's REST port while the data folder
/// is held (the app is starting, or failed to bind): it answers like a web
/// server, but cannot prove it is this user's Almanac, so neither the
/// command line nor `almanac mcp` sends it the token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_on_the_rest_port_that_is_not_almanac_never_gets_the_token() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "mcpServer": { "enabled": true },
    }));
    let paths = almanac_core::paths::Paths::new(
        instance.config_home().join("almanac"),
        instance.data_home().join("almanac"),
    );
    let _held = almanac_core::data_lock::DataLock::acquire(&paths).unwrap();
    // The key of an instance that ran before: the impostor cannot read it.
    almanac_core::instance_proof::InstanceKey::create(&paths).unwrap();
    let impostor = tokio::net::TcpListener::bind(("127.0.0.1", instance.rest_port))
        .await
        .unwrap();
    let heard = tokio::spawn(async move {
        let mut heard = Vec::new();
        while let Ok((mut stream, _)) = impostor.accept().await {
            let mut buffer = vec![0; 64 * 1024];
            let read = stream.read(&mut buffer).await.unwrap_or(0);
            heard.extend_from_slice(&buffer[..read]);
            let _ = stream
                .write_all(b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n")
                .await;
            if heard.windows(4).filter(|w| w == b"GET ").count() >= 2 {
                break;
            }
        }
        heard
    });
    const SECRET: &str = "ofc_pat_do-not-send-me";

    let out = cli(&instance, &["calendars"], &[("ALMANAC_TOKEN", SECRET)]);
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert!(stderr(&out).contains("not this user's Almanac"), "{out:?}");

    let mcp = Command::new(SERVER)
        .arg("mcp")
        .envs(instance.env())
        .env("ALMANAC_TOKEN", SECRET)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!mcp.status.success(), "{mcp:?}");
    assert!(stderr(&mcp).contains("not this user's Almanac"), "{mcp:?}");

    let heard = String::from_utf8_lossy(&heard.await.unwrap()).into_owned();
    assert!(heard.contains("almanac-challenge"), "it was asked: {heard}");
    assert!(!heard.contains(SECRET), "the token never left: {heard}");
}

/// A title holding terminal escapes (set the window title, recolour, clear
/// the screen, a C1 CSI, DEL) and a right-to-left override reaches the
/// terminal visibly escaped in every listing people or `cut` read; JSON keeps
/// the title's characters as data.
#[test]
fn escapes_in_a_title_reach_no_terminal_raw() {
    let instance = AppHarness::new();
    instance.write_note(
        "2026-03-03 Hostile.md",
        "title: \"\\e]0;owned\\a\\e[31mRed\\e[2J\\u009B6n\\x7F \\u202Egnp.exe\"\ndate: 2026-03-03\nallDay: true",
    );
    let week = [
        "events",
        "list",
        "--from",
        "2026-03-02",
        "--to",
        "2026-03-09",
    ];
    let shown =
        "[U+001B]]0;owned[U+0007][U+001B][31mRed[U+001B][2J[U+009B]6n[U+007F] [U+202E]gnp.exe";
    for format in [None, Some("--tsv")] {
        let args: Vec<&str> = week.iter().copied().chain(format).collect();
        let out = stdout(&cli(&instance, &args, &[]));
        let raw = out
            .chars()
            .find(|c| (c.is_control() && *c != '\n' && *c != '\t') || *c == '\u{202E}');
        assert_eq!(raw, None, "{format:?}: {out:?}");
        assert!(out.contains(shown), "{format:?}: {out}");
    }
    let id = "fullnote:events/2026-03-03 Hostile.md";
    let details = stdout(&cli(&instance, &["events", "show", id], &[]));
    assert!(details.contains(&format!("title: {shown}")), "{details}");
    let listed = json_of(&cli(&instance, &[&week[..], &["--json"]].concat(), &[]));
    assert_eq!(
        listed[0]["title"],
        "\u{1b}]0;owned\u{7}\u{1b}[31mRed\u{1b}[2J\u{9b}6n\u{7f} \u{202e}gnp.exe"
    );
}

/// A published calendar's sync in `almanac calendars`, from the vault
/// directly and from a running instance's `GET /api/v1/calendars`: when it
/// last synced, what waits, the last error, the conflicts. The note names a
/// conflict quotes (a note named by a server's title) reach the terminal
/// escaped; JSON keeps them as data.
#[tokio::test]
async fn calendars_show_each_published_calendars_sync_escaped() {
    use almanac_core::publish::status::{Conflict, Status, StatusStore};

    require_desktop_session();
    // Nothing listens there: each pass fails to connect, which keeps the
    // last sync and the conflicts of the status below.
    let collection = format!("http://127.0.0.1:{}/cal/", support::free_port());
    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "publishedCalendars": [{ "calendarId": "local", "url": collection, "username": "me" }],
    }));
    instance.write_note(
        "2026-03-02 A.md",
        "title: A\ndate: 2026-03-02\nallDay: true",
    );
    let hostile = "events/\u{1b}]0;owned\u{7}\u{202e}gnp.md";
    let paths = almanac_core::paths::Paths::new(
        instance.config_home().join("almanac"),
        instance.data_home().join("almanac"),
    );
    let status = Status {
        collection_url: collection.clone(),
        last_sync_millis: Some(1_772_443_800_000),
        conflicts: vec![Conflict {
            uid: "u1".into(),
            note: hostile.into(),
            conflict_note: "events/A (conflict).md".into(),
            at_millis: 1_772_443_800_000,
        }],
        ..Status::default()
    };
    StatusStore::new(&paths.publish_dir())
        .store("local", &status)
        .unwrap();

    let expect_shown = |out: &str| {
        assert!(
            out.contains("  on the phone: synced 2026-03-02 09:30; 1 waiting;"),
            "{out}"
        );
        assert!(
            out.contains(
                "1 conflict(s), the latest: events/[U+001B]]0;owned[U+0007][U+202E]gnp.md kept, \
                 the server's version in events/A (conflict).md"
            ),
            "{out}"
        );
        for raw in ['\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(!out.contains(raw), "{out:?}");
        }
    };
    expect_shown(&stdout(&cli(&instance, &["calendars"], &[])));
    let tsv = pipeline(&instance, "\"$ALMANAC\" calendars --tsv | cut -f1,6-", &[]);
    let mut rows = tsv.lines();
    assert_eq!(
        rows.next(),
        Some("id\tlastSync\twaiting\tlastError\tconflicts")
    );
    let row: Vec<&str> = rows.next().unwrap().split('\t').collect();
    assert_eq!(
        (row[0], row[1], row[2], row[4]),
        ("local", "2026-03-02T09:30:00Z", "1", "1")
    );
    let listed = json_of(&cli(&instance, &["calendars", "--json"], &[]));
    assert_eq!(listed[0]["published"]["conflicts"][0]["note"], hostile);

    // From a running instance, over REST: the same.
    let token = instance.mint_token(&[Scope::ProvidersRead]);
    let mut app = running_server(&instance, true).await;
    let env = [("ALMANAC_TOKEN", token.as_str())];
    // Once the running instance's first pass failed, its reason is the
    // last error.
    let out = eventually("the failed pass' reason", || async {
        let out = stdout(&cli(&instance, &["calendars"], &env));
        out.contains("; last error: ").then_some(out)
    })
    .await;
    expect_shown(&out);
    app.terminate();
    app.exited().await;
}
