//! `almanac token create|list|revoke`: personal access tokens from a terminal,
//! for machines without the Settings window (a headless server).
//!
//! It works on the instance's files while the instance is stopped: a running
//! one keeps its tokens in memory and would neither see a change made here
//! nor keep it (its next write of `tokens.json` is made from memory). So a
//! running instance — found by its reminder daemon answering `/doctor`, or,
//! when it does not answer, by the lock it holds on its data folder — is a
//! refusal, not a race.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use almanac_core::clock::SystemClock;
use almanac_core::data_lock::{DataLock, DataLockError};
use almanac_core::paths::Paths;
use almanac_core::settings::SettingsStore;
use almanac_core::tokens::{
    Expiry, NewToken, SecretBackend, SecretsInUse, TokenInfo, TokenStatus, TokenStore,
};
use uuid::Uuid;

use crate::cli::parse_scopes;

pub const USAGE: &str = "\
Usage: almanac token create NAME --scopes SCOPE,... [--expires-in-days 30|90|365]
       almanac token list
       almanac token revoke ID

  create   makes a token and prints its secret once; only to a terminal
           (the secret is never written to a file or a pipe)
  list     every token: id, name, scopes, status, dates (never a secret)
  revoke   refuses the token from now on and deletes its secret

Run these while Almanac is stopped. Without an OS keyring (no Secret Service,
e.g. on a server) only each token's SHA-256 is kept, in
$XDG_DATA_HOME/almanac/token-hashes.json (mode 0600); see docs/tokens.md.";

