//! What one CalDAV request may ask of the server, and how many are worked
//! at once. Every figure is listed in docs/security.md ("CalDAV server
//! requests"); the figures leave room for the largest legitimate client
//! seen: a 10,000-note vault (about 9,000 resources) that vdirsyncer fetches
//! with a single `calendar-multiget` of every href.

use std::sync::Arc;
use std::time::Duration;

use axum::http::Method;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::DavRefusal;
use crate::loopback_server::BODY_LIMIT;

/// Distinct property names one `prop` may ask for (repeats count once).
/// Clients ask for a dozen at most.
pub const MAX_PROPERTIES: usize = 64;

/// Distinct hrefs in one `calendar-multiget`. vdirsyncer asks for every
/// resource it lacks in one request, so this is above the largest vault's
/// resource count rather than the hundred clients batch by.
pub const MAX_HREFS: usize = 10_000;

/// `prop-filter`s in one `calendar-query`: each is matched against every
/// resource's text, so their number multiplies the work.
pub const MAX_PROP_FILTERS: usize = 64;

/// XML elements and attributes in one request body: a multiget of
/// [`MAX_HREFS`] hrefs and its envelope fit.
pub const MAX_XML_NODES: usize = 2 * MAX_HREFS;

/// `PROPFIND` bodies: a list of property names is a few hundred bytes.
pub const PROPFIND_BODY_LIMIT: usize = 64 * 1024;

/// The bytes of one `207 Multi-Status` answer. The 10,000-note vault's
/// `PROPFIND` of every resource's `getetag` is about 2.5 MB, its
/// `calendar-data` about 10 MB; past this the request is refused with `507`
/// (RFC 4918 §11.5) rather than answered in part.
pub const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;

/// Requests worked at once (the blocking work of every method). The machine
/// this runs on has a few cores: more at once only multiplies memory.
pub const CONCURRENT_REQUESTS: usize = 4;

/// How long a request waits for its turn before it is refused with `503`.
pub const QUEUE_WAIT: Duration = Duration::from_secs(10);

/// The `Retry-After` of that `503`, in seconds.
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// The largest body `method` may carry: `PUT` and `REPORT` (a multiget of
/// [`MAX_HREFS`] hrefs) take the REST server's 1 MiB, `PROPFIND` less, and
/// methods that read no body the same small amount.
pub fn body_limit(method: &Method) -> usize {
    match method.as_str() {
        "PUT" | "REPORT" => BODY_LIMIT,
        _ => PROPFIND_BODY_LIMIT,
    }
}

/// Admits at most `permits` requests to their work at once; the others
/// wait up to `wait`, then are refused.
#[derive(Debug, Clone)]
pub struct Gate {
    permits: Arc<Semaphore>,
    wait: Duration,
}

impl Default for Gate {
    fn default() -> Self {
        Self::new(CONCURRENT_REQUESTS, QUEUE_WAIT)
    }
}

impl Gate {
    pub fn new(permits: usize, wait: Duration) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(permits)),
            wait,
        }
    }

    /// A turn, held until the permit is dropped; `503` with `Retry-After`
    /// when none frees up in time.
    pub async fn enter(&self) -> Result<OwnedSemaphorePermit, DavRefusal> {
        let acquire = self.permits.clone().acquire_owned();
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(permit),
            // The semaphore is never closed; a timeout is the only refusal.
            _ => Err(DavRefusal::Busy {
                message: format!(
                    "the CalDAV server is busy with other requests; try again in \
                     {RETRY_AFTER_SECONDS} s"
                ),
                retry_after: RETRY_AFTER_SECONDS,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;

    use super::*;

    #[tokio::test]
    async fn a_full_gate_refuses_with_retry_after_then_admits_again() {
        let gate = Gate::new(1, Duration::from_millis(20));
        let held = gate.enter().await.unwrap();
        let refused = gate.enter().await.unwrap_err().into_response();
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "5");
        drop(held);
        assert!(gate.enter().await.is_ok());
    }

    #[tokio::test]
    async fn a_waiting_request_gets_the_turn_that_frees_up() {
        let gate = Gate::new(1, Duration::from_secs(30));
        let held = gate.enter().await.unwrap();
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gate.enter().await.map(drop) }
        });
        drop(held);
        assert!(waiting.await.unwrap().is_ok());
    }

    #[test]
    fn bodies_are_capped_per_method() {
        assert_eq!(body_limit(&Method::PUT), BODY_LIMIT);
        assert_eq!(
            body_limit(&Method::from_bytes(b"REPORT").unwrap()),
            BODY_LIMIT
        );
        assert_eq!(
            body_limit(&Method::from_bytes(b"PROPFIND").unwrap()),
            PROPFIND_BODY_LIMIT
        );
    }
}
