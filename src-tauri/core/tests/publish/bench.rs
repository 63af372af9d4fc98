//! Publishing's figures against a real local Radicale, printed for
//! BENCHMARKS.md (ignored: run by hand, with the command there; nothing is
//! asserted about time):
//!
//! - through the real worker: an edit written on disk, seen by the file
//!   watcher, pushed after the debounce, until the server serves it; and a
//!   change made on the server until it is in the note (poll 15 s);
//! - side by side with vdirsyncer on the same server and the same 1,000
//!   events (vdirsyncer syncing a folder of `.ics` files to a collection of
//!   its own): the first upload, an unchanged sync, a sync after one
//!   change; with Almanac's share of time waiting on the server, and what
//!   an unchanged poll costs on the wire.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::publish::{password_key, worker};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{KindSettings, PublishedCalendar};
use almanac_testkit::radicale::{PASSWORD, Radicale, USER};

use crate::publish::interpose::Interposer;
use crate::publish::support::{CALENDAR, Setup};

const EVENTS: usize = 1000;

/// The day of event `i` (spread over a year).
fn day(i: usize) -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + chrono::Duration::days((i % 365) as i64)
}

/// Event `i` as a note.
fn note(i: usize) -> (String, String) {
    let date = day(i);
    (
        format!("events/{date} Event {i}.md"),
        format!(
            "---\ntitle: Event {i}\nallDay: false\ndate: {date}\nstartTime: \"09:00\"\n\
             endTime: \"10:00\"\n---\nBody of event {i}.\n"
        ),
    )
}

/// Event `i` as an `.ics` file, as vdirsyncer's folder holds it.
fn ics(i: usize, title: &str) -> String {
    let date = day(i).format("%Y%m%d");
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VEVENT\r\n\
         UID:bench-{i}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{date}T090000Z\r\n\
         DTEND:{date}T100000Z\r\nSUMMARY:{title}\r\nDESCRIPTION:Body of event {i}.\r\n\
         END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

fn notes(count: usize) -> Vec<(String, String)> {
    (0..count).map(note).collect()
}

fn borrowed(notes: &[(String, String)]) -> Vec<(&str, &str)> {
    notes
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at]
}

/// The text of the resource at `href` on Radicale, if it is there.
fn served(href: &str) -> Option<String> {
    let response = reqwest::blocking::Client::new()
        .get(href)
        .basic_auth(USER, Some(PASSWORD))
        .send()
        .ok()?;
    response
        .status()
        .is_success()
        .then(|| response.text().unwrap())
}

/// Polls `check` every 10 ms until it holds; how long that took.
fn until(what: &str, started: Instant, check: impl Fn() -> bool) -> Duration {
    while !check() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: not within a minute"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    started.elapsed()
}

