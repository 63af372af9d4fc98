//! The CalDAV client stays on the account's origin and reads bounded
//! answers. Two loopback servers on different ports stand for the account's
//! server (`home`) and another one (`elsewhere`): `home` answers with hrefs
//! or redirects naming `elsewhere`, which must never be asked anything, so
//! it never sees the password.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};

use almanac_core::calendar::sources::caldav::mirror::Mirror;
use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::calendar::sources::caldav::sync::{self, Known, Synced};
use almanac_core::calendar::sources::caldav::{
    DavClient, DavError, MAX_ANSWER_BYTES, MAX_RESOURCE_BYTES, MAX_RESOURCES, discover,
};
use almanac_core::settings::KindSettings;
use almanac_testkit::wait_until;
use url::Url;

use crate::caldav_source::common::TestVault;
use crate::caldav_source::setup::{source_id, vevent};

/// One request a fake server received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    body: String,
    authorization: Option<String>,
}

/// A CalDAV stand-in on loopback: answers each request with what `answer`
/// says (status, headers and body; `Content-Length` is added unless the
/// headers hold [`UNSIZED`]), and keeps every request it received.
struct Fake {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

type Answer = (u16, Vec<(String, String)>, Vec<u8>);

/// A header that makes the fake send no `Content-Length`.
const UNSIZED: &str = "X-Unsized";

impl Fake {
    fn start(answer: impl Fn(&Seen) -> Answer + Send + 'static) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let Some(request) = read_request(&mut stream) else {
                    continue;
                };
                kept.lock().unwrap().push(request.clone());
                let (status, headers, body) = answer(&request);
                let mut head = format!("HTTP/1.1 {status} X\r\nConnection: close\r\n");
                let mut sized = true;
                for (name, value) in headers {
                    // Marks a body sent until the connection closes.
                    sized &= name != UNSIZED;
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                if sized {
                    head.push_str(&format!("Content-Length: {}\r\n", body.len()));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Fake { addr, seen }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn read_request(stream: &mut std::net::TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let (mut length, mut authorization) = (0, None);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 || header == "\r\n" {
            break;
        }
        let (name, value) = header.split_once(':')?;
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().ok()?,
            "authorization" => authorization = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen {
        method,
        path,
        body: String::from_utf8_lossy(&body).into_owned(),
        authorization,
    })
}

fn multistatus(responses: &str) -> Answer {
    let body = format!(
        r#"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">{responses}<d:sync-token>t1</d:sync-token></d:multistatus>"#
    );
    (207, vec![], body.into_bytes())
}

fn response(href: &str, props: &str) -> String {
    format!(
        "<d:response><d:href>{href}</d:href><d:propstat><d:prop>{props}</d:prop>\
         <d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
    )
}

fn client(server: &str) -> DavClient {
    DavClient::new(&Url::parse(server).unwrap(), "alice", "s3cret").unwrap()
}

/// The answer is the refusal naming `elsewhere`, which received nothing.
fn refused_toward(outcome: Result<impl std::fmt::Debug, DavError>, elsewhere: &Fake) {
    let expected = format!("http://{}", elsewhere.addr);
    match outcome {
        Err(DavError::OffOrigin(origin)) => assert_eq!(origin, expected),
        other => panic!("not refused as off-origin: {other:?}"),
    }
    assert!(
        elsewhere.seen().is_empty(),
        "the other server was asked: {:?}",
        elsewhere.seen()
    );
}

fn collection_with(props: &str) -> impl Fn(&Seen) -> Answer + Send + 'static {
    let props = format!("<d:resourcetype><d:collection/></d:resourcetype>{props}");
    move |_| multistatus(&response("/", &props))
}

#[test]
fn a_principal_on_another_origin_is_refused_unasked() {
    let elsewhere = Fake::start(|_| multistatus(""));
    let principal = format!(
        "<d:current-user-principal><d:href>{}</d:href></d:current-user-principal>",
        elsewhere.url("/principals/alice/")
    );
    let home = Fake::start(collection_with(&principal));
    let outcome = discover::calendars(&client(&home.url("/")), &home.url("/"));
    refused_toward(outcome, &elsewhere);
    assert!(home.seen().iter().all(|s| s.authorization.is_some()));
}

#[test]
fn a_home_set_on_another_origin_is_refused_unasked() {
    let elsewhere = Fake::start(|_| multistatus(""));
    let props = format!(
        "<d:current-user-principal><d:href>/principals/alice/</d:href></d:current-user-principal>\
         <c:calendar-home-set><d:href>{}</d:href></c:calendar-home-set>",
        elsewhere.url("/calendars/alice/")
    );
    let home = Fake::start(collection_with(&props));
    let outcome = discover::calendars(&client(&home.url("/")), &home.url("/"));
    refused_toward(outcome, &elsewhere);
    // The principal (on the origin) was asked: the refusal is of the home set.
    assert!(home.seen().iter().any(|s| s.path == "/principals/alice/"));
}

/// The calendar's own answers list resources on another server.
#[test]
fn resources_on_another_origin_are_refused_before_anything_is_fetched() {
    let elsewhere = Fake::start(|_| multistatus(""));
    let foreign = elsewhere.url("/cal/stolen.ics");
    let home = Fake::start(move |seen| match seen.method.as_str() {
        "PROPFIND" => multistatus(&response("/cal/", "<d:sync-token>t1</d:sync-token>")),
        _ => multistatus(&response(&foreign, "<d:getetag>\"1\"</d:getetag>")),
    });
    let calendar = Url::parse(&home.url("/cal/")).unwrap();
    let outcome = sync::sync(
        &client(&home.url("/")),
        &calendar,
        &Known::default(),
        sync::Listed::Events,
        BTreeMap::new,
    );
    refused_toward(outcome.map(|_| ()), &elsewhere);
    // No multiget followed the refused listing.
    assert!(!home.seen().iter().any(|s| s.body.contains("multiget")));
}

#[test]
fn a_redirect_to_another_origin_is_not_followed() {
    let elsewhere = Fake::start(|_| multistatus(""));
    let target = elsewhere.url("/dav/");
    let home = Fake::start(move |_| (307, vec![("Location".into(), target.clone())], vec![]));
    let outcome = discover::calendars(&client(&home.url("/")), &home.url("/"));
    refused_toward(outcome, &elsewhere);
}

#[test]
fn a_redirect_within_the_origin_is_followed() {
    let home = Fake::start(|seen| match seen.path.as_str() {
        "/old/" => (307, vec![("Location".into(), "/cal/".into())], vec![]),
        _ => multistatus(&response(
            "/cal/",
            "<d:resourcetype><d:collection/><c:calendar/></d:resourcetype><d:displayname>Work</d:displayname>",
        )),
    });
    let found = discover::calendars(&client(&home.url("/")), &home.url("/old/")).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].url, home.url("/cal/"));
}

