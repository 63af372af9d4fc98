//! Conformance measured by a checker nobody here wrote: `caldav-server-tester`
//! (the python-caldav project's server checker) runs against Almanac's
//! server and against Radicale, the reference server, on this machine, and
//! the test fails when Almanac supports any feature worse than Radicale does,
//! unless the difference is listed with its reason: deliberate
//! ([`DELIBERATE`]), or work not done yet ([`NOT_YET`]).
//!
//! `ALMANAC_WRITE_CONFORMANCE=1` also writes the comparison into
//! docs/caldav.md (between the `conformance` markers); see
//! `scripts/caldav-conformance.sh`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use almanac_core::tokens::Scope;
use almanac_testkit::radicale::{self, Radicale};
use serde_json::Value;

use crate::caldav::support::CaldavHarness;

/// Where Almanac differs on purpose, and why (shown in docs/caldav.md).
const DELIBERATE: &[(&str, &str)] = &[
    (
        "delete-calendar",
        "deliberate: a calendar is removed in Almanac's settings, which keeps its notes; a client's `DELETE` is refused with that reason (`403`)",
    ),
    (
        "delete-calendar.free-namespace",
        "deliberate: follows from `delete-calendar`",
    ),
    (
        "synchronous-write.delete-calendar",
        "deliberate: follows from `delete-calendar`",
    ),
    (
        "url.encode-at.literal.collection",
        "deliberate: follows from `delete-calendar` (the checker probes only calendars it can delete again)",
    ),
    (
        "url.encode-at.identity",
        "deliberate: both spellings name one resource, as for Radicale, but a `PUT` giving a resource another event's `UID` is refused (`409 no-uid-conflict`), so the checker cannot tell",
    ),
    (
        "save-load.journal",
        "deliberate: a journal entry belongs in the vault's daily notes; `VJOURNAL` is refused with `supported-calendar-component`",
    ),
    (
        "save-load.event.recurrences.exception.cancelled",
        "deliberate: a cancelled occurrence becomes a skipped date of the note's series, served as an `EXDATE` rather than a cancelled override",
    ),
    (
        "search.time-range.todo.no-dtstart.no-due",
        "deliberate: a task saved without any date is placed on the day it arrives (a note needs a day), so it has one",
    ),
    (
        "search.is-not-defined.dtend",
        "deliberate: an event sent with `DURATION` is kept as its end, and served with `DTEND`",
    ),
    (
        "search.is-not-defined",
        "deliberate: follows from `search.is-not-defined.dtend`; `CATEGORIES` and `CLASS` work",
    ),
];

/// Where Almanac is behind and the work is not done yet, and why; listed so
/// the table says so, and so that anything else falling behind fails.
const NOT_YET: &[(&str, &str)] = &[];

/// How well a grade supports a feature, to compare two servers: "value"
/// entries (what the server answered, not a grade) are not compared.
fn rank(grade: &str) -> Option<u8> {
    Some(match grade {
        "full" => 4,
        "quirk" => 3,
        "fragile" => 2,
        "unsupported" | "ungraceful" | "broken" => 1,
        "unknown" => 0,
        _ => return None,
    })
}

/// The checker's grade of one feature (an empty entry is "as expected":
/// full support).
fn grade(entry: Option<&Value>) -> String {
    match entry {
        None => "full".into(),
        Some(entry) => match (entry.get("support"), entry.get("value")) {
            (Some(Value::String(support)), _) => support.clone(),
            (_, Some(value)) => format!("value {value}"),
            _ => "full".into(),
        },
    }
}

/// Runs the checker against `url`; its features and their entries.
fn check(
    venv: &Path,
    url: &str,
    user: &str,
    password: &str,
    extra: &[&str],
) -> BTreeMap<String, Value> {
    let output = Command::new(venv.join("bin/caldav-server-tester"))
        .args(["--caldav-url", url, "--caldav-username", user])
        .args(["--caldav-password", password, "--format", "json"])
        .args(extra)
        .output()
        .expect("caldav-server-tester runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "caldav-server-tester did not finish against {url}:\n{}",
        stderr.lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("the checker's JSON: {e}\n{stderr}"));
    serde_json::from_value(report["features"].clone()).expect("a features object")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_checker_finishes_and_finds_nothing_worse_than_radicale() {
    let venv: PathBuf =
        tokio::task::spawn_blocking(|| almanac_testkit::venv("caldav-checker-venv.sh"))
            .await
            .unwrap();
    let reference = tokio::task::spawn_blocking(Radicale::start).await.unwrap();
    let app = CaldavHarness::start().await;
    let token = app
        .token(&[Scope::EventsRead, Scope::EventsWrite, Scope::SettingsWrite])
        .await;

    let theirs = {
        let (venv, url) = (venv.clone(), reference.url("/"));
        tokio::task::spawn_blocking(move || {
            check(&venv, &url, radicale::USER, radicale::PASSWORD, &[])
        })
    };
    let ours = {
        let (venv, url) = (venv.clone(), format!("{}/", app.base));
        tokio::task::spawn_blocking(move || {
            check(&venv, &url, "me", &token, &["--caldav-calendar", "Events"])
        })
    };
    let (theirs, ours) = (theirs.await.unwrap(), ours.await.unwrap());

    let mut table =
        String::from("| feature | Radicale 3.9.0 | Almanac | why |\n|---|---|---|---|\n");
    let mut worse = Vec::new();
    let names: std::collections::BTreeSet<&String> = theirs.keys().chain(ours.keys()).collect();
    for name in names {
        let (r, a) = (grade(theirs.get(name)), grade(ours.get(name)));
        if r == a {
            continue;
        }
        let why = DELIBERATE
            .iter()
            .chain(NOT_YET)
            .find(|(feature, _)| feature == name)
            .map(|(_, why)| *why);
        if let (Some(r_rank), Some(a_rank)) = (rank(&r), rank(&a))
            && a_rank < r_rank
            && why.is_none()
        {
            let said = ours.get(name).map(Value::to_string).unwrap_or_default();
            worse.push(format!("{name}: Radicale {r}, Almanac {a} {said}"));
        }
        table.push_str(&format!(
            "| `{name}` | {r} | {a} | {} |\n",
            why.unwrap_or("")
        ));
    }
    println!("{table}");
    if std::env::var_os("ALMANAC_WRITE_CONFORMANCE").is_some() {
        write_into_docs(&table);
    }
    assert!(
        worse.is_empty(),
        "Almanac supports these worse than Radicale (fix them, or list them in DELIBERATE or NOT_YET with the reason):\n{}",
        worse.join("\n")
    );
}

/// Replaces the table between docs/caldav.md's conformance markers.
fn write_into_docs(table: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/caldav.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- conformance:begin -->\n", "<!-- conformance:end -->");
    let start = doc.find(begin).expect("the begin marker") + begin.len();
    let stop = doc.find(end).expect("the end marker");
    let written = format!("{}{table}{}", &doc[..start], &doc[stop..]);
    std::fs::write(&path, written).unwrap();
}
