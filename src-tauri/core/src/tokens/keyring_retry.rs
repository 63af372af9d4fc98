//! Tries an unavailable OS keyring again until it answers, so tokens start
//! working without a restart when the keyring comes up after Almanac (a
//! session whose Secret Service starts late, or is unlocked later).
//!
//! The task waits [`FIRST_RETRY`], doubling after each failure up to
//! [`MAX_RETRY`]; a token presented meanwhile wakes it at once (at most once
//! per [`EAGER_RETRY`]), so a client retrying its request is not left waiting
//! for the backoff. Checks themselves never touch the keyring: the request
//! that wakes the retry is still refused, the next ones are not. The task
//! holds the store weakly and ends once the keyring answered or the store
//! is dropped.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::store::{KeyringStatus, TokenStore};

/// The first retry comes this long after the failed start.
pub const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The backoff doubles up to this. Long, because each try wakes the process
/// (a blocking thread, a D-Bus connection): on a server with no keyring at all
/// a 30 s cap was most of its idle wake-ups. Nobody waits for it: a token
/// presented meanwhile wakes the retry at once.
pub const MAX_RETRY: Duration = Duration::from_secs(10 * 60);
/// A refused check wakes the retry only if the last try is at least this old.
pub const EAGER_RETRY: Duration = Duration::from_secs(1);

/// Starts the retry on the current tokio runtime; it ends at once if the
/// keyring is available.
pub fn spawn_keyring_retry(store: &Arc<TokenStore>) -> JoinHandle<()> {
    let wanted = store.keyring_wanted.clone();
    let store = Arc::downgrade(store);
    tokio::spawn(async move {
        let mut delay = FIRST_RETRY;
        loop {
            match store.upgrade() {
                Some(store) if store.keyring_status() != KeyringStatus::Available => {}
                _ => return,
            }
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = wanted.notified() => {}
            }
            let Some(store) = store.upgrade() else { return };
            match tokio::task::spawn_blocking(move || store.retry_keyring()).await {
                Ok(true) => return,
                Ok(false) => delay = (delay * 2).min(MAX_RETRY),
                Err(error) => {
                    tracing::error!(%error, "the keyring retry failed; tokens stay refused");
                    return;
                }
            }
        }
    })
}