/// An account entered as https is never asked over plain http, even on the
/// same host and port (the calendar URL in the settings says http).
#[test]
fn an_https_account_never_sends_over_http() {
    let home = Fake::start(|_| multistatus(""));
    let https = format!("https://{}/", home.addr);
    let calendar = Url::parse(&home.url("/cal/")).unwrap();
    let outcome = sync::sync(
        &client(&https),
        &calendar,
        &Known::default(),
        sync::Listed::Events,
        BTreeMap::new,
    );
    match outcome {
        Err(DavError::OffOrigin(origin)) => assert_eq!(origin, home.url("")),
        other => panic!("not refused: {:?}", other.map(|_| ())),
    }
    assert!(home.seen().is_empty(), "{:?}", home.seen());
}

#[test]
fn an_answer_over_the_cap_is_refused_unread() {
    let home = Fake::start(|_| {
        let filler = "<!-- padding -->".repeat(MAX_ANSWER_BYTES / 16 + 1);
        let (status, _, body) = multistatus(&filler);
        // No length announced: only reading incrementally can stop it.
        (status, vec![(UNSIZED.into(), "1".into())], body)
    });
    let outcome = discover::calendars(&client(&home.url("/")), &home.url("/"));
    match outcome {
        Err(DavError::TooLarge(why)) => assert!(why.contains("16 MiB"), "{why}"),
        other => panic!("not refused as too large: {other:?}"),
    }
}

