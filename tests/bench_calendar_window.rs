//! A benchmark, not a test (`#[ignore]`d): how long the calendar window takes
//! to show a month after the user steps to it, on the 10 000-note generated
//! vault (the engine benchmarks' generator). Measured in the page with
//! `performance.now()`, from clicking the toolbar's previous-month button
//! (FullCalendar's `prev()`) to the new month's events being in the DOM, and
//! to the frame after that being painted. Then the search box: from the
//! text typed (one letter at a time, as a person types) to its results
//! drawn, the box's pause before it asks included. Prints one JSON line per
//! month and per search, and the averages; BENCHMARKS.md has the figures
//! and the command.

use crate::support;

#[path = "../src-tauri/core/examples/support/vault_gen.rs"]
#[allow(dead_code)] // the generator's other helpers serve the engine's examples
mod vault_gen;

use serde_json::{Value, json};
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

/// Notes in the generated vault.
const NOTES: usize = 10_000;
/// Months stepped through and measured (after one unmeasured warm-up step).
const MONTHS: usize = 8;

/// Steps the month view back one month and measures it; resolves with
/// `{ month, dom, painted, events }` (milliseconds, and events drawn).
const STEP_BACK: &str = r#"
const done = arguments[arguments.length - 1];
const first = document.querySelector('.fc-daygrid-day:not(.fc-day-other)').dataset.date;
const [y, m] = first.split('-').map(Number);
const target = new Date(Date.UTC(y, m - 2, 15)).toISOString().slice(0, 10);
// Mid-month: never a day of the month shown before, so events there are the
// new fetch's, not the previous month's still on screen.
const ready = () => document.querySelector(`.fc-daygrid-day[data-date="${target}"] .fc-event`);
const root = document.getElementById('calendar');
let start;
const finish = () => {
  const dom = performance.now() - start;
  requestAnimationFrame(() => requestAnimationFrame(() => done({
    month: target.slice(0, 7), dom, painted: performance.now() - start,
    events: document.querySelectorAll('.fc-event').length,
  })));
};
const observer = new MutationObserver(() => {
  if (ready()) { observer.disconnect(); finish(); }
});
observer.observe(root, { childList: true, subtree: true });
start = performance.now();
document.querySelector('.fc-prev-button').click();
if (ready()) { observer.disconnect(); finish(); }
"#;

/// Times the month grid's fetch of `MONTH` (`YYYY-MM`) alone: the month's
/// weeks from the Sunday on or before its first day (in UTC, near enough),
/// as many events a day as the month view asks for.
const FETCH_ONLY: &str = r#"
const done = arguments[arguments.length - 1];
const first = new Date('MONTH-01T00:00:00Z');
const start = first.valueOf() - first.getUTCDay() * 86400000;
const next = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 1)).valueOf();
const days = Math.ceil((next - start) / 86400000 / 7) * 7;
const t0 = performance.now();
window.__TAURI__.core.invoke('calendar_events_per_day', { start, end: start + days * 86400000 - 1, perDay: 3 })
  .then(() => done(performance.now() - t0), (e) => done(String(e)));
"#;

/// What the search box is given, one keystroke at a time.
const TYPED: &str = "budget 12";

/// Puts `TEXT` in the search box as a keystroke does and resolves with the
/// milliseconds until its results are drawn (`data-searched`), and how many.
const SEARCH: &str = r#"
const done = arguments[arguments.length - 1];
const text = 'TEXT';
const box = document.getElementById('search');
const start = performance.now();
const observer = new MutationObserver(() => {
  if (document.body.dataset.searched !== text) return;
  observer.disconnect();
  done({ text, ms: performance.now() - start,
    results: document.querySelectorAll('#search-results li').length });
});
observer.observe(document.body, { attributes: true, attributeFilter: ['data-searched'] });
box.value = text;
box.dispatchEvent(new Event('input'));
"#;

#[tokio::test]
#[ignore = "benchmark: run explicitly (see BENCHMARKS.md)"]
async fn month_navigation_on_the_10k_vault() {
    let instance = AppHarness::with_settings(json!({
        "displayTimezone": "Europe/Berlin",
        "initialView": "dayGridMonth",
        "calendarSources": [
            { "type": "local", "id": "events", "name": "Events", "directory": "events", "color": "#3b6fd4" },
            { "type": "dailynote", "id": "journal", "name": "Journal", "directory": "journal",
              "heading": "Events", "color": "#c2410c" },
        ],
    }));
    vault_gen::generate(&instance.vault(), NOTES).unwrap();
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    // The first scan of 10 000 notes outlasts the tests' usual patience.
    let started = std::time::Instant::now();
    loop {
        let shown = session
            .execute(
                "return [document.querySelectorAll('.fc-event').length, document.getElementById('status').textContent];",
                json!([]),
            )
            .await;
        if shown[0].as_u64() > Some(0) {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 600,
            "no events after 10 minutes: {shown}"
        );
        eprintln!("waiting for the first month: {shown}");
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    println!("first month shown after {:.1?}", started.elapsed());

    session.execute_async(STEP_BACK).await;
    let mut steps: Vec<Value> = Vec::new();
    for _ in 0..MONTHS {
        let step = session.execute_async(STEP_BACK).await;
        println!("{step}");
        steps.push(step);
    }
    // Where the time goes: the same months' fetch alone (the shell's
    // command: the engine's query and the IPC round trip).
    for step in &mut steps {
        let month = step["month"].as_str().unwrap().to_string();
        let fetch = session
            .execute_async(&FETCH_ONLY.replace("MONTH", &month))
            .await;
        step["fetch"] = fetch;
    }
    let mean = |key: &str| {
        steps.iter().map(|s| s[key].as_f64().unwrap()).sum::<f64>() / steps.len() as f64
    };
    let max = |key: &str| {
        steps
            .iter()
            .map(|s| s[key].as_f64().unwrap())
            .fold(0.0, f64::max)
    };
    println!(
        "month navigation over {} months: dom mean {:.0} ms, max {:.0} ms; painted mean {:.0} ms, max {:.0} ms; fetch mean {:.0} ms; load average {}",
        steps.len(),
        mean("dom"),
        max("dom"),
        mean("painted"),
        max("painted"),
        mean("fetch"),
        load_average(),
    );
    let mut searches = Vec::new();
    for end in 1..=TYPED.len() {
        let search = session
            .execute_async(&SEARCH.replace("TEXT", &TYPED[..end]))
            .await;
        println!("{search}");
        searches.push(search["ms"].as_f64().unwrap());
    }
    let search_mean = searches.iter().sum::<f64>() / searches.len() as f64;
    let search_max = searches.iter().copied().fold(0.0, f64::max);
    println!(
        "search, typing {TYPED:?}: keystroke to results mean {search_mean:.0} ms, max {search_max:.0} ms"
    );
    println!(
        "{}",
        json!({
            "search_mean_ms": search_mean, "search_max_ms": search_max,
            "months": steps.len(),
            "dom_mean_ms": mean("dom"), "dom_max_ms": max("dom"),
            "painted_mean_ms": mean("painted"), "painted_max_ms": max("painted"),
            "fetch_mean_ms": mean("fetch"),
            "events_mean": mean("events"),
        })
    );
    session.end().await;
}

/// The machine's load average (1, 5, 15 minutes): the figures above depend on
/// what else runs, so each run says how busy the machine was.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|line| {
            line.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_string())
}
