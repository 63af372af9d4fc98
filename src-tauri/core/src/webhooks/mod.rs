//! Webhooks: each change-feed entry a hook asks for, POSTed to its URL in
//! the Standard Webhooks format (`webhook-id`, `webhook-timestamp`,
//! `webhook-signature`), retried with back-off, logged, and the hook turned
//! off after repeated failure. See docs/webhooks.md.
//!
//! Only the user sets hooks: they live in `webhooks.json` in the data
//! folder, which no API route reads or writes, and the settings window
//! (Tauri commands of the shell) is the one way to change them. Each
//! hook's signing secret is shown once when it is made and then kept only
//! in the OS keyring ([`signing`]); a machine without a keyring cannot have
//! hooks.
//!
//! - [`hook`]: a hook and the validation of a new one.
//! - [`store`]: the hooks' file.
//! - [`signing`]: secrets and signatures.
//! - [`send`]: one signed POST.
//! - [`worker`]: following the feed, retries, turning a hook off.
//! - [`queue`]: each hook's bounded queue and its few sends at a time.
//! - [`log`]: the delivery log, written off the async workers.

pub mod hook;
pub mod log;
pub mod queue;
pub mod send;
pub mod signing;
pub mod store;
pub mod worker;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use rand::Rng;
use rand::distr::Alphanumeric;
use tokio::sync::Notify;
use uuid::Uuid;

pub use hook::{ENTRY_TYPES, Hook, InvalidHook, NewHook};
pub use log::{Delivery, DeliveryLog, Skipped};
pub use queue::{QUEUE_BOUND, SENDS_AT_ONCE};
pub use signing::{KeyringSigningSecrets, SigningSecret, SigningSecrets};
pub use store::HookStore;
pub use worker::RetryPolicy;

use crate::changes::{Change, ChangeFeed};
use crate::settings::redact::redact_feed_url;
use crate::tokens::SecretStoreError;

/// Most hooks one instance keeps.
pub const MAX_HOOKS: usize = 20;

/// The hooks' file in the data folder.
pub const HOOKS_FILE: &str = "webhooks.json";
/// The delivery log's file in the data folder.
pub const LOG_FILE: &str = "webhook-deliveries.json";

