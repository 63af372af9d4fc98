//! Calendar engine benchmarks (figures for BENCHMARKS.md).
//!
//! ```text
//! cargo run -p almanac-core --release --example bench_calendar -- index DIR NOTES
//! cargo run -p almanac-core --release --example bench_calendar -- all DIR NOTES
//! cargo run -p almanac-core --release --example bench_calendar -- answers DIR NOTES
//! ```
//!
//! `index` generates the vault in DIR if it is empty, then measures, in a
//! fresh process, a baseline (listing and reading every note without
//! parsing) and `Calendar::open` (full parallel index), and reports peak RSS
//! (`VmHWM`). `all` also measures one-day and one-week range queries and the
//! latency from an external edit to the event being visible in a query
//! (through the file watcher). `answers` measures the JSON answers REST
//! sends for a day and a week, without and with each event's times in UTC
//! and the display zone (`EventTimes`), the two read in turn.

#[path = "support/vault_gen.rs"]
mod vault_gen;
#[path = "support/vault_settings.rs"]
mod vault_settings;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use almanac_core::api::EventTimes;
use almanac_core::calendar::{Calendar, EventMembers, EventQuery};

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Baseline: walk the folders and read every file, no parsing.
fn read_all(dir: &Path) -> (usize, u64) {
    let mut files = 0;
    let mut bytes = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                bytes += std::fs::read(&path).unwrap().len() as u64;
                files += 1;
            }
        }
    }
    (files, bytes)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    println!(
        "{name}: n={} mean={:.3?} p50={:.3?} p95={:.3?} p99={:.3?} max={:.3?}",
        samples.len(),
        mean,
        percentile(&samples, 0.50),
        percentile(&samples, 0.95),
        percentile(&samples, 0.99),
        samples[samples.len() - 1]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mode), Some(dir), Some(notes)) = (
        args.first(),
        args.get(1).map(PathBuf::from),
        args.get(2).and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: bench_calendar index|all|answers DIR NOTES");
        std::process::exit(2);
    };
    if !dir.join("events").exists() {
        let started = Instant::now();
        vault_gen::generate(&dir, notes).unwrap();
        println!(
            "generated {notes} notes in {:.1?}; run again for a clean process",
            started.elapsed()
        );
        return;
    }
    let rss_before = vm_hwm_kib();
    let started = Instant::now();
    let (files, bytes) = read_all(&dir);
    let baseline = started.elapsed();
    println!(
        "baseline read-only walk: {files} files, {} KiB in {baseline:.3?}",
        bytes / 1024
    );

    let data = tempfile::tempdir().unwrap();
    let paths = almanac_testkit::paths_in(data.path());
    let started = Instant::now();
    let calendar = Calendar::open(&vault_settings::settings(&dir), &paths);
    let index = started.elapsed();
    let stats = calendar.stats();
    println!(
        "index: {} notes, {} events, {} skipped in {index:.3?} (engine scan {} ms); VmHWM before {} MiB, after {} MiB",
        stats.notes_indexed,
        stats.events,
        stats.skipped,
        stats.last_scan_millis,
        rss_before / 1024,
        vm_hwm_kib() / 1024
    );
    // Range queries over 2023–2026, a different day / week each time.
    let day_ms = 86_400_000i64;
    let first = chrono::DateTime::parse_from_rfc3339("2023-01-02T00:00:00+01:00")
        .unwrap()
        .timestamp_millis();
    if mode == "answers" {
        answers(&calendar, first, day_ms);
        return;
    }
    if mode != "all" {
        return;
    }
    for (name, length, runs) in [
        ("query one day", day_ms, 2000),
        ("query one week", 7 * day_ms, 1000),
    ] {
        let mut samples = Vec::with_capacity(runs);
        let mut found = 0;
        for i in 0..runs as i64 {
            let start = first + (i * 13 % 1400) * day_ms;
            let query = EventQuery {
                start_millis: Some(start),
                end_millis: Some(start + length - 1),
                ..EventQuery::default()
            };
            let t = Instant::now();
            found += calendar.query(&query).len();
            samples.push(t.elapsed());
        }
        println!(
            "{name}: {:.1} events per query on average",
            found as f64 / runs as f64
        );
        summary(name, samples);
    }

    // The window's month: six weeks, at most 3 events a day (what the month
    // grid asks for), a different month each time; then the same six weeks
    // whole, what the per-day view built before it capped inside the read.
    let six_weeks = |i: i64| {
        let start = first + (i * 29 % 1400) * day_ms;
        EventQuery {
            start_millis: Some(start),
            end_millis: Some(start + 42 * day_ms - 1),
            ..EventQuery::default()
        }
    };
    let mut per_day = Vec::with_capacity(200);
    let mut whole = Vec::with_capacity(50);
    for i in 0..200i64 {
        let t = Instant::now();
        let answer = calendar.query_per_day(&six_weeks(i), 3).unwrap();
        per_day.push(t.elapsed());
        assert!(!answer.events.is_empty());
        if i < 50 {
            let t = Instant::now();
            assert!(!calendar.query(&six_weeks(i)).is_empty());
            whole.push(t.elapsed());
        }
    }
    summary("query six weeks per day (window)", per_day);
    summary("query six weeks, every event", whole);

    // A text search without a range (a year around now), matching nothing:
    // what the edit latency below asks after each edit.
    let mut samples = Vec::with_capacity(200);
    for i in 0..200 {
        let query = EventQuery {
            text: Some(format!("no-such-word-{i}")),
            ..EventQuery::default()
        };
        let t = Instant::now();
        assert!(calendar.query(&query).is_empty());
        samples.push(t.elapsed());
    }
    summary("query text, open range", samples);

    // External edit → visible in a query, through the watcher.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut changes = calendar.subscribe();
    let mut samples = Vec::new();
    for i in 0..200 {
        let note = i * 37 % (notes - notes / 12);
        let rel = format!("events/{:03}/note {note}.md", note % 100);
        let path = dir.join(&rel);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let marker = format!("edited-{i}-{}", std::process::id());
        let edited = match text.find("\ntitle: ") {
            Some(at) => {
                let end = at + 1 + text[at + 1..].find('\n').unwrap();
                format!("{}\ntitle: {marker}{}", &text[..at], &text[end..])
            }
            None => continue,
        };
        let query = EventQuery {
            text: Some(marker.clone()),
            ..EventQuery::default()
        };
        changes.borrow_and_update();
        let t = Instant::now();
        std::fs::write(&path, edited).unwrap();
        let visible = runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(10), async {
                while calendar.query(&query).is_empty() {
                    if changes.changed().await.is_err() {
                        return;
                    }
                }
            })
            .await
        });
        assert!(visible.is_ok(), "edit {rel} not visible within 10 s");
        samples.push(t.elapsed());
        std::fs::write(&path, text).unwrap();
        // Let the restore settle so it does not count toward the next edit.
        runtime.block_on(async {
            let _ = tokio::time::timeout(Duration::from_millis(300), async {
                while calendar.query(&query).len() == 1 {
                    if changes.changed().await.is_err() {
                        return;
                    }
                }
            })
            .await;
        });
    }
    summary("edit visible (watcher)", samples);
    println!("VmHWM at end: {} MiB", vm_hwm_kib() / 1024);
}

