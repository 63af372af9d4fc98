//! Wall-clock helpers. Triggers are wall-clock instants (Unix seconds), so the
//! scheduler compares against `SystemTime`, re-read on every wake, never
//! against a monotonic clock that stops during suspend.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) => i64::try_from(since.as_millis()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// Whole seconds since the Unix epoch (rounded down).
pub fn now_epoch() -> i64 {
    now_ms().div_euclid(1000)
}

/// `epoch` as RFC 3339 in UTC, e.g. `2026-05-01T09:00:00+00:00`.
pub fn rfc3339(epoch: i64) -> String {
    chrono::DateTime::from_timestamp(epoch, 0)
        .map(|at| at.to_rfc3339())
        .unwrap_or_else(|| format!("invalid-epoch:{epoch}"))
}

/// A millisecond instant as RFC 3339 with milliseconds.
pub fn rfc3339_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Millis, false))
        .unwrap_or_else(|| format!("invalid-epoch-ms:{ms}"))
}