#[derive(Debug)]
enum Command {
    Create(NewToken),
    List,
    Revoke(Uuid),
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Command, String> {
    let command = args
        .next()
        .ok_or("a command is needed: create, list or revoke")?;
    let rest: Vec<String> = args.collect();
    match (command.as_str(), rest.as_slice()) {
        ("list", []) => Ok(Command::List),
        ("revoke", [id]) => id
            .parse()
            .map(Command::Revoke)
            .map_err(|_| format!("revoke: `{id}` is not a token id (see `almanac token list`)")),
        ("create", [name, options @ ..]) => parse_create(name, options),
        ("create", []) => Err("create needs a NAME".into()),
        ("list" | "revoke", _) => Err(format!("wrong arguments for `{command}`")),
        (other, _) => Err(format!("unknown token command `{other}`")),
    }
}

fn parse_create(name: &str, options: &[String]) -> Result<Command, String> {
    let (mut scopes, mut expiry) = (None, Expiry::Never);
    let mut options = options.iter();
    while let Some(option) = options.next() {
        let mut value = || options.next().ok_or(format!("{option} needs a value"));
        match option.as_str() {
            "--scopes" => scopes = Some(parse_scopes(value()?)?),
            "--expires-in-days" => {
                let days = value()?;
                expiry = days
                    .parse()
                    .ok()
                    .and_then(|days| Expiry::from_days(Some(days)))
                    .ok_or(format!(
                        "--expires-in-days: `{days}` is not one of 30, 90, 365"
                    ))?;
            }
            other => return Err(format!("create: unknown option `{other}`")),
        }
    }
    let scopes = scopes.ok_or("create needs --scopes")?;
    NewToken {
        name: name.to_string(),
        scopes,
        expiry,
    }
    .validated()
    .map(Command::Create)
    .map_err(|e| e.to_string())
}

/// Runs `almanac token ARGS`; usage errors exit 2, refusals 1.
pub fn main(args: impl Iterator<Item = String>) -> ExitCode {
    let mut args = args.peekable();
    if args
        .peek()
        .is_some_and(|arg| arg == "-h" || arg == "--help")
    {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let command = match parse(args) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("almanac token: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if matches!(command, Command::Create(_)) && !std::io::stdout().is_terminal() {
        // Checked before anything is made: a secret must not land in a file,
        // a pipe or a CI log, and one that was never shown is useless.
        eprintln!(
            "almanac token: create prints the secret once, to a terminal only, and the \
             standard output is not one; run it in a terminal"
        );
        return ExitCode::from(2);
    }
    match run(command, &Paths::platform()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("almanac token: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command, paths: &Paths) -> Result<(), String> {
    if let Some(pid) = running_instance(paths) {
        return Err(format!(
            "Almanac is running (pid {pid}): stop it first, then run this again; \
             a running instance would not see the change and would overwrite it"
        ));
    }
    // An instance that did not answer (starting, busy, or its daemon off)
    // still holds the data folder's lock: edit nothing under it. Held until
    // the command is done, so an instance starting meanwhile cannot read
    // the files half-way.
    let _lock = DataLock::acquire(paths).map_err(|e| match e {
        DataLockError::Held(path) => format!(
            "Almanac is running on this data folder ({} is locked) but did not answer: \
             stop it first, then run this again; nothing was changed",
            path.display()
        ),
        other => other.to_string(),
    })?;
    let (secrets, fallback) = match command {
        Command::Create(_) => SecretsInUse::for_minting(paths),
        _ => (SecretsInUse::at_start(paths), None),
    };
    if let Some(reason) = fallback {
        eprintln!(
            "almanac token: {reason}; keeping only the token's SHA-256 in {} (mode 0600), \
             never its secret",
            paths.token_hashes_file().display()
        );
    }
    let backend = secrets.backend.clone();
    let store = TokenStore::open(paths.tokens_file(), secrets.store, Arc::new(SystemClock))
        .map_err(|e| e.to_string())?;
    match command {
        Command::Create(new) => {
            let created = store.create(new).map_err(|e| e.to_string())?;
            println!("{}", describe(&created.info));
            println!("stored: {}", stored_in(&backend));
            println!(
                "\nSecret (shown once, it cannot be shown again):\n{}",
                created.secret.expose()
            );
        }
        Command::List => {
            let tokens = store.list();
            if tokens.is_empty() {
                println!("no tokens");
            }
            for info in tokens {
                println!("{}", describe(&info));
            }
        }
        Command::Revoke(id) => {
            let info = store.revoke(id).map_err(|e| e.to_string())?;
            println!("{}", describe(&info));
        }
    }
    Ok(())
}

fn describe(info: &TokenInfo) -> String {
    let record = &info.record;
    let scopes: Vec<_> = record.scopes.iter().map(|s| s.as_str()).collect();
    let date = |at: Option<chrono::DateTime<chrono::Utc>>| {
        at.map_or("-".to_string(), |at| {
            at.format("%Y-%m-%d %H:%M").to_string()
        })
    };
    format!(
        "{}  {}  [{}]  {}  created {}  expires {}  last used {}",
        record.id,
        // A name an access request chose: nothing hidden reaches the terminal.
        almanac_core::api::shown_text::visible(&record.name),
        scopes.join(","),
        status_name(info.status),
        date(Some(record.created_at)),
        date(record.expires_at),
        date(record.last_used_at),
    )
}

fn status_name(status: TokenStatus) -> &'static str {
    match status {
        TokenStatus::Active => "active",
        TokenStatus::Expired => "expired",
        TokenStatus::Revoked => "revoked",
        TokenStatus::SecretMissing => "secret missing",
    }
}

fn stored_in(backend: &SecretBackend) -> String {
    match backend {
        SecretBackend::OsKeyring => "the secret in the OS keyring".into(),
        SecretBackend::HashFile { path } => format!("only its SHA-256, in {}", path.display()),
    }
}

/// The pid of an Almanac running on `paths`, found by asking the reminder
/// daemon on its configured port who it is.
fn running_instance(paths: &Paths) -> Option<u64> {
    let port = SettingsStore::open(&paths.settings_file())
        .ok()?
        .get()
        .reminders
        .daemon_port;
    let doctor: serde_json::Value = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .ok()?
        .get(format!("http://127.0.0.1:{port}/doctor"))
        .send()
        .ok()?
        .json()
        .ok()?;
    doctor["instance"]["pid"].as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn commands_and_their_arguments() {
        assert!(matches!(parsed(&["list"]), Ok(Command::List)));
        let id = Uuid::new_v4();
        assert!(
            matches!(parsed(&["revoke", &id.to_string()]), Ok(Command::Revoke(got)) if got == id)
        );
        let Ok(Command::Create(new)) = parsed(&[
            "create",
            " cron ",
            "--scopes",
            "events:read",
            "--expires-in-days",
            "30",
        ]) else {
            panic!("create did not parse");
        };
        assert_eq!((new.name.as_str(), new.expiry), ("cron", Expiry::Days30));
    }

    /// A running app that does not answer in time (here: its daemon's port
    /// accepts and never replies) but holds the data folder's lock: the
    /// command edits nothing and says why.
    #[test]
    fn an_instance_that_does_not_answer_but_holds_the_lock_is_a_refusal() {
        use almanac_core::settings::Settings;
        use almanac_core::settings::class::Actor;

        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(dir.path().join("config"), dir.path().join("data"));
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut settings = Settings::default();
        settings.reminders.daemon_port = silent.local_addr().unwrap().port();
        SettingsStore::open(&paths.settings_file())
            .unwrap()
            .replace(Actor::User, settings)
            .unwrap();
        let files = || std::fs::read_dir(paths.data_dir()).unwrap().count();

        let held = DataLock::acquire(&paths).unwrap();
        let before = files();
        for command in [Command::List, Command::Revoke(Uuid::new_v4())] {
            let refused = run(command, &paths).unwrap_err();
            assert!(refused.contains("is locked"), "{refused}");
            assert!(refused.contains("nothing was changed"), "{refused}");
        }
        assert_eq!(files(), before, "no file was made or changed");

        drop(held);
        run(Command::List, &paths).expect("without the app, the command runs");
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        let error = |args: &[&str]| parsed(args).unwrap_err();
        assert!(error(&[]).contains("create, list or revoke"));
        assert!(error(&["mint"]).contains("unknown token command"));
        assert!(error(&["revoke", "nope"]).contains("not a token id"));
        assert!(error(&["list", "extra"]).contains("wrong arguments"));
        assert!(error(&["create", "x"]).contains("--scopes"));
        assert!(error(&["create", "x", "--scopes", "events:delete"]).contains("unknown scope"));
        assert!(error(&["create", " ", "--scopes", "events:read"]).contains("must not be empty"));
        assert!(
            error(&[
                "create",
                "x",
                "--scopes",
                "events:read",
                "--expires-in-days",
                "0"
            ])
            .contains("30, 90, 365")
        );
    }
}