/// The JSON answers of one-day and one-week ranges, without and with the
/// times REST writes into each event, measured in turn on the same ranges.
fn answers(calendar: &Calendar, first: i64, day_ms: i64) {
    let with_times: EventMembers = &EventTimes::write_members;
    for (name, length, runs) in [("one day", day_ms, 2000), ("one week", 7 * day_ms, 500)] {
        let (mut bare, mut timed) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
        let (mut bare_bytes, mut timed_bytes) = (0, 0);
        for i in 0..runs as i64 {
            let start = first + (i * 13 % 1400) * day_ms;
            let query = EventQuery {
                start_millis: Some(start),
                end_millis: Some(start + length - 1),
                ..EventQuery::default()
            };
            let t = Instant::now();
            bare_bytes += calendar.query_json(&query).unwrap().events.len();
            bare.push(t.elapsed());
            let t = Instant::now();
            timed_bytes += calendar
                .query_json_with(&query, with_times)
                .unwrap()
                .events
                .len();
            timed.push(t.elapsed());
        }
        println!(
            "{name}: {} KiB per answer without times, {} KiB with",
            bare_bytes / runs / 1024,
            timed_bytes / runs / 1024
        );
        summary(&format!("JSON answer {name}, without times"), bare);
        summary(&format!("JSON answer {name}, with times"), timed);
    }
}
