//! Shared helpers of the calendar tests: temp vaults, queries, and awaiting
//! changes (the wait itself lives in `almanac_testkit`).
#![allow(dead_code, unused_imports)] // not every helper is used by a test today

use std::path::{Path, PathBuf};
use std::process::Command;

use almanac_core::calendar::{Calendar, Event, EventQuery};
use almanac_core::paths::Paths;
use almanac_core::settings::{CalendarSource, KindSettings, Settings};
pub use almanac_testkit::wait_until;

pub struct TestVault {
    pub dir: tempfile::TempDir,
    pub settings: Settings,
}

impl TestVault {
    /// A vault with one Full Note source `local` in `events/`, display zone
    /// UTC.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings_in(dir.path());
        Self { dir, settings }
    }

    pub fn with_source(mut self, id: &str, kind: KindSettings) -> Self {
        self.settings.calendar_sources.push(source(id, kind));
        self
    }

    pub fn with_timezone(mut self, tz: &str) -> Self {
        self.settings.display_timezone = tz.into();
        self
    }

    pub fn paths(&self) -> Paths {
        almanac_testkit::paths_in(self.dir.path())
    }

    pub fn vault(&self) -> PathBuf {
        self.settings.vault_path.clone()
    }

    /// Writes a file in the vault (creating folders), as an external editor.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.vault().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.vault().join(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.vault().join(rel).exists()
    }

    pub fn open(&self) -> Calendar {
        Calendar::open(&self.settings, &self.paths())
    }
}

/// [`TestVault::new`]'s settings for a vault in `dir/vault`.
pub fn settings_in(dir: &Path) -> Settings {
    Settings {
        vault_path: dir.join("vault"),
        display_timezone: "UTC".into(),
        calendar_sources: vec![source(
            "local",
            KindSettings::FullNote {
                directory: "events".into(),
            },
        )],
        ..Settings::default()
    }
}

pub fn source(id: &str, kind: KindSettings) -> CalendarSource {
    CalendarSource {
        id: id.into(),
        name: format!("{id} calendar"),
        color: "#123456".into(),
        kind,
        order: None,
        components: None,
    }
}

/// Every cached event in a wide window (2000–2100).
pub fn all(calendar: &Calendar) -> Vec<Event> {
    calendar.query(&range_ms(946_684_800_000, 4_102_444_800_000))
}

pub fn range_ms(start: i64, end: i64) -> EventQuery {
    EventQuery {
        start_millis: Some(start),
        end_millis: Some(end),
        ..EventQuery::default()
    }
}

/// A query over an RFC 3339 range.
pub fn range(start: &str, end: &str) -> EventQuery {
    range_ms(ms(start), ms(end))
}

pub fn ms(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .timestamp_millis()
}

pub fn titles(events: &[Event]) -> Vec<String> {
    events.iter().map(|e| e.title.clone()).collect()
}

pub fn fields(json: serde_json::Value) -> almanac_core::calendar::EventFields {
    serde_json::from_value(json).unwrap()
}

pub fn note_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

// ---- The independent iCalendar oracle (tests/ics_corpus/oracle.py) ----

pub fn ics_corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ics_corpus")
}

/// The oracle's Python, from its cached venv (made on first use, once, by
/// scripts/ics-oracle-venv.sh with the pins of `ics_corpus/requirements.txt`).
pub fn ics_oracle_python() -> PathBuf {
    almanac_testkit::venv("ics-oracle-venv.sh").join("bin/python")
}

/// The oracle's answer for each of `ranges` of feed `feed` (display zone
/// `display_tz`), in canonical records: `{title, start, end}`, all-day
/// events as dates (end exclusive), timed ones as UTC instants.
pub fn ics_oracle(
    python: &Path,
    feed: &Path,
    display_tz: &str,
    ranges: &[(i64, i64)],
) -> Vec<Vec<serde_json::Value>> {
    let output = Command::new(python)
        .arg(ics_corpus_dir().join("oracle.py"))
        .arg(feed)
        .arg(display_tz)
        .args(ranges.iter().map(|(s, e)| format!("{s}:{e}")))
        .output()
        .expect("the oracle runs");
    assert!(
        output.status.success(),
        "the oracle failed on {}:\n{}",
        feed.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Vec<serde_json::Value>> = serde_json::from_slice(&output.stdout).unwrap();
    answers
}

/// Every file under `dir` (vault-relative path → bytes).
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut files = std::collections::BTreeMap::new();
    walk(dir, dir, &mut files);
    files
}
