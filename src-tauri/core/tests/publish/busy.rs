//! A busy server (429, 503): the pass ends with the wait it asked for,
//! names it in the status, and changes no note.

use std::io::Write;
use std::time::Duration;

use almanac_core::calendar::sources::caldav::DavError;
use almanac_core::publish::pass::PassError;
use almanac_testkit::HttpStub;

use crate::publish::support::{CALENDAR, Server, Setup};

const NOTE: &str = "events/2026-05-01 Call.md";
const TEXT: &str = "---\ntitle: Call\nallDay: true\ndate: 2026-05-01\n---\nAsk about it.\n";

/// A server that answers every request `status` with `Retry-After: 120`.
struct Busy(HttpStub);

impl Busy {
    fn start(status: &'static str) -> Busy {
        Busy(HttpStub::start(move |stream| {
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nRetry-After: 120\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }))
    }
}

impl Server for Busy {
    fn collection(&self) -> String {
        format!("http://{}/alice/work/", self.0.addr)
    }
    fn user(&self) -> &str {
        "alice"
    }
    fn password(&self) -> &str {
        "secret"
    }
    fn stop(&mut self) {}
    fn resume(&mut self) {}
}

#[test]
fn a_busy_server_ends_the_pass_with_its_retry_after_and_no_note_changes() {
    for status in ["429 Too Many Requests", "503 Service Unavailable"] {
        let server = Busy::start(status);
        let setup = Setup::new(&server, &[(NOTE, TEXT)]);
        match setup.try_sync() {
            Err(PassError::Server(DavError::Busy(wait))) => {
                assert_eq!(wait, Duration::from_secs(120), "{status}");
            }
            other => panic!("{status}: {other:?}"),
        }
        assert_eq!(server.0.requests(), 1, "one request, not a retry loop");
        let last = setup.publisher.status(CALENDAR).last_error.unwrap();
        assert!(last.contains("busy") && last.contains("120 s"), "{last}");
        assert_eq!(setup.vault.read(NOTE), TEXT, "{status}: the note as it was");
    }
}
