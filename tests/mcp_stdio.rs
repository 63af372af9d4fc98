//! `almanac-server mcp`: the MCP server on stdio, driven by the official
//! Python MCP client (PyPI `mcp`, `scripts/mcp-venv.sh`) and the MCP
//! Inspector's command line (`scripts/mcp-inspector.sh`), with tokens in the
//! session's real keyring (run inside `scripts/session.sh`). Both ways it
//! runs: with no instance (it opens the vault itself, under the data-folder
//! lock) and with one running (it bridges stdio to that instance's `/mcp`,
//! so one process writes the vault; an elicitation during a call crosses the
//! bridge both ways).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use almanac_core::tokens::Scope;
use serde_json::{Value, json};
use support::instance::AppHarness;
use support::{eventually, port_open};

const SERVER: &str = env!("CARGO_BIN_EXE_almanac-server");
const STANDUP: &str = "2026-01-05 Standup.md";
const STANDUP_ID: &str = "fullnote:events/2026-01-05 Standup.md";

/// An instance with a timed event and a weekly one, the REST and MCP
/// servers switched on in its settings.
fn instance() -> AppHarness {
    let instance = AppHarness::with_settings(json!({
        "restServerEnabled": true,
        "displayTimezone": "Europe/Berlin",
        "mcpServer": { "enabled": true },
    }));
    instance.write_note(
        STANDUP,
        "title: Standup\nallDay: false\ndate: 2026-01-05\nstartTime: \"09:00\"\nendTime: \"09:15\"",
    );
    instance.write_note(
        "2026-01-01 Gym.md",
        "title: Gym\ntype: recurring\ndaysOfWeek: [M, R]\nstartRecur: 2026-01-01\n\
         endRecur: 2026-03-31\nallDay: false\nstartTime: \"07:00\"\nendTime: \"08:00\"",
    );
    instance
}

/// The Python client set to run `scenario` against `almanac-server mcp` in
/// `instance` with `token`.
fn python_command(instance: &AppHarness, token: &str, scenario: &[&str]) -> Command {
    let venv = almanac_testkit::venv("mcp-venv.sh");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("core/tests/mcp/client.py");
    let mut command = Command::new(venv.join("bin/python"));
    command
        .arg(script)
        .arg(scenario[0])
        .args(["stdio", SERVER])
        .args(&scenario[1..])
        .envs(instance.env())
        .env("ALMANAC_TOKEN", token)
        .env("ALMANAC_LOG", "info");
    command
}

/// Runs the Python client's `scenario` against `almanac-server mcp` in
/// `instance` with `token`; its facts, and what `almanac-server mcp` logged.
fn python_client(instance: &AppHarness, token: &str, scenario: &[&str]) -> (Value, String) {
    facts_of(
        scenario,
        python_command(instance, token, scenario).output().unwrap(),
    )
}

/// The facts client.py printed, once it passed.
fn facts_of(scenario: &[&str], output: std::process::Output) -> (Value, String) {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "client.py {scenario:?} failed:\n{stdout}\n{stderr}"
    );
    let facts = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("client.py printed no facts ({e}):\n{stdout}"));
    (facts, stderr)
}

fn events(instance: &AppHarness) -> PathBuf {
    instance.vault().join("events")
}

/// The session, the read-only token and the confirmed delete, what they
/// leave in the vault, and that each went the way `expected_path` says
/// (in-process or through the running instance).
fn drive(instance: &AppHarness, writer: &str, reader: &str, expected_path: &str) {
    let (facts, log) = python_client(instance, writer, &["session"]);
    assert!(log.contains(expected_path), "{log}");
    assert_eq!(facts["standupId"], STANDUP_ID);
    assert_eq!(facts["edited"]["title"], "MCP lunch moved");
    assert!(
        events(instance)
            .join("2026-01-07 MCP lunch moved.md")
            .exists()
    );
    assert!(events(instance).join(STANDUP).exists(), "refused, so kept");

    let (facts, _) = python_client(instance, reader, &["read-only"]);
    assert_eq!(facts["tools"].as_array().unwrap().len(), 6);

    let (facts, log) = python_client(instance, writer, &["elicit", STANDUP_ID]);
    assert!(log.contains(expected_path), "{log}");
    assert!(facts["asked"][0].as_str().unwrap().contains("Standup"));
    assert!(
        !events(instance).join(STANDUP).exists(),
        "confirmed, so gone"
    );
}

const IN_PROCESS: &str = "serving the vault in this process";
const BRIDGED: &str = "going through the running Almanac";

#[test]
fn with_no_instance_running_it_serves_the_vault_itself() {
    let instance = instance();
    let writer =
        instance.mint_token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead]);
    let reader = instance.mint_token(&[Scope::EventsRead]);
    drive(&instance, &writer, &reader, IN_PROCESS);
}