#[test]
#[ignore = "a benchmark: run by hand, see BENCHMARKS.md"]
fn bench_worker_latency() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = Radicale::start();
    let all = notes(100);
    let setup = Setup::new(&server, &borrowed(&all));
    Passwords::default()
        .set(&password_key(CALENDAR), PASSWORD)
        .unwrap();
    {
        let _entered = runtime.enter();
        worker::start(&setup.publisher, &setup.settings, &setup.calendar);
    }
    let mut settings = (*setup.settings.get()).clone();
    settings.published_calendars.push(PublishedCalendar {
        calendar_id: CALENDAR.into(),
        url: server.calendar(),
        username: USER.into(),
        poll_seconds: 15,
    });
    setup.settings.replace(Actor::User, settings).unwrap();
    until("the first publish", Instant::now(), || {
        setup.publisher.status(CALENDAR).items.len() == all.len()
    });

    // Vault → server: an edit on disk, until the server serves it.
    let mut pushes = Vec::new();
    for (round, (rel, _)) in all.iter().enumerate().take(20) {
        let text = setup.vault.read(rel);
        let uid = setup
            .titled(&format!("Event {round}"))
            .uid
            .expect("pinned by the first publish");
        let href = setup.publisher.status(CALENDAR).items[&uid].href.clone();
        let title = format!("Event {round} edited");
        let started = Instant::now();
        setup.vault.write(
            rel,
            &text.replacen(
                &format!("title: Event {round}\n"),
                &format!("title: {title}\n"),
                1,
            ),
        );
        pushes.push(until("the edit on the server", started, || {
            served(&href).is_some_and(|ics| ics.contains(&format!("SUMMARY:{title}")))
        }));
        // Apart from the next round's edit by more than the debounce.
        std::thread::sleep(Duration::from_millis(700));
    }

    // Server → vault: a change made on the server, until it is in the
    // note (poll 15 s, at a different moment of it each time).
    let mut pulls = Vec::new();
    for round in 0..4 {
        let index = 50 + round;
        let uid = setup.titled(&format!("Event {index}")).uid.unwrap();
        let href = setup.publisher.status(CALENDAR).items[&uid].href.clone();
        let before = served(&href).unwrap();
        let changed = before.replacen(
            &format!("SUMMARY:Event {index}"),
            &format!("SUMMARY:Event {index} from the phone"),
            1,
        );
        std::thread::sleep(Duration::from_millis(3700 * round as u64));
        let started = Instant::now();
        let response = reqwest::blocking::Client::new()
            .put(&href)
            .basic_auth(USER, Some(PASSWORD))
            .header("Content-Type", "text/calendar")
            .body(changed)
            .send()
            .unwrap();
        assert!(response.status().is_success());
        // (A new title renames the note: it is looked for by its title.)
        let title = format!("Event {index} from the phone");
        pulls.push(until("the server's change in the note", started, || {
            setup.events().iter().any(|e| e.title == title)
        }));
    }
    Passwords::default()
        .delete(&password_key(CALENDAR))
        .unwrap();

    println!("\n## worker latency (100 notes, Radicale on loopback)\n");
    println!("| case | samples | p50 | p95 | max |");
    println!("|---|---|---|---|---|");
    for (name, samples) in [
        ("edit on disk → on the server", &pushes),
        ("change on the server → in the note (poll 15 s)", &pulls),
    ] {
        println!(
            "| {name} | {} | {:.0} ms | {:.0} ms | {:.0} ms |",
            samples.len(),
            millis(percentile(samples, 0.5)),
            millis(percentile(samples, 0.95)),
            millis(*samples.iter().max().unwrap()),
        );
    }
}

/// vdirsyncer syncing the folder `ics` to the collection at `url`.
struct Vdirsyncer {
    config: std::path::PathBuf,
}

impl Vdirsyncer {
    fn new(dir: &Path, ics: &Path, url: &str) -> Vdirsyncer {
        let config = dir.join("config");
        std::fs::write(
            &config,
            format!(
                "[general]\nstatus_path = \"{status}\"\n\n\
                 [pair bench]\na = \"bench_local\"\nb = \"bench_remote\"\ncollections = null\n\n\
                 [storage bench_local]\ntype = \"filesystem\"\npath = \"{ics}\"\nfileext = \".ics\"\n\n\
                 [storage bench_remote]\ntype = \"caldav\"\nurl = \"{url}\"\n\
                 username = \"{USER}\"\npassword = \"{PASSWORD}\"\n",
                status = dir.join("status").display(),
                ics = ics.display(),
            ),
        )
        .unwrap();
        let vdirsyncer = Vdirsyncer { config };
        vdirsyncer.run("discover");
        vdirsyncer
    }

