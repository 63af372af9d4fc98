//! Following the change feed and delivering each entry to the hooks that
//! want it: every attempt signed afresh, retried after the policy's delays,
//! each attempt in the delivery log, and a hook turned off after too many
//! failed deliveries in a row.
//!
//! Each hook has a queue of its own ([`super::queue`]) and up to
//! [`super::SENDS_AT_ONCE`] deliveries under way, so a slow receiver holds back
//! only its own deliveries, and costs a bounded number of tasks and
//! connections; entries may arrive out of order, and carry their feed id
//! (`data.id`) for a receiver that cares.

use std::sync::{Arc, Weak};
use std::time::Duration;

use chrono::Utc;
use serde_json::json;
use uuid::Uuid;

use super::Shared;
use super::hook::type_name;
use super::log::Delivery;
use super::queue::HookQueue;
use super::send::{self, Outcome, Outgoing};
use crate::changes::{Change, ChangeFeed, Gone};

/// How often an idle follower checks that its [`super::Webhooks`] still exists.
const IDLE_CHECK: Duration = Duration::from_secs(60);

/// When to try again and when to give up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The waits before the second, third… attempt; one attempt more than
    /// there are delays.
    pub delays: Vec<Duration>,
    /// Deliveries in a row that fail every attempt before the hook is
    /// turned off.
    pub disable_after: u32,
    /// How long one attempt may take.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    /// Five attempts over about thirteen minutes; off after five failed
    /// deliveries in a row.
    fn default() -> Self {
        Self {
            delays: [5, 30, 120, 600].map(Duration::from_secs).to_vec(),
            disable_after: 5,
            timeout: Duration::from_secs(10),
        }
    }
}

/// Follows `feed` from its current entry on, on the current tokio runtime,
/// until the webhooks behind `shared` are dropped.
pub(super) fn spawn(shared: Weak<Shared>, feed: ChangeFeed) {
    tokio::spawn(async move {
        let mut cursor = feed.last_id();
        loop {
            feed.wait_after(cursor, IDLE_CHECK).await;
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let entries = match feed.since(cursor) {
                Ok(entries) => entries,
                Err(Gone { current }) => {
                    tracing::warn!(
                        missed_after = cursor,
                        current,
                        "webhooks fell behind the change feed's history; entries were not delivered"
                    );
                    cursor = current;
                    continue;
                }
            };
            for change in entries {
                cursor = change.id;
                let change = Arc::new(change);
                for hook in shared.hooks_wanting(&change) {
                    enqueue(&shared, hook, change.clone());
                }
            }
        }
    });
}

/// Puts `change` in hook `hook`'s queue, counting the entry dropped to make
/// room, and starts a sender when fewer than [`super::SENDS_AT_ONCE`] run.
fn enqueue(shared: &Arc<Shared>, hook: Uuid, change: Arc<Change>) {
    let queue = shared.queue(hook);
    let pushed = queue.push(change);
    if let Some(dropped) = pushed.dropped {
        shared.skipped(hook, &dropped);
    }
    if pushed.start_sender {
        tokio::spawn(send_from(Arc::downgrade(shared), hook, queue));
    }
}

/// One of hook `hook`'s senders: delivers the entries of its queue one after
/// the other until none wait.
async fn send_from(shared: Weak<Shared>, hook: Uuid, queue: Arc<HookQueue>) {
    while let Some(change) = queue.next() {
        // Gone with the webhooks: so are their queues.
        let Some(shared) = shared.upgrade() else {
            return;
        };
        deliver(shared, hook, &change).await;
    }
}

/// The `webhook-id` of every attempt to deliver entry `entry_id`. Feed ids
/// start again with each run: the run's nonce keeps them unique.
pub(super) fn webhook_id(run: &str, entry_id: u64) -> String {
    format!("msg_{run}_{entry_id}")
}

/// Delivers `change` to hook `hook`: up to one attempt more than the
/// policy has delays, stopping early when the hook is turned off or deleted.
async fn deliver(shared: Arc<Shared>, hook: Uuid, change: &Change) {
    let webhook_id = webhook_id(&shared.run, change.id);
    let entry_type = type_name(change.about.kind);
    let body = json!({ "type": entry_type, "timestamp": change.at, "data": change });
    let body = serde_json::to_vec(&body).expect("a change serializes");
    let outgoing = Outgoing {
        webhook_id: &webhook_id,
        body: &body,
    };
    let mut last_error = String::new();
    for attempt in 1..=shared.policy.delays.len() as u32 + 1 {
        if let Some(wait) = attempt
            .checked_sub(2)
            .and_then(|i| shared.policy.delays.get(i as usize))
        {
            tokio::time::sleep(*wait).await;
        }
        let Some(url) = shared.enabled_url(hook) else {
            return;
        };
        let outcome = match signing_key(&shared, hook).await {
            Ok(key) => send::attempt(&shared.client, &url, &key, &outgoing).await,
            Err(error) => Outcome::Failed {
                status: None,
                error,
            },
        };
        let (ok, status, error) = match &outcome {
            Outcome::Delivered(status) => (true, Some(*status), None),
            Outcome::Failed { status, error } => (false, *status, Some(error.clone())),
        };
        shared.record(
            hook,
            Delivery {
                at: Utc::now(),
                webhook_id: webhook_id.clone(),
                entry_id: change.id,
                entry_type: entry_type.clone(),
                attempt,
                status,
                error: error.clone(),
                ok,
                skipped: None,
            },
        );
        if ok {
            shared.delivered(hook);
            return;
        }
        last_error = error.unwrap_or_default();
    }
    shared.failed(hook, &last_error);
}

/// The hook's HMAC key, read from the keyring (off the async workers: the
/// keyring blocks).
async fn signing_key(shared: &Arc<Shared>, hook: Uuid) -> Result<Vec<u8>, String> {
    let secrets = shared.secrets.clone();
    let read = tokio::task::spawn_blocking(move || secrets.get(hook))
        .await
        .map_err(|e| format!("reading the signing secret failed: {e}"))?;
    match read {
        Ok(Some(secret)) => secret
            .key()
            .ok_or_else(|| "the signing secret in the keyring is not a whsec_ secret".into()),
        Ok(None) => Err("the signing secret is missing from the keyring".into()),
        Err(e) => Err(e.to_string()),
    }
}
