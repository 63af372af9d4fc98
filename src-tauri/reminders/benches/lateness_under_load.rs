//! Reminder lateness while the calendar REST server is saturated, in one
//! process as the app runs them: the core (calendar, tokens, REST server)
//! and the reminder daemon on one tokio runtime (as `almanac --headless`
//! starts them), over a vault of 150 open-ended daily series.
//!
//! 1. The bounded answer: a 1000-year (and the 1500-year) range over the
//!    vault, time to the `400` and the process's RSS before and after.
//! 2. Idle: 30 reminders, one a second; lateness = when the daemon hands the
//!    notification to the (recording) notifier minus the trigger instant.
//! 3. Loaded: the same while `LOAD_CLIENTS` (default 8) clients, on a
//!    runtime of their own as if they were other processes, ask for
//!    uncached one-year ranges back to back (every `start` differs by a
//!    millisecond): in turn the whole vault (about 55,000 occurrences,
//!    refused at the 10,000-event ceiling) and a sixth of it by text
//!    (`query=group-N`, 25 series, about 9,000 events, answered `200`).
//!    That is `LOAD=rest`, the default; the other loads are one token
//!    holding what it can open ([`floods`]): `LOAD=sse` (300 change-feed
//!    streams), `LOAD=mcp-sessions` (1,000 MCP sessions), `LOAD=mcp-listings`
//!    (32 year-long MCP listings at once, in one session).
//!
//! In both phases another token's client asks for one uncached day every
//! 100 ms, over a kept connection and over a new one ([`measure::Probe`]):
//! the time to its answers is what the load costs other clients. Around
//! the loaded phase, the RSS: idle before it, the peak during it, and after.
//!
//! Tokens live in the OS keyring, so run it in a session:
//!
//! scripts/session.sh cargo bench -p almanac-reminders --bench lateness_under_load
//! LOAD=sse scripts/session.sh cargo bench -p almanac-reminders --bench lateness_under_load

#[path = "lateness_under_load/floods.rs"]
mod floods;
#[path = "lateness_under_load/measure.rs"]
mod measure;
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, UNIX_EPOCH};

use almanac_core::api::{DeclineAll, HeadlessUi};
use almanac_core::app::Core;
use almanac_core::data_lock::DataLock;
use almanac_core::paths::Paths;
use almanac_core::rest::{self, Listening, RestState};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{McpServerSettings, Settings, SettingsStore};
use almanac_core::tokens::{Expiry, KeyringSecretStore, NewToken, Scope};
use almanac_reminders::clock::now_epoch;
use almanac_reminders::{DaemonHandle, Notification};
use floods::{Load, Tally};
use measure::{PeakRss, Probe, memory};
use tokio::sync::mpsc;

const SERIES: usize = 150;
const GROUPS: usize = 6;
const REMINDERS: usize = 30;
const YEAR_MS: i64 = 365 * 86_400_000;
/// 2020-01-01T00:00:00Z.
const LOAD_FROM_MS: i64 = 1_577_836_800_000;

type Fired = mpsc::UnboundedReceiver<(Notification, std::time::SystemTime)>;

