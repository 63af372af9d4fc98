//! Deriving the vault reminder set (figures for BENCHMARKS.md).
//!
//! ```text
//! cargo bench -p almanac-core --bench vault_reminders
//! ```
//!
//! Generates the 10k-note vault of `examples/gen_vault.rs` in a temp dir,
//! indexes it, then measures, with default reminders on (every event in the
//! horizon reminds; the generated notes carry no `notify`) and "now" fixed at
//! 2025-03-01 (inside the generated dates, daily notes included):
//! - cold: deriving the whole set from the engine (`DerivedSet::derive`), the
//!   first time (series years not yet memoized) and repeated;
//! - one edit: a note rewritten and re-read by the engine, then
//!   `follow_edits` plus the snapshot that is published;
//! - memory: the heap the published set holds (estimated from its strings
//!   and records) and the process's RSS growth while deriving it.
//!
//! Set `VAULT_NOTES` to change the vault size.

#[path = "../examples/support/vault_gen.rs"]
mod vault_gen;
#[path = "../examples/support/vault_settings.rs"]
mod vault_settings;

use std::path::Path;
use std::time::{Duration, Instant};

use almanac_core::calendar::Calendar;
use almanac_core::settings::Settings;
use almanac_core::vault_reminders::rules::Rules;
use almanac_core::vault_reminders::{DerivedSet, VaultReminder, VaultReminders};
use chrono::{DateTime, Utc};

/// The generated vault's settings, with default reminders on.
fn settings(vault: &Path, horizon_days: u32) -> Settings {
    let mut settings = vault_settings::settings(vault);
    settings.reminders.default_reminders = true;
    settings.reminders.horizon_days = horizon_days;
    settings
}

fn vm_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// The heap the published set holds: each record behind its `Arc` (two
/// counters), its strings, and the sorted vector of pointers.
fn heap_bytes(set: &VaultReminders) -> usize {
    let record = |r: &VaultReminder| {
        std::mem::size_of::<VaultReminder>()
            + 16
            + [
                &r.id,
                &r.event_id,
                &r.calendar_id,
                &r.title,
                &r.path,
                &r.action_url,
            ]
            .iter()
            .map(|s| s.capacity())
            .sum::<usize>()
    };
    set.reminders.iter().map(|r| record(r)).sum::<usize>()
        + set.reminders.capacity() * std::mem::size_of::<usize>()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{name}: n={} p50={:.3?} p95={:.3?} max={:.3?}",
        samples.len(),
        percentile(&samples, 0.50),
        percentile(&samples, 0.95),
        samples[samples.len() - 1]
    );
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken.
    let notes: usize = std::env::var("VAULT_NOTES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    vault_gen::generate(&vault, notes).unwrap();
    let paths = almanac_testkit::paths_in(dir.path());
    let now: DateTime<Utc> = "2025-03-01T00:00:00Z".parse().unwrap();

    for horizon_days in [30, 366] {
        let settings = settings(&vault, horizon_days);
        let calendar = Calendar::open(&settings, &paths);
        let rules = Rules::from_settings(&settings);
        let stats = calendar.stats();
        println!(
            "\nvault: {} notes, {} events; horizon {horizon_days} days, default reminders on",
            stats.notes_indexed, stats.events
        );

        let rss_before = vm_rss_kib();
        let started = Instant::now();
        let mut set = DerivedSet::derive(&calendar, rules.clone(), now);
        let first = started.elapsed();
        let snapshot = set.snapshot();
        let rss_after = vm_rss_kib();
        println!(
            "cold derive, first (series years not memoized): {first:.3?}; {} reminders, truncated: {}",
            snapshot.reminders.len(),
            snapshot.truncated
        );
        println!(
            "memory: published set ~{} KiB on the heap; RSS +{} KiB while deriving",
            heap_bytes(&snapshot) / 1024,
            rss_after.saturating_sub(rss_before)
        );
        drop(snapshot);
        let cold: Vec<Duration> = (0..20)
            .map(|_| {
                let started = Instant::now();
                let derived = DerivedSet::derive(&calendar, rules.clone(), now);
                let snapshot = derived.snapshot();
                let took = started.elapsed();
                std::hint::black_box(snapshot);
                took
            })
            .collect();
        summary("cold derive + snapshot (memoized years)", cold);

        // One edit: a single event inside the horizon, its lead time
        // changing each round, re-read by the engine as the watcher would.
        let note = vault.join("events/000/note 0.md");
        let edits: Vec<Duration> = (0..200u32)
            .map(|round| {
                let text = format!(
                    "---\ntitle: Edited\nallDay: false\ndate: 2025-03-05\nstartTime: '09:00'\nnotify:\n  value: {}\n---\n",
                    5 + round % 50
                );
                std::fs::write(&note, text).unwrap();
                calendar.refresh_path(&note);
                let started = Instant::now();
                set.follow_edits(&calendar);
                let snapshot = set.snapshot();
                let took = started.elapsed();
                let edited = snapshot.reminders.iter().find(|r| r.title == "Edited");
                assert_eq!(
                    edited.map(|r| r.minutes_before),
                    Some(5 + round % 50),
                    "the edit is in the set"
                );
                took
            })
            .collect();
        summary("one edit: follow_edits + snapshot", edits);
    }
}
