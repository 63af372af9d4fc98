//! What the bench watches while a load runs, apart from reminder lateness:
//! another client's REST requests and the process's memory.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::support;

/// How often the other client asks, and how often the RSS is read.
const EVERY: Duration = Duration::from_millis(100);
/// A request the other client gives up on counts as not answered.
const GIVE_UP: Duration = Duration::from_secs(30);
/// The other client's ranges start here (2030-01-01), away from the loads'.
const PROBE_FROM_MS: i64 = 1_893_456_000_000;
const DAY_MS: i64 = 86_400_000;

/// Another token's client: a `GET /events` for one uncached day every
/// 100 ms, once over a connection it keeps (as a calendar app does) and
/// once over a new connection each time (as a script starting does: it
/// must get through the port's connection cap first). Runs on a thread
/// and runtime of its own, so the load's tasks never delay its own clock.
pub struct Probe {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<[Latencies; 2]>,
}

/// One way of asking: each request's time to its whole answer, and the
/// answers that were not `200`.
#[derive(Default)]
pub struct Latencies {
    ms: Vec<f64>,
    not_ok: Vec<String>,
    /// The slowest request: its time, and when it was sent (seconds after
    /// the probe started), to tell a stall at the load's start from one
    /// all along.
    slowest: (f64, f64),
}

impl Probe {
    pub fn start(base: &str, token: &str) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (base, token, flag) = (base.to_string(), token.to_string(), stop.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let kept = reqwest::Client::new();
                let fresh = reqwest::Client::builder()
                    .pool_max_idle_per_host(0)
                    .build()
                    .unwrap();
                let (kept, fresh) = tokio::join!(
                    ask(kept, &base, &token, 0, &flag),
                    ask(fresh, &base, &token, 1, &flag),
                );
                [kept, fresh]
            })
        });
        Self { stop, thread }
    }

    /// Stops asking; what the kept and the new connections got.
    pub fn finish(self) -> [Latencies; 2] {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// Asks every [`EVERY`] until `stop`, each time for a day never asked
/// before (the start moves by a millisecond), so no answer comes from the
/// answer cache: each takes a query thread.
async fn ask(
    client: reqwest::Client,
    base: &str,
    token: &str,
    lane: i64,
    stop: &AtomicBool,
) -> Latencies {
    let mut seen = Latencies::default();
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut n: i64 = 0;
    let began_asking = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        tick.tick().await;
        n += 1;
        let start = PROBE_FROM_MS + lane * 10_000_000 + n;
        let url = format!("{base}/api/v1/events?start={start}&end={}", start + DAY_MS);
        let began = Instant::now();
        let answer = tokio::time::timeout(GIVE_UP, async {
            let response = client.get(url).bearer_auth(token).send().await?;
            let status = response.status().as_u16();
            response.bytes().await.map(|_| status)
        })
        .await;
        let ms = began.elapsed().as_secs_f64() * 1000.0;
        if ms > seen.slowest.0 {
            let sent = began.duration_since(began_asking).as_secs_f64();
            seen.slowest = (ms, sent);
        }
        seen.ms.push(ms);
        match answer {
            Ok(Ok(200)) => {}
            Ok(Ok(status)) => seen.not_ok.push(status.to_string()),
            Ok(Err(error)) => seen.not_ok.push(format!("error ({error})")),
            Err(_) => seen
                .not_ok
                .push(format!("no answer in {} s", GIVE_UP.as_secs())),
        }
    }
    seen
}

impl Latencies {
    /// `N requests: p50 …, p99 …, max … (sent at +… s); all 200` (or the
    /// others, counted).
    pub fn summary(mut self) -> String {
        if self.ms.is_empty() {
            return "no requests".into();
        }
        self.ms.sort_by(f64::total_cmp);
        let answers = if self.not_ok.is_empty() {
            "all 200".to_string()
        } else {
            self.not_ok.sort();
            let mut counted: Vec<(String, usize)> = Vec::new();
            for status in self.not_ok {
                match counted.last_mut() {
                    Some((last, count)) if *last == status => *count += 1,
                    _ => counted.push((status, 1)),
                }
            }
            let counted: Vec<String> = counted.iter().map(|(s, n)| format!("{n} × {s}")).collect();
            format!("not 200: {}", counted.join(", "))
        };
        format!(
            "{} requests: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (sent at +{:.1} s); {answers}",
            self.ms.len(),
            support::percentile(&self.ms, 50.0),
            support::percentile(&self.ms, 99.0),
            self.slowest.0,
            self.slowest.1,
        )
    }
}

/// The process's resident memory while a load runs: VmRSS read every
/// 100 ms, and VmHWM (the kernel's own peak, reset at the start, so a
/// spike between two reads is not missed). The bench's load clients live
/// in this process too, so the figure is an upper bound on the app's.
pub struct PeakRss {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<i64>,
    /// Whether VmHWM was reset, so counts from the start.
    reset: bool,
}

impl PeakRss {
    pub fn start() -> Self {
        let reset = reset_peak();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut peak = 0;
            while !flag.load(Ordering::Relaxed) {
                peak = peak.max(memory().0);
                std::thread::sleep(EVERY);
            }
            peak
        });
        Self {
            stop,
            thread,
            reset,
        }
    }

    /// The peak since [`PeakRss::start`], in kB.
    pub fn finish(self) -> i64 {
        self.stop.store(true, Ordering::Relaxed);
        let sampled = self.thread.join().unwrap();
        match self.reset {
            true => sampled.max(memory().1),
            false => sampled,
        }
    }
}

/// Writing `5` to `clear_refs` resets VmHWM to the current RSS (Linux 4.0
/// on). Where it cannot, VmHWM stays the peak since the process started,
/// and the 100 ms reads stand in for it.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// (VmRSS, VmHWM) of this process, in kB.
pub fn memory() -> (i64, i64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
