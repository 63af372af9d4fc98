//! Announces a token reaching its expiry time, so whoever shows the token
//! list (the settings window) learns of it like of a create or a revoke:
//! [`AppEvent::TokensChanged`] on the event bus. Checks need none of this;
//! they compare with the clock on every request.
//!
//! The task sleeps until the next live token expires and wakes early on any
//! event on the bus (a new or revoked token changes what "next" is). It holds
//! the store weakly and ends with the bus.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::store::TokenStore;
use crate::events::AppEvent;

/// Starts the announcer on the current tokio runtime.
pub fn spawn_expiry_announcer(store: &Arc<TokenStore>) -> JoinHandle<()> {
    let mut events = store.events.subscribe();
    let store = Arc::downgrade(store);
    tokio::spawn(async move {
        loop {
            let Some(wait) = store.upgrade().map(|store| store.until_next_expiry()) else {
                return;
            };
            let expired = async {
                match wait {
                    Some(wait) => tokio::time::sleep(wait).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = expired => {
                    let Some(store) = store.upgrade() else { return };
                    store.events.publish(AppEvent::TokensChanged);
                }
                delivery = events.recv() => if delivery.is_none() { return },
            }
        }
    })
}