#[tokio::test]
async fn with_an_instance_running_it_goes_through_it() {
    let instance = instance();
    let writer =
        instance.mint_token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead]);
    let reader = instance.mint_token(&[Scope::EventsRead]);
    // Tokens are minted before the app starts (it reads them at start).
    let app = instance.spawn_program(Path::new(SERVER), &[], std::iter::empty::<(&str, &str)>());
    eventually("the REST port", || async {
        port_open(instance.rest_port).then_some(())
    })
    .await;
    drive(&instance, &writer, &reader, BRIDGED);
    drop(app);
}

/// The app started while `almanac mcp` serves the vault itself asks for the
/// data folder and waits: the session finishes its calls, its engine stops
/// and lets go, and the same session goes on through the app. Two engines
/// never hold the vault, and the assistant does not notice.
#[tokio::test]
async fn an_app_started_while_it_serves_takes_the_vault_over_and_the_session_goes_on() {
    let instance = instance();
    let writer =
        instance.mint_token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead]);
    let signals = instance.root().join("signals");
    std::fs::create_dir(&signals).unwrap();
    let scenario = ["handover", signals.to_str().unwrap()];
    let client = python_command(&instance, &writer, &scenario)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    eventually("the session served in-process", || async {
        signals.join("served").exists().then_some(())
    })
    .await;
    let lock = instance.data_home().join("almanac/almanac.lock");
    let holder = std::fs::read_to_string(&lock).unwrap();
    assert!(holder.contains("(almanac-server mcp)"), "{holder}");

    let app = instance.spawn_program(Path::new(SERVER), &[], std::iter::empty::<(&str, &str)>());
    eventually("the app's REST port", || async {
        port_open(instance.rest_port).then_some(())
    })
    .await;
    std::fs::write(signals.join("go"), "go").unwrap();
    let output = tokio::task::spawn_blocking(move || client.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let (facts, log) = facts_of(&scenario, output);

    assert!(!facts["before"].to_string().contains("After handover"));
    assert!(
        facts["after"].to_string().contains("After handover"),
        "{facts}"
    );
    assert!(log.contains(IN_PROCESS), "{log}");
    assert!(log.contains("handing the session over"), "{log}");
    assert!(log.contains(BRIDGED), "{log}");
    let app_log = instance.log();
    assert!(
        app_log.contains("the data folder was handed over"),
        "{app_log}"
    );
    let holder = std::fs::read_to_string(&lock).unwrap();
    assert!(
        holder.contains(&format!("pid {} (almanac-server)", app.pid())),
        "the app holds the data folder: {holder}"
    );
    assert!(
        events(&instance)
            .join("2026-01-08 After handover.md")
            .exists()
    );
}

#[test]
fn the_inspector_cli_lists_the_tools() {
    let instance = instance();
    let token = instance.mint_token(&[Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead]);
    let inspector =
        Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/mcp-inspector.sh"))
            .output()
            .unwrap();
    assert!(
        inspector.status.success(),
        "scripts/mcp-inspector.sh: {}",
        String::from_utf8_lossy(&inspector.stderr)
    );
    let launcher = String::from_utf8(inspector.stdout).unwrap();
    let output = Command::new(launcher.trim())
        .args(["--cli", SERVER, "mcp", "--method", "tools/list"])
        .envs(instance.env())
        .env("ALMANAC_TOKEN", &token)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "inspector: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 13, "{names:?}");
    assert!(names.contains(&"undo_change"));
    assert!(names.contains(&"delete_event"));
    let delete = &listed["tools"][names.iter().position(|n| *n == "delete_event").unwrap()];
    assert_eq!(delete["annotations"]["destructiveHint"], true);
}

/// `--token-file` reads the secret from a file only the user can read, with
/// the command line's checks: a file others can read is refused (exit 4)
/// before anything is served; a private one serves the session.
#[test]
fn a_token_file_must_be_the_users_alone() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::fs::PermissionsExt;
    use std::process::Stdio;

    let instance = instance();
    let token = instance.mint_token(&[Scope::EventsRead]);
    let file = instance.vault().join("../assistant-token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    let mcp = |mode: u32| {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        let mut command = Command::new(SERVER);
        command
            .args(["mcp", "--token-file"])
            .arg(&file)
            .envs(instance.env())
            .env_remove("ALMANAC_TOKEN")
            .env_remove("ALMANAC_TOKEN_FILE");
        command
    };

    let refused = mcp(0o644).output().unwrap();
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(why.contains("chmod 600"), "{why}");
    assert!(!why.contains(&token), "the secret is never printed: {why}");
    assert!(refused.stdout.is_empty());

    let mut served = mcp(0o600)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "token-file-test", "version": "1"}}});
    let mut stdin = served.stdin.take().unwrap();
    writeln!(stdin, "{initialize}").unwrap();
    let mut answer = String::new();
    BufReader::new(served.stdout.take().unwrap())
        .read_line(&mut answer)
        .unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
    drop(stdin);
    assert!(served.wait().unwrap().success());
}