fn main() {
    // As the app's binaries start.
    almanac_core::allocator::return_large_buffers();
    let load_kind = Load::from_env();
    let dir = tempfile::tempdir().unwrap();
    write_vault(&dir.path().join("vault"));
    // The app's runtime (see `headless::run`): core, REST and daemon share it.
    let app = tokio::runtime::Runtime::new().unwrap();
    // The load generator, apart, as other processes would be.
    let load = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (core, server, [token, other], daemon, mut fired) = app.block_on(start(dir.path()));
    let base = format!("http://{}", server.local_addr());
    assert_eq!(core.calendar.stats().events, SERIES);

    bounded_answer(&load, &base, &token);

    let probe = Probe::start(&base, &other);
    let idle = app.block_on(lateness(&daemon, &mut fired, "idle"));
    let [idle_kept, idle_new] = probe.finish();
    let idle_rss = memory().0;
    let peak = PeakRss::start();
    let probe = Probe::start(&base, &other);
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let (tasks, tally) = floods::spawn(load_kind, &load, &base, &token, &stop);
    std::thread::sleep(Duration::from_secs(2));
    let loaded = app.block_on(lateness(&daemon, &mut fired, "loaded"));
    let [loaded_kept, loaded_new] = probe.finish();
    stop.store(true, Ordering::Relaxed);
    load.block_on(async {
        for task in tasks {
            task.await.unwrap();
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    let peak_rss = peak.finish();
    // What stays once the load's clients are gone (sessions the server
    // still keeps, buffers not given back).
    std::thread::sleep(Duration::from_secs(1));
    let after_rss = memory().0;
    println!("load: {}", load_kind.describe());
    println!("idle   lateness over {REMINDERS} reminders: {idle}");
    println!("loaded lateness over {REMINDERS} reminders: {loaded}");
    println!(
        "load's requests: {:.1} answers/s over {seconds:.0} s: {}",
        tally.total() as f64 / seconds,
        tally.summary()
    );
    println!(
        "other client, idle,   kept connection: {}",
        idle_kept.summary()
    );
    println!(
        "other client, idle,   new connections: {}",
        idle_new.summary()
    );
    println!(
        "other client, loaded, kept connection: {}",
        loaded_kept.summary()
    );
    println!(
        "other client, loaded, new connections: {}",
        loaded_new.summary()
    );
    println!(
        "RSS idle {:.1} MB, peak under load {:.1} MB (+{:.1} MB), 1 s after it {:.1} MB",
        mb(idle_rss),
        mb(peak_rss),
        mb(peak_rss - idle_rss),
        mb(after_rss)
    );
    app.block_on(async {
        daemon.shutdown().await;
        server.shutdown().await;
    });
    drop(core);
}

/// kB (as `/proc` counts) to MB.
fn mb(kb: i64) -> f64 {
    kb as f64 * 1024.0 / 1e6
}

/// 150 open-ended daily series from 2000 on: half `rrule`, half weekly on
/// every day, one 30-minute slot each, in six text groups.
fn write_vault(vault: &std::path::Path) {
    let events = vault.join("events");
    std::fs::create_dir_all(&events).unwrap();
    for n in 0..SERIES {
        let timing = if n % 2 == 0 {
            "type: rrule\nrrule: FREQ=DAILY\nstartDate: 2000-01-01".to_string()
        } else {
            "type: recurring\ndaysOfWeek: [U, M, T, W, R, F, S]\nstartRecur: 2000-01-01".to_string()
        };
        let note = format!(
            "---\ntitle: Series {n}\n{timing}\nallDay: false\nstartTime: \"{:02}:00\"\n\
             endTime: \"{:02}:30\"\n---\nThe group-{} routine.\n",
            n % 24,
            n % 24,
            n % GROUPS
        );
        std::fs::write(events.join(format!("Series {n}.md")), note).unwrap();
    }
}

/// The core with the MCP server switched on (for the MCP loads), its REST
/// server, two tokens (the load's and the other client's) and the daemon.
async fn start(dir: &std::path::Path) -> (Arc<Core>, Listening, [String; 2], DaemonHandle, Fired) {
    let paths = Paths::new(dir.join("config"), dir.join("data"));
    let settings = Settings {
        vault_path: dir.join("vault"),
        display_timezone: "UTC".into(),
        mcp_server: McpServerSettings { enabled: true },
        ..Settings::default()
    };
    SettingsStore::open(&paths.settings_file())
        .unwrap()
        .replace(Actor::User, settings)
        .unwrap();
    let core = Arc::new(
        Core::open(
            paths.clone(),
            DataLock::acquire(&paths).unwrap(),
            Arc::new(KeyringSecretStore::new()),
            Arc::new(HeadlessUi),
            Arc::new(DeclineAll),
        )
        .await
        .unwrap(),
    );
    let tokens = [
        new_token(&core, "lateness bench: load").await,
        new_token(&core, "lateness bench: other client").await,
    ];
    let state = RestState::from(core.as_ref());
    let server = Listening::bind(0, move |port| rest::router(state, port))
        .await
        .unwrap();
    let (daemon, fired) = support::start(dir).await;
    (core, server, tokens, daemon, fired)
}

/// A token that may read events (all the loads and the other client need).
async fn new_token(core: &Core, name: &str) -> String {
    let (tokens, name) = (core.tokens.clone(), name.to_string());
    tokio::task::spawn_blocking(move || {
        tokens
            .create(NewToken {
                name,
                scopes: [Scope::EventsRead].into_iter().collect(),
                expiry: Expiry::Never,
            })
            .unwrap()
            .secret
            .expose()
            .to_string()
    })
    .await
    .unwrap()
}

/// Time to the refusal of the 1000- and 1500-year ranges, and the RSS.
fn bounded_answer(load: &tokio::runtime::Runtime, base: &str, token: &str) {
    let client = reqwest::Client::new();
    let before = memory();
    for (start, end) in [("2000-01-01", "2999-12-31"), ("1500-01-01", "2999-12-31")] {
        let mut times = Vec::new();
        let mut answer = (0, String::new());
        for _ in 0..5 {
            let began = Instant::now();
            let response = load.block_on(
                client
                    .get(format!("{base}/api/v1/events?start={start}&end={end}"))
                    .bearer_auth(token)
                    .send(),
            );
            let response = response.unwrap();
            let status = response.status().as_u16();
            let text = load.block_on(response.text()).unwrap();
            times.push(began.elapsed().as_secs_f64() * 1000.0);
            answer = (status, text);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{start}..{end}: {} after {:.1} ms (median of 5; min {:.1}, max {:.1}) {}",
            answer.0, times[2], times[0], times[4], answer.1
        );
    }
    let after = memory();
    println!(
        "RSS before {} kB, after {} kB (+{} kB); peak {} kB",
        before.0,
        after.0,
        after.0 - before.0,
        after.1
    );
}

/// One client: uncached one-year queries back to back until `stop`.
async fn hammer(
    client_index: usize,
    base: String,
    token: String,
    stop: Arc<AtomicBool>,
    tally: Arc<Tally>,
) {
    let client = reqwest::Client::new();
    let mut n: i64 = 0;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        // A different start every time: never an answer-cache hit.
        let start = LOAD_FROM_MS + (client_index as i64) * 1_000_000 + n;
        let filter = if n % 2 == 0 {
            format!("&query=group-{}", n as usize % GROUPS)
        } else {
            String::new()
        };
        let url = format!(
            "{base}/api/v1/events?start={start}&end={}{filter}",
            start + YEAR_MS
        );
        let Ok(response) = client.get(url).bearer_auth(&token).send().await else {
            tally.add(3);
            continue;
        };
        let slot = match response.status().as_u16() {
            200 => 0,
            400 => 1,
            503 => 2,
            _ => 3,
        };
        let _ = response.bytes().await;
        tally.add(slot);
    }
}

/// Syncs `REMINDERS` reminders one a second from two seconds ahead, awaits
/// them all and summarizes their lateness.
async fn lateness(daemon: &DaemonHandle, fired: &mut Fired, phase: &str) -> String {
    let first = now_epoch() + 2;
    let response = reqwest::Client::new()
        .post(format!("http://{}/sync", daemon.addr()))
        .json(&support::payload(REMINDERS, phase, first))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut lateness_ms = Vec::with_capacity(REMINDERS);
    while lateness_ms.len() < REMINDERS {
        let (notification, at) = tokio::time::timeout(Duration::from_secs(120), fired.recv())
            .await
            .expect("fired in time")
            .unwrap();
        let Notification::Reminder { reminder, .. } = notification else {
            continue;
        };
        let at_ms = at.duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0;
        lateness_ms.push(at_ms - (reminder.trigger_at_epoch * 1000) as f64);
    }
    lateness_ms.sort_by(f64::total_cmp);
    format!(
        "min {:.1} ms, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        lateness_ms[0],
        support::percentile(&lateness_ms, 50.0),
        support::percentile(&lateness_ms, 99.0),
        lateness_ms[REMINDERS - 1],
    )
}
