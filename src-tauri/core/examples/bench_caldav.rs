//! CalDAV server benchmark on a generated vault: one client, sequential
//! requests over real HTTP on loopback, timed end to end (request sent →
//! whole body read). Run inside `scripts/session.sh` (tokens live in the OS
//! keyring), release build:
//!
//! ```sh
//! cargo build -p almanac-core --release --examples
//! target/release/examples/gen_vault /tmp/v10k 10000
//! scripts/session.sh target/release/examples/bench_caldav /tmp/v10k 30
//! ```
//!
//! Measures, on the `events` Full Note calendar: `PROPFIND` `Depth: 1` with
//! `getetag` (what a client lists before syncing), `REPORT calendar-query`
//! of one month with `calendar-data` (what Thunderbird asks when it shows a
//! month), and an incremental `sync-collection` with nothing changed; then
//! the same month asked right after a note of the calendar changed on disk
//! (what a client pays on its first poll after an edit: nothing it asked
//! before can be reused). The edited note is restored at the end.

use std::time::{Duration, Instant};

use almanac_core::tokens::Scope;
use almanac_testkit::InstanceBuilder;

#[path = "support/caldav_server.rs"]
mod caldav_server;

const PROPFIND: &str =
    r#"<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/></d:prop></d:propfind>"#;
const MONTH: &str = r#"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
<d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR">
<c:comp-filter name="VEVENT"><c:time-range start="20250601T000000Z" end="20250701T000000Z"/>
</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(vault) = args.next() else {
        eprintln!("usage: bench_caldav VAULT [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(30);
    let core = InstanceBuilder::new()
        .vault(&vault)
        .settings(|s| s.display_timezone = "Europe/Berlin".into())
        .try_open()
        .await?;
    let (server, port, secret) = caldav_server::start(&core, &[Scope::EventsRead]).await?;
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/calendars/local/");
    let send = |method: &'static str, body: String| {
        client
            .request(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                &url,
            )
            .basic_auth("bench", Some(&secret))
            .header("Depth", "1")
            .body(body)
    };

    let listing = send("PROPFIND", PROPFIND.into())
        .send()
        .await?
        .text()
        .await?;
    let token = sync_token(&send("REPORT", sync("")).send().await?.text().await?);
    let cases: [(&str, &'static str, String); 3] = [
        ("PROPFIND Depth 1 (getetag)", "PROPFIND", PROPFIND.into()),
        (
            "REPORT calendar-query, June 2025 (calendar-data)",
            "REPORT",
            MONTH.into(),
        ),
        (
            "REPORT sync-collection, nothing changed",
            "REPORT",
            sync(&token),
        ),
    ];
    println!(
        "calendar `local`: {} resources; {rounds} rounds each, after one warm-up",
        listing.matches("<D:response>").count() - 1
    );
    for (name, method, body) in cases {
        let mut times = Vec::with_capacity(rounds);
        let mut size = 0;
        let mut answers = 0;
        send(method, body.clone()).send().await?.text().await?;
        for _ in 0..rounds {
            let started = Instant::now();
            let response = send(method, body.clone()).send().await?;
            assert_eq!(response.status(), 207, "{name}");
            let text = response.text().await?;
            times.push(started.elapsed());
            size = text.len();
            answers = text.matches("<D:response>").count();
        }
        times.sort();
        println!(
            "{name}: {answers} responses, {:.1} KiB; p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            size as f64 / 1024.0,
            ms(times[rounds / 2]),
            ms(times[(rounds * 95).div_ceil(100) - 1]),
            ms(times[rounds - 1]),
        );
    }
    after_a_change(&core.calendar, std::path::Path::new(&vault), rounds, || {
        send("REPORT", MONTH.into())
    })
    .await?;
    // The server, the engine and this client share the process: an upper
    // bound on what the server keeps (its listings and their texts).
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        let memory: Vec<&str> = status
            .lines()
            .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
            .collect();
        println!("process memory: {}", memory.join(", ").replace('\t', " "));
    }
    server.shutdown().await;
    Ok(())
}

/// The month asked right after each of `rounds` edits of one note (its
/// title changed on disk, the change awaited), timed from the request.
async fn after_a_change(
    calendar: &almanac_core::calendar::Calendar,
    vault: &std::path::Path,
    rounds: usize,
    month: impl Fn() -> reqwest::RequestBuilder,
) -> Result<(), Box<dyn std::error::Error>> {
    let path = vault.join("events/000/note 0.md");
    let original = std::fs::read_to_string(&path)?;
    let mut changes = calendar.subscribe();
    let mut times = Vec::with_capacity(rounds);
    for round in 0..rounds {
        changes.borrow_and_update();
        let edited = original.replacen("\ntitle: ", &format!("\ntitle: edit {round} "), 1);
        std::fs::write(&path, edited)?;
        tokio::time::timeout(Duration::from_secs(10), changes.changed()).await??;
        let started = Instant::now();
        let response = month().send().await?;
        assert_eq!(response.status(), 207);
        response.text().await?;
        times.push(started.elapsed());
    }
    std::fs::write(&path, original)?;
    times.sort();
    println!(
        "REPORT calendar-query, June 2025, first after a note changed: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        ms(times[rounds / 2]),
        ms(times[(rounds * 95).div_ceil(100) - 1]),
        ms(times[rounds - 1]),
    );
    Ok(())
}

fn sync(token: &str) -> String {
    format!(
        r#"<d:sync-collection xmlns:d="DAV:"><d:sync-token>{token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"#
    )
}

fn sync_token(body: &str) -> String {
    body.split("<D:sync-token>")
        .nth(1)
        .and_then(|s| s.split("</D:sync-token>").next())
        .unwrap_or_default()
        .to_string()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
