//! The REST query string of `GET /api/v1/events` (calendar ids, text
//! search, flags, range bounds in every accepted form), sent through the
//! real REST router of a real core with a few events. No query may panic
//! it or get a 5xx, and every refusal is the spec's JSON error.
#![no_main]

mod common;

use axum::body::Body;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Ok(query) = std::str::from_utf8(data) else {
        return;
    };
    let live = common::live();
    // What an HTTP client cannot send (no valid request line) never
    // reaches the router.
    let Ok(request) = live
        .request("GET", &format!("/api/v1/events?{query}"))
        .header("authorization", format!("Bearer {}", live.events_token))
        .body(Body::empty())
    else {
        return;
    };
    let answer = live.send(&live.rest, request);
    common::assert_rest_answer(&answer, query);
});
