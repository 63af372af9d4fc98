//! The CalDAV port within its connection bounds (docs/security.md,
//! "Connections"): served by the same loopback listener as REST and the
//! reminder daemon, so a client trickling its headers is dropped after the
//! header-read timeout here too.

use std::net::SocketAddr;

use crate::caldav::support::CaldavHarness;

#[tokio::test]
async fn a_client_trickling_its_headers_is_dropped_after_ten_seconds() {
    let instance = CaldavHarness::start().await;
    let addr: SocketAddr = instance.base.trim_start_matches("http://").parse().unwrap();
    almanac_testkit::net::assert_trickled_headers_dropped_after_ten_seconds(addr).await;
    // The server still answers.
    let answer = instance.as_client(None).send("OPTIONS", "/").await;
    assert!(answer.status().is_success(), "{answer:?}");
}
