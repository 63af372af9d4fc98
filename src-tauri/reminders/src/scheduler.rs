//! The scheduler: sleeps until the earliest trigger, then fires.
//!
//! It never scans the schedule: it asks the ordered index for its head, and
//! sleeps until that instant (tokio timers have millisecond resolution, so a
//! reminder is shown within a millisecond or two of its trigger). A change
//! of the schedule (sync, snooze) wakes it early.
//!
//! Triggers are wall-clock instants but timers run on the monotonic clock,
//! which does not advance during suspend and ignores clock changes. So no
//! sleep is longer than [`MAX_SLEEP`]: after a resume or a clock jump the
//! head is re-checked against the wall clock within that slice. That is one
//! comparison per slice, not a scan of the set.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::clock;
use crate::engine::{Engine, ON_TIME_LIMIT_MS};

/// Longest single sleep; bounds how late a reminder can be noticed after a
/// resume from suspend or a wall-clock jump.
pub const MAX_SLEEP: Duration = Duration::from_secs(30);

pub(crate) async fn run(engine: Arc<Engine>, mut shutdown: watch::Receiver<bool>) {
    loop {
        engine.settle_due(Some(ON_TIME_LIMIT_MS)).await;
        let sleep = engine.next_trigger_ms().map(|trigger_ms| {
            let wait_ms = u64::try_from(trigger_ms - clock::now_ms()).unwrap_or(0);
            Duration::from_millis(wait_ms).min(MAX_SLEEP)
        });
        tokio::select! {
            () = engine.wake.notified() => {}
            () = tokio::time::sleep(sleep.unwrap_or(MAX_SLEEP)), if sleep.is_some() => {}
            _ = shutdown.changed() => return,
        }
    }
}
