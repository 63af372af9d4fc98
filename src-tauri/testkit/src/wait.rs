//! Awaiting a state instead of sleeping.

use std::future::Future;
use std::time::{Duration, Instant};

use almanac_core::calendar::Calendar;

/// Generous upper bound for anything the code under test does in response to
/// a test: CI machines are slow and shared, and a hang must still end the test.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Waits until `ready` holds, re-checking on every change of the calendar's
/// cache. Panics after [`PATIENCE`] naming `what`.
pub fn wait_until(calendar: &Calendar, what: &str, mut ready: impl FnMut(&Calendar) -> bool) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut changes = calendar.subscribe();
    let outcome = runtime.block_on(async {
        tokio::time::timeout(PATIENCE, async {
            loop {
                changes.borrow_and_update();
                if ready(calendar) {
                    return;
                }
                if changes.changed().await.is_err() {
                    return;
                }
            }
        })
        .await
    });
    assert!(
        outcome.is_ok() && ready(calendar),
        "timed out waiting for: {what}"
    );
}

/// Re-evaluates `probe` until it yields `Some`, or panics after [`PATIENCE`]
/// naming `what`. For states that come with no event to await (a port
/// opening, a D-Bus item appearing); the interval is short so the wait ends
/// promptly.
pub async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
