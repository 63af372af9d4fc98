//! CalDAV source benchmark: Almanac syncing a real Radicale server on
//! loopback. Run inside `scripts/session.sh` (the password lives in the OS
//! keyring), release build:
//!
//! ```sh
//! cargo build -p almanac-core --release --example bench_caldav_source
//! scripts/session.sh target/release/examples/bench_caldav_source 5000 10
//! ```
//!
//! Measures, for a calendar of N one-hour events: the initial sync of an
//! empty Almanac (discovery, listing, every body, parsing: from opening the
//! engine to every event shown), and an incremental sync after one event
//! changed on the server (from asking for a sync to the change shown).
//! Radicale's storage is written directly; the first sync, which meets
//! Radicale's cold caches, is reported apart.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::calendar::{Calendar, EventQuery};
use almanac_core::settings::{CalendarSource, KindSettings, Settings};
use almanac_testkit::{free_port, paths_in, port_open};

const USER: &str = "bench";
const PASSWORD: &str = "bench-password";

fn event(uid: usize, title: &str) -> String {
    let day = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()
        + chrono::Days::new((uid % 365) as u64);
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VEVENT\r\nUID:e{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nDTSTART:{}T{:02}0000Z\r\nDURATION:PT1H\r\nSUMMARY:{title}\r\n\
         END:VEVENT\r\nEND:VCALENDAR\r\n",
        day.format("%Y%m%d"),
        8 + uid % 10
    )
}

fn wait(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(600);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn count(calendar: &Calendar) -> usize {
    calendar
        .sources()
        .into_iter()
        .find(|s| s.id == "dav")
        .map_or(0, |s| s.event_count)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let venv = almanac_testkit::venv("radicale-venv.sh");

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let collection = root
        .join("collections/collection-root")
        .join(USER)
        .join("work");
    std::fs::create_dir_all(&collection).unwrap();
    std::fs::write(
        collection.join(".Radicale.props"),
        r#"{"tag": "VCALENDAR"}"#,
    )
    .unwrap();
    for uid in 0..n {
        std::fs::write(
            collection.join(format!("e{uid}.ics")),
            event(uid, &format!("Event {uid}")),
        )
        .unwrap();
    }
    std::fs::write(root.join("users"), format!("{USER}:{PASSWORD}\n")).unwrap();
    let port = free_port();
    std::fs::write(
        root.join("config"),
        format!(
            "[server]\nhosts = 127.0.0.1:{port}\n[auth]\ntype = htpasswd\nhtpasswd_filename = {}\n\
             htpasswd_encryption = plain\n[storage]\nfilesystem_folder = {}\n[rights]\ntype = owner_only\n\
             [logging]\nlevel = warning\n",
            root.join("users").display(),
            root.join("collections").display()
        ),
    )
    .unwrap();
    let mut radicale = Command::new(venv.join("bin/radicale"))
        .arg("--config")
        .arg(root.join("config"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait("Radicale", || port_open(port));
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(600))
        .build()
        .unwrap();
    // Warm Radicale's item cache with one full listing.
    let warm = http
        .request(reqwest::Method::from_bytes(b"REPORT").unwrap(), format!("{base}/{USER}/work/"))
        .basic_auth(USER, Some(PASSWORD))
        .header("Depth", "1")
        .body(r#"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>"#)
        .send()
        .unwrap();
    assert_eq!(warm.status().as_u16(), 207);
    Passwords::default().set("dav", PASSWORD).unwrap();

    let mut initial = Vec::new();
    let mut incremental = Vec::new();
    let mut cold = Duration::ZERO;
    // Round 0 meets Radicale's cold caches (its first sync token and item
    // cache of the collection): reported apart, not in the figures.
    for round in 0..4 {
        let data = tempfile::tempdir().unwrap();
        let settings = Settings {
            vault_path: data.path().join("vault"),
            display_timezone: "UTC".into(),
            calendar_sources: vec![CalendarSource {
                id: "dav".into(),
                name: "Work".into(),
                color: "#3366cc".into(),
                kind: KindSettings::Caldav {
                    url: format!("{base}/"),
                    username: USER.into(),
                    calendar_url: String::new(),
                },
                order: None,
                components: None,
            }],
            ..Settings::default()
        };
        let start = Instant::now();
        let calendar = Calendar::open(&settings, &paths_in(data.path()));
        wait("the initial sync", || count(&calendar) == n);
        if round == 0 {
            cold = start.elapsed();
            continue;
        }
        initial.push(start.elapsed());
        if round > 1 {
            continue;
        }
        for change in 0..rounds {
            let title = format!("Changed {change}");
            let put = http
                .put(format!("{base}/{USER}/work/e7.ics"))
                .basic_auth(USER, Some(PASSWORD))
                .body(event(7, &title))
                .send()
                .unwrap();
            assert!(put.status().is_success());
            let start = Instant::now();
            calendar.revalidate(true);
            wait("the change", || {
                calendar
                    .query(&EventQuery {
                        text: Some(title.clone()),
                        ..Default::default()
                    })
                    .len()
                    == 1
            });
            incremental.push(start.elapsed());
        }
    }
    let _ = Passwords::default().delete("dav");
    let _ = radicale.kill();
    let _ = radicale.wait();
    let report = |name: &str, mut times: Vec<Duration>| {
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{name}: n={} p50 {:.1} ms, max {:.1} ms",
            times.len(),
            ms(times[times.len() / 2]),
            ms(*times.last().unwrap())
        );
    };
    println!("calendar of {n} events on Radicale");
    println!(
        "initial sync against cold Radicale caches: {:.1} ms",
        cold.as_secs_f64() * 1000.0
    );
    report("initial sync", initial);
    report("incremental sync, one change", incremental);
}
