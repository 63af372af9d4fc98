//! Almanac's CalDAV server beside Radicale, the reference server, over the
//! same calendar, in one run. Run inside `scripts/session.sh` (Almanac's
//! token lives in the OS keyring), release build:
//!
//! ```sh
//! cargo build -p almanac-core --release --example bench_caldav_radicale
//! scripts/session.sh target/release/examples/bench_caldav_radicale 5000 20
//! ```
//!
//! The calendar: N resources, the same iCalendar text for both servers: one
//! in ten a weekly series, one in twenty-five a task (`VTODO` with a due
//! date), the rest one-hour events, spread over 2026. Radicale gets them
//! written into its storage (its `PUT` is timed below); Almanac gets them
//! by `PUT`, as a client would send them, which makes them notes.
//!
//! Then, one client, sequential requests over real HTTP on loopback (timed
//! from sending to having read the whole body), `ROUNDS` each after one
//! warm-up: `PROPFIND Depth: 1` with `getetag`, one month's
//! `calendar-query` with `calendar-data`, an unchanged `sync-collection`,
//! a `VTODO` query, a text search, and a `PUT` of a new event.

use std::time::{Duration, Instant};

use almanac_core::tokens::Scope;
use almanac_testkit::InstanceBuilder;
use almanac_testkit::radicale::{self, Radicale};

#[path = "support/caldav_server.rs"]
mod caldav_server;

const PROPFIND: &str =
    r#"<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/></d:prop></d:propfind>"#;

/// A `calendar-query` for `component` with `filter` inside it.
fn query(component: &str, filter: &str) -> String {
    format!(
        r#"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="{component}">{filter}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>"#
    )
}

fn sync(token: &str) -> String {
    format!(
        r#"<d:sync-collection xmlns:d="DAV:"><d:sync-token>{token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"#
    )
}

/// Resource `i` of the calendar, as iCalendar.
fn resource(i: usize) -> String {
    let day = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()
        + chrono::Days::new((i * 7 % 365) as u64);
    let date = day.format("%Y%m%d");
    let hour = 8 + i % 10;
    let component = if i % 25 == 5 {
        format!(
            "BEGIN:VTODO\r\nUID:r{i}\r\nDTSTAMP:20260101T000000Z\r\nDUE;VALUE=DATE:{date}\r\nSUMMARY:Task {i}\r\nSTATUS:NEEDS-ACTION\r\nEND:VTODO\r\n"
        )
    } else {
        let rule = if i.is_multiple_of(10) {
            "RRULE:FREQ=WEEKLY;COUNT=26\r\n"
        } else {
            ""
        };
        format!(
            "BEGIN:VEVENT\r\nUID:r{i}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{date}T{hour:02}0000Z\r\nDTEND:{date}T{:02}0000Z\r\n{rule}SUMMARY:Event {i}\r\nEND:VEVENT\r\n",
            hour + 1
        )
    };
    format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n{component}END:VCALENDAR\r\n")
}

/// One server's calendar collection and how to sign in to it.
struct Collection {
    url: String,
    user: &'static str,
    password: String,
}

impl Collection {
    fn request(&self, http: &reqwest::Client, method: &str, path: &str) -> reqwest::RequestBuilder {
        http.request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            format!("{}{path}", self.url),
        )
        .basic_auth(self.user, Some(&self.password))
    }

    /// Sends `method` with `body` to the collection; its status and body.
    async fn send(&self, http: &reqwest::Client, method: &str, body: &str) -> (u16, String) {
        let response = self
            .request(http, method, "")
            .header("Depth", "1")
            .header("Content-Type", "application/xml")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    async fn put(&self, http: &reqwest::Client, name: &str, ics: String) -> u16 {
        self.request(http, "PUT", name)
            .header("Content-Type", "text/calendar")
            .header("If-None-Match", "*")
            .body(ics)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }
}

/// Radicale (the tests' own, on a free port) with the calendar written
/// into its storage.
async fn start_radicale(n: usize) -> (Radicale, Collection) {
    let server = tokio::task::spawn_blocking(Radicale::start).await.unwrap();
    let storage = server.dir.path().join("collections/collection-root");
    let calendar = storage.join(radicale::USER).join("work");
    for i in 0..n {
        std::fs::write(calendar.join(format!("r{i}.ics")), resource(i)).unwrap();
    }
    let collection = Collection {
        url: server.calendar(),
        user: radicale::USER,
        password: radicale::PASSWORD.into(),
    };
    (server, collection)
}