    /// Runs `vdirsyncer <command>`; how long it took.
    fn run(&self, command: &str) -> Duration {
        let bin = almanac_testkit::venv("caldav-venv.sh").join("bin/vdirsyncer");
        let started = Instant::now();
        let output = Command::new(bin)
            .arg("-c")
            .arg(&self.config)
            .arg(command)
            .output()
            .unwrap();
        let took = started.elapsed();
        assert!(
            output.status.success(),
            "vdirsyncer {command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        took
    }
}

#[test]
#[ignore = "a benchmark: run by hand, see BENCHMARKS.md"]
fn bench_against_vdirsyncer() {
    let server = Radicale::start();
    server.mkcalendar("almanac", "Almanac");
    server.mkcalendar("vdirsyncer", "vdirsyncer");
    server.mkcalendar("counted", "Counted");
    let all = notes(EVENTS);

    // vdirsyncer: a folder of .ics files to its own collection.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("ics");
    std::fs::create_dir_all(&folder).unwrap();
    for i in 0..EVENTS {
        std::fs::write(
            folder.join(format!("bench-{i}.ics")),
            ics(i, &format!("Event {i}")),
        )
        .unwrap();
    }
    let vdirsyncer = Vdirsyncer::new(dir.path(), &folder, &server.url("/alice/vdirsyncer/"));
    let v_first = vdirsyncer.run("sync");
    let v_unchanged = median((0..3).map(|_| vdirsyncer.run("sync")).collect());
    let v_changed = median(
        (0..3)
            .map(|round| {
                std::fs::write(
                    folder.join("bench-7.ics"),
                    ics(7, &format!("Event 7 v{round}")),
                )
                .unwrap();
                vdirsyncer.run("sync")
            })
            .collect(),
    );

    // Almanac: the same events as notes, to its own collection.
    let full_note = || KindSettings::FullNote {
        directory: "events".into(),
    };
    let setup = Setup::of(
        &server,
        full_note(),
        &server.url("/alice/almanac/"),
        &borrowed(&all),
    );
    let started = Instant::now();
    let first = setup.sync();
    let a_first = started.elapsed();
    assert_eq!(first.pushed, EVENTS, "{first:?}");
    let unchanged: Vec<_> = (0..5)
        .map(|_| {
            let started = Instant::now();
            let outcome = setup.sync();
            assert_eq!(outcome.pushed + outcome.pulled, 0);
            started.elapsed()
        })
        .collect();
    let a_unchanged = median(unchanged);
    let (rel, _) = &all[7];
    let a_changed = median(
        (0..3)
            .map(|round| {
                let from = if round == 0 {
                    "title: Event 7\n".to_string()
                } else {
                    format!("title: Event 7 v{}\n", round - 1)
                };
                setup.edit(rel, &from, &format!("title: Event 7 v{round}\n"));
                let started = Instant::now();
                let outcome = setup.sync();
                assert_eq!(outcome.pushed, 1, "{outcome:?}");
                started.elapsed()
            })
            .collect(),
    );

    // An unchanged poll on the wire: the same notes through a counting
    // proxy, to a collection of their own.
    let proxy = Interposer::start(&server.calendar());
    let mut counted = Setup::of(
        &server,
        full_note(),
        &server.url("/alice/counted/"),
        &borrowed(&all),
    );
    counted.sync_through(proxy.url(&server.url("/alice/counted/")));
    counted.sync();
    // The poll after the first publish (the server names every resource
    // written, each already known by its ETag), then one with nothing new.
    let polls: Vec<_> = (0..2)
        .map(|_| {
            let before = (
                proxy.traffic.requests.load(Ordering::SeqCst),
                proxy.traffic.sent.load(Ordering::SeqCst),
                proxy.traffic.received.load(Ordering::SeqCst),
            );
            let started = Instant::now();
            let outcome = counted.sync();
            let took = started.elapsed();
            (
                proxy.traffic.requests.load(Ordering::SeqCst) - before.0,
                proxy.traffic.sent.load(Ordering::SeqCst) - before.1,
                proxy.traffic.received.load(Ordering::SeqCst) - before.2,
                took,
                outcome.server_wait,
            )
        })
        .collect();

    println!("\n## Almanac and vdirsyncer, {EVENTS} events, one Radicale on loopback\n");
    println!("| case | Almanac | vdirsyncer 0.21 |");
    println!("|---|---|---|");
    for (name, a, v) in [
        ("first upload", a_first, v_first),
        ("unchanged sync (median of 5 / 3)", a_unchanged, v_unchanged),
        ("sync after one change (median of 3)", a_changed, v_changed),
    ] {
        println!("| {name} | {:.0} ms | {:.0} ms |", millis(a), millis(v));
    }
    println!(
        "\nAlmanac's first publish: {:.0} ms, of which {:.0} ms ({:.0} %) waiting on the server.",
        millis(a_first),
        millis(first.server_wait),
        100.0 * first.server_wait.as_secs_f64() / a_first.as_secs_f64()
    );
    println!(
        "\n| poll ({EVENTS} events) | requests | bytes sent | bytes received | time | waiting on the server |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, (requests, sent, received, took, waited)) in
        ["the next poll after the first publish", "an unchanged poll"]
            .iter()
            .zip(polls)
    {
        println!(
            "| {name} | {requests} | {sent} | {received} | {:.1} ms | {:.1} ms |",
            millis(took),
            millis(waited)
        );
    }
}
