//! The CalDAV server's request bodies (DAV XML: `PROPFIND` and `REPORT`
//! with `calendar-query`, `calendar-multiget`, `sync-collection`), sent
//! through the real server (`caldav_server::router`) of a real core with a few
//! events. The first byte picks the request; the rest is the body. No body
//! may panic it or get a 5xx, and every `207` it answers is a multistatus
//! the CalDAV client's own parser reads.
#![no_main]

mod common;

use axum::body::Body;
use base64::Engine;
use libfuzzer_sys::fuzz_target;

/// (method, path, Depth) of the requests a client makes with a body.
const REQUESTS: &[(&str, &str, &str)] = &[
    ("PROPFIND", "/", "0"),
    ("PROPFIND", "/principal/", "0"),
    ("PROPFIND", "/calendars/", "1"),
    ("PROPFIND", "/calendars/local/", "1"),
    ("PROPFIND", "/calendars/local/", "0"),
    ("REPORT", "/calendars/local/", "1"),
    ("REPORT", "/calendars/", "1"),
];

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let (method, path, depth) = REQUESTS[usize::from(pick) % REQUESTS.len()];
    let live = common::live();
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("fuzz:{}", live.events_token));
    let request = live
        .request(method, path)
        .header("authorization", format!("Basic {basic}"))
        .header("depth", depth)
        .header("content-type", "application/xml; charset=utf-8")
        .body(Body::from(body.to_vec()))
        .expect("a request");
    let answer = live.send(&live.caldav, request);
    assert!(
        !answer.status.is_server_error(),
        "{method} {path}: {} {}",
        answer.status,
        String::from_utf8_lossy(&answer.body)
    );
    if answer.status.as_u16() == 207 {
        let text = std::str::from_utf8(&answer.body).expect("a 207 is UTF-8");
        let base = format!("http://127.0.0.1:{}{path}", common::PORT);
        if let Err(error) = almanac_core::fuzzing::dav_answer(&base, text) {
            panic!("{method} {path}: the 207 does not read back: {error}\n{text}");
        }
    }
});
