//! The reminder daemon's defaults. Almanac's settings (`settings.reminders`
//! in `almanac-core`) and the daemon's configuration (`DaemonConfig` in
//! `almanac-reminders`) both start from these, so the two cannot drift; the
//! shell has a test that the default settings make the default daemon.

/// The daemon's loopback port (spec B, Limits).
pub const REMINDER_PORT: u16 = 45677;

/// Reminders missed while the app was closed fire on start if at most this
/// many hours old; older ones are dropped.
pub const GRACE_WINDOW_HOURS: u32 = 24;

/// The `action_url` schemes a reminder may carry.
pub const ALLOWED_SCHEMES: [&str; 4] = ["obsidian", "http", "https", "mailto"];

/// [`ALLOWED_SCHEMES`] as the owned list both configurations hold.
pub fn allowed_schemes() -> Vec<String> {
    ALLOWED_SCHEMES.map(String::from).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owned_schemes_are_the_constant_ones() {
        assert_eq!(allowed_schemes(), ALLOWED_SCHEMES);
    }
}
