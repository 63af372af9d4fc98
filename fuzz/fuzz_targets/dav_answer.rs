//! DAV XML as the CalDAV client reads a server's answers
//! (`parse_multistatus`, then the properties discovery and sync look at).
//! A server is outside input: no answer may panic the client or overflow
//! its stack, and every href it keeps is resolved to an absolute URL.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let _ = almanac_core::fuzzing::dav_answer("https://dav.example/calendars/me/", body);
});
