//! The history survives `kill -9` at any point of a write: a child process
//! writes notes through the engine without pause (creates, renames — a new
//! note and the old one removed —, deletes) and is killed with SIGKILL
//! after a random number of writes, again and again on the same vault and
//! history. Then the history must account for the vault exactly: every
//! change it holds was done, and every write done is in it. Shown by
//! undoing every change, newest first: each undo finds its notes as the
//! change left them (or it would refuse), and at the end the vault is as
//! it began, empty.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use almanac_core::calendar::Calendar;
use almanac_core::history::{Author, ChangeFilter, acting_as};
use rand::Rng;
use serde_json::json;

use crate::common::{fields, settings_in};

/// Where the child writes (set only for the child).
const CHILD_DIR: &str = "ALMANAC_HISTORY_CRASH_DIR";
const CHILD_ROUND: &str = "ALMANAC_HISTORY_CRASH_ROUND";
const ROUNDS: usize = 25;

fn open(dir: &Path) -> Calendar {
    Calendar::open(&settings_in(dir), &almanac_testkit::paths_in(dir))
}

/// The writer the crash test starts and kills: it never ends on its own.
#[test]
#[ignore = "the child process of history_survives_kill_9_at_any_point_of_a_write"]
fn writer_child() {
    let dir = std::env::var_os(CHILD_DIR).expect("started by the crash test");
    let round = std::env::var(CHILD_ROUND).unwrap();
    let calendar = open(Path::new(&dir));
    let _cli = acting_as(Author::Cli);
    for n in 0.. {
        let title = format!("Round {round} note {n}");
        let event = json!({"title": title, "date": "2026-05-01", "allDay": true});
        let created = calendar.create("local", fields(event)).unwrap();
        println!("wrote");
        let renamed = json!({"title": format!("{title} renamed"), "date": "2026-05-02"});
        let renamed = calendar.update(&created.id, fields(renamed)).unwrap();
        println!("wrote");
        if n % 2 == 0 {
            calendar.delete(&renamed.id, None).unwrap();
            println!("wrote");
        }
    }
}

/// The notes in the vault (temp files of a killed atomic write, dot-named,
/// are no notes).
fn notes(vault: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(vault.join("events")) else {
        return Vec::new();
    };
    entries
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect()
}

#[test]
fn history_survives_kill_9_at_any_point_of_a_write() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rng();
    let mut writes = 0;
    for round in 0..ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "history_crash::writer_child",
                "--exact",
                "--include-ignored",
                "--nocapture",
            ])
            .env(CHILD_DIR, dir.path())
            .env(CHILD_ROUND, round.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let wanted = rng.random_range(1..=12);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = 0;
        while seen < wanted {
            let line = lines.next().expect("the writer writes").unwrap();
            if line == "wrote" {
                seen += 1;
            }
        }
        // SIGKILL, at whatever point of its next write the child is.
        child.kill().unwrap();
        child.wait().unwrap();
        writes += seen;
    }

    let calendar = open(dir.path());
    let changes = calendar
        .history()
        .list(&ChangeFilter::default(), usize::MAX);
    assert!(
        changes.len() >= writes,
        "{} changes for {writes} acknowledged writes",
        changes.len()
    );
    let _cli = acting_as(Author::Cli);
    for change in &changes {
        calendar
            .undo(change.id)
            .unwrap_or_else(|e| panic!("undoing {change:?}: {e}"));
    }
    assert_eq!(notes(&calendar.vault_root()), Vec::<String>::new());
}