/// Why a webhook operation was refused. Nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error(transparent)]
    Invalid(#[from] InvalidHook),
    #[error("there is no webhook {0}")]
    NotFound(Uuid),
    #[error("at most {MAX_HOOKS} webhooks can be set")]
    TooMany,
    #[error("the webhooks cannot be used: {0}; fix or remove the file")]
    Unreadable(String),
    #[error("the signing secret cannot be kept: {0}")]
    Keyring(#[from] SecretStoreError),
    #[error("the webhooks file could not be written: {0}")]
    Write(#[from] std::io::Error),
}

/// A new hook and its secret, which is never shown again.
#[derive(Debug)]
pub struct CreatedHook {
    pub hook: Hook,
    pub secret: SigningSecret,
}

/// What the worker and the settings window share.
struct Shared {
    store: Mutex<HookStore>,
    /// Why the hooks' file could not be read at start: until it can,
    /// nothing is delivered or changed (the file is left as it is).
    unreadable: Option<String>,
    log: Mutex<DeliveryLog>,
    /// Wakes the log's writer ([`log::spawn_writer`]).
    log_changed: Arc<Notify>,
    /// Each hook's queue, made with its first entry.
    queues: Mutex<HashMap<Uuid, Arc<queue::HookQueue>>>,
    secrets: Arc<dyn SigningSecrets>,
    policy: RetryPolicy,
    client: reqwest::Client,
    /// Random per run: change-feed ids start again at 1 with each run.
    run: String,
}

/// An instance's webhooks. Cheap to clone.
#[derive(Clone)]
pub struct Webhooks {
    shared: Arc<Shared>,
}

impl Webhooks {
    /// The hooks kept in `data_dir`, their secrets in `secrets`, delivered
    /// by `policy`. Nothing is delivered until [`Webhooks::follow`].
    pub fn open(data_dir: &Path, secrets: Arc<dyn SigningSecrets>, policy: RetryPolicy) -> Self {
        let path = data_dir.join(HOOKS_FILE);
        let (store, unreadable) = match HookStore::open(&path) {
            Ok(store) => (store, None),
            Err(error) => {
                tracing::error!(%error, "webhooks are off until their file can be read");
                (HookStore::empty(&path), Some(error))
            }
        };
        let run = rand::rng()
            .sample_iter(Alphanumeric)
            .take(10)
            .map(char::from)
            .collect();
        let client = send::client(policy.timeout);
        Self {
            shared: Arc::new(Shared {
                store: Mutex::new(store),
                unreadable,
                log: Mutex::new(DeliveryLog::open(&data_dir.join(LOG_FILE))),
                log_changed: Arc::default(),
                queues: Mutex::default(),
                secrets,
                policy,
                client,
                run,
            }),
        }
    }

    /// Delivers the entries `feed` gets from now on. Needs a tokio runtime;
    /// stops when every clone of `self` is dropped.
    pub fn follow(&self, feed: ChangeFeed) {
        worker::spawn(Arc::downgrade(&self.shared), feed);
        log::spawn_writer(Arc::downgrade(&self.shared));
    }

    /// The hooks, in the order they were made.
    pub fn hooks(&self) -> Result<Vec<Hook>, WebhookError> {
        Ok(self.shared.store()?.hooks().to_vec())
    }

    /// Adds a hook, enabled, with a new signing secret stored in the
    /// keyring. Blocks on the keyring. When the keyring or the file cannot
    /// be written, nothing is kept.
    pub fn create(&self, new: NewHook) -> Result<CreatedHook, WebhookError> {
        let hook = new.validated(chrono::Utc::now())?;
        let secret = SigningSecret::generate();
        let mut store = self.shared.store()?;
        if store.hooks().len() >= MAX_HOOKS {
            return Err(WebhookError::TooMany);
        }
        self.shared
            .secrets
            .set(hook.id, &keyring_label(&hook.url), &secret)?;
        if let Err(error) = store.update(|hooks| hooks.push(hook.clone())) {
            let _ = self.shared.secrets.delete(hook.id);
            return Err(error.into());
        }
        tracing::info!(id = %hook.id, url = %redact_feed_url(&hook.url), "webhook added");
        Ok(CreatedHook { hook, secret })
    }

    /// Turns a hook on or off. Turning it on clears why it was turned off
    /// and its count of failures.
    pub fn set_enabled(&self, id: Uuid, enabled: bool) -> Result<Hook, WebhookError> {
        let mut store = self.shared.store()?;
        store.get(id).ok_or(WebhookError::NotFound(id))?;
        let hook = store.update(|hooks| {
            let hook = hooks.iter_mut().find(|h| h.id == id).expect("found above");
            hook.enabled = enabled;
            if enabled {
                hook.disabled_reason = None;
                hook.consecutive_failures = 0;
            }
            hook.clone()
        })?;
        if !enabled {
            self.shared.clear_queue(id, false);
        }
        Ok(hook)
    }

    /// Deletes a hook, its secret and its log. Blocks on the keyring. The
    /// hook is gone even if the keyring cannot drop the secret (logged).
    pub fn delete(&self, id: Uuid) -> Result<(), WebhookError> {
        let mut store = self.shared.store()?;
        store.get(id).ok_or(WebhookError::NotFound(id))?;
        store.update(|hooks| hooks.retain(|h| h.id != id))?;
        drop(store);
        self.shared.clear_queue(id, true);
        self.shared.log().forget(id);
        self.shared.log_changed.notify_one();
        if let Err(error) = self.shared.secrets.delete(id) {
            tracing::warn!(%id, %error, "webhook deleted, but its secret is still in the keyring");
        }
        tracing::info!(%id, "webhook deleted");
        Ok(())
    }

    /// Hook `id`'s last attempts, oldest first.
    pub fn deliveries(&self, id: Uuid) -> Result<Vec<Delivery>, WebhookError> {
        self.shared
            .store()?
            .get(id)
            .ok_or(WebhookError::NotFound(id))?;
        Ok(self.shared.log().of(id))
    }
}

impl Shared {
    fn store(&self) -> Result<MutexGuard<'_, HookStore>, WebhookError> {
        match &self.unreadable {
            Some(error) => Err(WebhookError::Unreadable(error.clone())),
            None => Ok(self.store.lock().unwrap_or_else(|p| p.into_inner())),
        }
    }

    fn log(&self) -> MutexGuard<'_, DeliveryLog> {
        self.log.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The hooks `change` goes to now.
    fn hooks_wanting(&self, change: &Change) -> Vec<Uuid> {
        self.store()
            .map(|s| {
                s.hooks()
                    .iter()
                    .filter(|h| h.wants(change.about.kind))
                    .map(|h| h.id)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Hook `id`'s URL while it exists and is on.
    fn enabled_url(&self, id: Uuid) -> Option<String> {
        let store = self.store().ok()?;
        store.get(id).filter(|h| h.enabled).map(|h| h.url.clone())
    }

    fn record(&self, id: Uuid, delivery: Delivery) {
        if let Some(error) = &delivery.error {
            tracing::info!(%id, attempt = delivery.attempt, %error, "webhook attempt failed");
        }
        self.log().record(id, delivery);
        self.log_changed.notify_one();
    }

    /// `change` was dropped from hook `id`'s full queue: the log counts it.
    fn skipped(&self, id: Uuid, change: &Change) {
        let webhook_id = worker::webhook_id(&self.run, change.id);
        if self.log().skipped(id, webhook_id, change) {
            tracing::warn!(
                %id,
                from_entry = change.id,
                "a webhook's queue is full; its oldest entries are not sent (counted in its log)"
            );
        }
        self.log_changed.notify_one();
    }

    /// Hook `id`'s queue, made on first use.
    fn queue(&self, id: Uuid) -> Arc<queue::HookQueue> {
        let mut queues = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        queues.entry(id).or_default().clone()
    }

    /// Drops what waits for hook `id` (turned off: changes made while off
    /// are not sent later), and its queue itself when it is `deleted`.
    fn clear_queue(&self, id: Uuid, deleted: bool) {
        let mut queues = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        let queue = if deleted {
            queues.remove(&id)
        } else {
            queues.get(&id).cloned()
        };
        if let Some(queue) = queue {
            queue.clear();
        }
    }

    /// A delivery succeeded: the run of failures is over.
    fn delivered(&self, id: Uuid) {
        let Ok(mut store) = self.store() else { return };
        if store.get(id).is_some_and(|h| h.consecutive_failures > 0) {
            let reset = store.update(|hooks| {
                hooks
                    .iter_mut()
                    .filter(|h| h.id == id)
                    .for_each(|h| h.consecutive_failures = 0)
            });
            if let Err(error) = reset {
                tracing::warn!(%id, %error, "could not record a webhook's recovery");
            }
        }
    }

    /// A delivery failed every attempt: count it, and turn the hook off
    /// after [`RetryPolicy::disable_after`] in a row.
    fn failed(&self, id: Uuid, last_error: &str) {
        let limit = self.policy.disable_after;
        let Ok(mut store) = self.store() else { return };
        let counted = store.update(|hooks| {
            let hook = hooks.iter_mut().find(|h| h.id == id)?;
            hook.consecutive_failures += 1;
            if hook.enabled && hook.consecutive_failures >= limit {
                hook.enabled = false;
                hook.disabled_reason = Some(format!(
                    "Turned off after {} deliveries in a row failed (the last: {last_error}).",
                    hook.consecutive_failures
                ));
                return Some(true);
            }
            Some(false)
        });
        match counted {
            Ok(Some(true)) => {
                tracing::warn!(%id, "webhook turned off after repeated failed deliveries");
                self.clear_queue(id, false);
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%id, %error, "could not record a failed webhook delivery"),
        }
    }
}

impl Drop for Shared {
    /// The log's last changes, which its writer had no time for. Nothing
    /// else holds the webhooks now, so this is the only writer.
    fn drop(&mut self) {
        log::save(&self.log);
        self.log_changed.notify_one();
    }
}

/// The label of a hook's signing secret in the keyring, which any program
/// of the user's session can list: the address's scheme, host and port only
/// (its path and query often carry a secret of the receiver's).
fn keyring_label(url: &str) -> String {
    format!("Almanac webhook to {}", redact_feed_url(url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hooks_keyring_label_names_its_host_not_its_path() {
        let label = keyring_label("https://hooks.example.com:8443/T0/B1/s3cret?token=abc");
        assert_eq!(
            label,
            "Almanac webhook to https://hooks.example.com:8443/***?***"
        );
    }
}