fn sync_of(home: &Fake) -> Result<Synced, DavError> {
    let calendar = Url::parse(&home.url("/cal/")).unwrap();
    sync::sync(
        &client(&home.url("/")),
        &calendar,
        &Known::default(),
        sync::Listed::Events,
        BTreeMap::new,
    )
}

#[test]
fn a_calendar_of_too_many_events_is_refused() {
    let home = Fake::start(|seen| match seen.method.as_str() {
        "PROPFIND" => multistatus(&response("/cal/", "")),
        _ => multistatus(
            &(0..=MAX_RESOURCES)
                .map(|n| response(&format!("/cal/{n}.ics"), "<d:getetag>\"1\"</d:getetag>"))
                .collect::<String>(),
        ),
    });
    match sync_of(&home) {
        Err(DavError::TooLarge(why)) => assert!(why.contains("more than 20000 events"), "{why}"),
        other => panic!("not refused: {:?}", other.map(|_| ())),
    }
}

/// One resource over the cap is set aside, named; the other is kept.
#[test]
fn an_event_over_the_cap_is_set_aside_and_the_rest_kept() {
    let small = vevent("small", "Small", "20260105T090000Z");
    let big = vevent("big", &"x".repeat(MAX_RESOURCE_BYTES), "20260105T100000Z");
    let home = Fake::start(move |seen| match seen.method.as_str() {
        "PROPFIND" => multistatus(&response("/cal/", "")),
        _ if seen.body.contains("calendar-multiget") => multistatus(
            &[("/cal/small.ics", &small), ("/cal/big.ics", &big)]
                .iter()
                .map(|(href, ics)| {
                    response(
                        href,
                        &format!(
                            "<d:getetag>\"1\"</d:getetag><c:calendar-data>{ics}</c:calendar-data>"
                        ),
                    )
                })
                .collect::<String>(),
        ),
        _ => multistatus(
            &["/cal/small.ics", "/cal/big.ics"]
                .map(|href| response(href, "<d:getetag>\"1\"</d:getetag>"))
                .concat(),
        ),
    });
    let Ok(Synced::Changed(mut delta)) = sync_of(&home) else {
        panic!("no change read");
    };
    let set_aside = delta.take_set_aside();
    assert_eq!(set_aside.len(), 1, "{set_aside:?}");
    assert_eq!(set_aside[0].0, home.url("/cal/big.ics"));
    assert!(set_aside[0].1.contains("1 MiB"), "{set_aside:?}");
    let mut mirror = Mirror::default();
    delta.apply(&mut mirror, &Url::parse(&home.url("/cal/")).unwrap());
    let kept: Vec<&String> = mirror.resources.keys().collect();
    assert_eq!(kept, [&home.url("/cal/small.ics")]);
}

/// End to end: a calendar URL in the settings on another origin (a script
/// with `settings:write` could put one there) shows as the calendar's
/// error, and the other server is never asked.
#[test]
fn an_off_origin_calendar_url_is_the_calendars_error() {
    let elsewhere = Fake::start(|_| multistatus(""));
    let home = Fake::start(|_| multistatus(""));
    let id = source_id("off-origin");
    Passwords::default().set(&id, "s3cret").unwrap();
    let vault = TestVault::new().with_source(
        &id,
        KindSettings::Caldav {
            url: home.url("/"),
            username: "alice".into(),
            calendar_url: elsewhere.url("/cal/"),
        },
    );
    let calendar = almanac_core::calendar::Calendar::open(&vault.settings, &vault.paths());
    calendar.revalidate(true);
    let error = || {
        calendar
            .sources()
            .into_iter()
            .find(|s| s.id == id)
            .and_then(|s| s.last_error)
    };
    wait_until(&calendar, "the calendar's error", |_| error().is_some());
    let error = error().unwrap();
    assert!(error.contains("outside the account's address"), "{error}");
    assert!(elsewhere.seen().is_empty(), "{:?}", elsewhere.seen());
    let _ = Passwords::default().delete(&id);
}
