//! Keeping the engine in step with the settings: the engine subscribes to the
//! [`SettingsStore`]'s change channel, the one "settings changed" path, so
//! an update reaches it whoever made it (REST, the in-process API, the
//! windows, the tray or the store itself). The same thread retries an
//! unavailable vault, so the engine recovers once the folder can be used.

use std::sync::Arc;
use std::time::Duration;

use crate::calendar::engine::Calendar;
use crate::settings::SettingsStore;

/// How often an unavailable vault is tried again. Trying is cheap (a stat
/// and a `mkdir`), and a user who fixes the folder should not wait long.
pub const VAULT_RETRY: Duration = Duration::from_secs(2);

impl Calendar {
    /// The work of [`Calendar::follow`].
    pub(in crate::calendar) fn follow_store(&self, store: &Arc<SettingsStore>) {
        let mut changes = store.subscribe();
        let store = Arc::downgrade(store);
        *crate::calendar::engine::lock(&self.inner.settings) = store.clone();
        let engine = Arc::downgrade(&self.inner);
        let spawned = std::thread::Builder::new()
            .name("almanac-calendar-settings".into())
            .spawn(move || {
                // The channel is async; a small runtime of its own lets this
                // thread wait on it (and on the retry timer) without needing
                // the caller's.
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        tracing::error!(%error, "cannot follow settings changes");
                        return;
                    }
                };
                runtime.block_on(async move {
                    loop {
                        let (Some(inner), Some(store)) = (engine.upgrade(), store.upgrade()) else {
                            return;
                        };
                        let calendar = Calendar { inner };
                        changes.mark_unchanged();
                        // Changes made before this thread started count too.
                        calendar.catch_up(&store);
                        let retrying = !calendar.vault_status().is_available();
                        drop((calendar, store));
                        if retrying {
                            if let Ok(Err(_)) =
                                tokio::time::timeout(VAULT_RETRY, changes.changed()).await
                            {
                                return;
                            }
                        } else if changes.changed().await.is_err() {
                            return;
                        }
                    }
                });
            });
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot start following settings changes");
        }
    }
}
