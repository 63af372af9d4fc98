//! Writes tokens' "last used" times to disk in the background.
//!
//! A check only stores the time in memory and, the first time after a write,
//! wakes this task. The task then waits a debounce interval, so a burst of
//! requests costs one file write, and saves. While nothing happens it sleeps on
//! a notification: no polling. It holds the store weakly; dropping the store
//! (which saves pending times itself) ends it.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::store::TokenStore;

/// How long after a token's first use its time is written, by default.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_secs(5);

/// Starts the writer on the current tokio runtime.
pub fn spawn_last_used_writer(store: &Arc<TokenStore>, debounce: Duration) -> JoinHandle<()> {
    let changed = store.last_used_changed.clone();
    let store = Arc::downgrade(store);
    tokio::spawn(async move {
        loop {
            changed.notified().await;
            tokio::time::sleep(debounce).await;
            let Some(store) = store.upgrade() else { return };
            let flushed = tokio::task::spawn_blocking(move || store.flush_last_used()).await;
            match flushed {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "could not save token last-used times"),
                Err(e) => tracing::warn!(error = %e, "token last-used writer failed"),
            }
        }
    })
}
