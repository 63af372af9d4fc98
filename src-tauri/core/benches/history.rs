//! What recording a change in the history costs a write, and the history's
//! size on disk (figures for BENCHMARKS.md).
//!
//! ```text
//! cargo bench -p almanac-core --bench history
//! ```
//!
//! A vault with one notes calendar and one note (frontmatter and a body of
//! about 600 bytes). Each write is `Calendar::update` of the note's end
//! time (read, rewritten atomically with fsync, re-read into the cache):
//! - before: the history cannot be opened (a file stands where its folder
//!   goes), so the engine writes unrecorded, as before the history existed;
//! - after: every write also appends its op line (the note's bytes before
//!   and after, base64) with an fsync, and a `done` line.
//!
//! Then 5,000 such changes are made and the journal's size on disk is read.
//! Set `HISTORY_WRITES` to change the number of timed writes (default 1000).

use std::path::Path;
use std::time::{Duration, Instant};

use almanac_core::calendar::{Calendar, EventFields};
use almanac_core::history::{ChangeFilter, MAX_CHANGES};
use almanac_core::paths::Paths;
use almanac_core::settings::{CalendarSource, KindSettings, Settings};

const NOTE: &str = "events/2026-01-05 Standup.md";
const ID: &str = "fullnote:events/2026-01-05 Standup.md";

fn settings(dir: &Path) -> Settings {
    Settings {
        vault_path: dir.join("vault"),
        display_timezone: "UTC".into(),
        calendar_sources: vec![CalendarSource {
            id: "local".into(),
            name: "Local".into(),
            color: "#3366cc".into(),
            kind: KindSettings::FullNote {
                directory: "events".into(),
            },
            order: None,
            components: None,
        }],
        ..Settings::default()
    }
}

/// A calendar on a fresh vault holding the note; with `recording` false,
/// its history cannot be opened.
fn calendar(dir: &Path, recording: bool) -> Calendar {
    let paths = Paths::new(dir.join("config"), dir.join("data"));
    let body = "Agenda and notes. ".repeat(32);
    let note = format!(
        "---\ntitle: Standup\nallDay: false\ndate: 2026-01-05\nstartTime: \"09:00\"\n\
         endTime: \"09:15\"\n---\n{body}\n"
    );
    let path = dir.join("vault").join(NOTE);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, note).unwrap();
    if !recording {
        let history = paths.history_file();
        std::fs::create_dir_all(history.parent().unwrap().parent().unwrap()).unwrap();
        std::fs::write(history.parent().unwrap(), b"not a folder").unwrap();
    }
    Calendar::open(&settings(dir), &paths)
}

fn edit(calendar: &Calendar, n: usize) {
    let end = format!("09:{:02}", 16 + n % 40);
    let fields: EventFields =
        serde_json::from_value(serde_json::json!({ "endTime": end })).unwrap();
    calendar.update(ID, fields).unwrap();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn timed(label: &str, recording: bool, writes: usize) {
    let dir = tempfile::tempdir().unwrap();
    let calendar = calendar(dir.path(), recording);
    // Warm up: the first writes create folders and the journal.
    for n in 0..20 {
        edit(&calendar, n);
    }
    let mut times: Vec<Duration> = (0..writes)
        .map(|n| {
            let start = Instant::now();
            edit(&calendar, n);
            start.elapsed()
        })
        .collect();
    times.sort();
    let recorded = calendar
        .history()
        .list(&ChangeFilter::default(), usize::MAX)
        .len();
    println!(
        "{label:<32} p50 {:>8.3} ms  p95 {:>8.3} ms  ({writes} writes, {recorded} recorded)",
        percentile(&times, 0.50).as_secs_f64() * 1000.0,
        percentile(&times, 0.95).as_secs_f64() * 1000.0,
    );
}

fn main() {
    let writes = std::env::var("HISTORY_WRITES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    // Alternated, so both see the same machine load.
    for round in 1..=2 {
        println!("round {round}");
        timed("before (no history)", false, writes);
        timed("after (recorded)", true, writes);
    }

    let dir = tempfile::tempdir().unwrap();
    let calendar = calendar(dir.path(), true);
    let start = Instant::now();
    for n in 0..MAX_CHANGES {
        edit(&calendar, n);
    }
    let elapsed = start.elapsed();
    let file = Paths::new(dir.path().join("config"), dir.path().join("data")).history_file();
    let size = std::fs::metadata(&file).unwrap().len();
    let note = std::fs::metadata(dir.path().join("vault").join(NOTE))
        .unwrap()
        .len();
    println!(
        "{MAX_CHANGES} changes of a {note}-byte note: journal {:.2} MB ({:.0} bytes a change), \
         made in {:.1} s",
        size as f64 / 1e6,
        size as f64 / MAX_CHANGES as f64,
        elapsed.as_secs_f64()
    );
}