/// The `p`th percentile of sorted `times`, in milliseconds.
fn percentile(times: &[Duration], p: usize) -> f64 {
    let i = (times.len() * p).div_ceil(100).max(1) - 1;
    times[i].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let http = reqwest::Client::new();

    // Kept to the end: dropping it stops Radicale.
    let (_radicale, reference) = start_radicale(n).await;

    let almanac = InstanceBuilder::new()
        .settings(|s| s.display_timezone = "Europe/Berlin".into())
        .try_open()
        .await?;
    let (server, port, secret) =
        caldav_server::start(&almanac, &[Scope::EventsRead, Scope::EventsWrite]).await?;
    let ours = Collection {
        url: format!("http://127.0.0.1:{port}/calendars/local/"),
        user: "bench",
        password: secret,
    };
    let started = Instant::now();
    let mut refused = 0;
    for i in 0..n {
        let status = ours.put(&http, &format!("r{i}.ics"), resource(i)).await;
        if status != 201 {
            refused += 1;
        }
    }
    println!(
        "{n} resources: Radicale's written into its storage; Almanac's PUT in {:.1} s ({refused} refused)",
        started.elapsed().as_secs_f64()
    );

    let month = query(
        "VEVENT",
        r#"<c:time-range start="20260601T000000Z" end="20260701T000000Z"/>"#,
    );
    let todos = query("VTODO", "");
    let text = query(
        "VEVENT",
        r#"<c:prop-filter name="SUMMARY"><c:text-match collation="i;ascii-casemap">event 77</c:text-match></c:prop-filter>"#,
    );
    println!(
        "| request | Radicale p50 | Almanac p50 | Almanac ahead | answers (Radicale / Almanac) |"
    );
    println!("|---|---|---|---|---|");
    let row = |name: &str, theirs: (Vec<Duration>, usize), ours: (Vec<Duration>, usize)| {
        let (r, a) = (percentile(&theirs.0, 50), percentile(&ours.0, 50));
        println!(
            "| {name} | {r:.1} ms | {a:.1} ms | {:.1}× | {} / {} |",
            r / a,
            theirs.1,
            ours.1
        );
    };
    let reports: [(&str, &str, String); 4] = [
        (
            "`PROPFIND Depth: 1`, `getetag`",
            "PROPFIND",
            PROPFIND.into(),
        ),
        (
            "`calendar-query`, June 2026, `calendar-data`",
            "REPORT",
            month,
        ),
        ("`calendar-query`, every `VTODO`", "REPORT", todos),
        ("`calendar-query`, text in `SUMMARY`", "REPORT", text),
    ];
    for (name, method, body) in &reports {
        let mut measured = Vec::new();
        for collection in [&reference, &ours] {
            collection.send(&http, method, body).await;
            let mut times = Vec::with_capacity(rounds);
            let mut answers = 0;
            for _ in 0..rounds {
                let started = Instant::now();
                let (status, text) = collection.send(&http, method, body).await;
                times.push(started.elapsed());
                assert_eq!(status, 207, "{name}: {text}");
                answers = text.matches("response>").count() / 2;
            }
            times.sort();
            measured.push((times, answers));
        }
        let ours = measured.pop().unwrap();
        row(name, measured.pop().unwrap(), ours);
    }
    let mut measured = Vec::new();
    for collection in [&reference, &ours] {
        let (_, first) = collection.send(&http, "REPORT", &sync("")).await;
        let token = first
            .split("sync-token>")
            .nth(1)
            .and_then(|s| s.split("</").next())
            .unwrap_or_default()
            .to_string();
        let body = sync(&token);
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let started = Instant::now();
            let (status, text) = collection.send(&http, "REPORT", &body).await;
            times.push(started.elapsed());
            assert_eq!(status, 207, "sync-collection: {text}");
        }
        times.sort();
        measured.push((times, 0));
    }
    let ours_sync = measured.pop().unwrap();
    row(
        "`sync-collection`, nothing changed",
        measured.pop().unwrap(),
        ours_sync,
    );
    let mut measured = Vec::new();
    for (which, collection) in [("radicale", &reference), ("almanac", &ours)] {
        let mut times = Vec::with_capacity(rounds);
        for round in 0..rounds {
            // A one-hour event (neither a series nor a task).
            let i = n * 10 + round * 10 + 1;
            let started = Instant::now();
            let status = collection
                .put(&http, &format!("new-{which}-{i}.ics"), resource(i))
                .await;
            times.push(started.elapsed());
            assert_eq!(status, 201, "PUT to {which}");
        }
        times.sort();
        measured.push((times, rounds));
    }
    let ours_put = measured.pop().unwrap();
    row("`PUT` of a new event", measured.pop().unwrap(), ours_put);

    server.shutdown().await;
    Ok(())
}
