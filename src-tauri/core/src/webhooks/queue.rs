//! One hook's queue: the entries waiting for it, at most [`QUEUE_BOUND`],
//! and at most [`SENDS_AT_ONCE`] of them being delivered.
//!
//! A receiver that never answers holds each attempt for the policy's
//! timeout and each delivery for all its retries (about thirteen minutes).
//! Without a bound every change made meanwhile would wait for it in memory,
//! each on a task and a connection of its own. With it, one hook costs at
//! most [`QUEUE_BOUND`] waiting entries and [`SENDS_AT_ONCE`] sends, however
//! many changes come and however its receiver behaves.
//!
//! Past the bound the oldest waiting entry is dropped: a receiver that comes
//! back wants what is happening now first, and the entries it missed are
//! still in the change feed (`GET /api/v1/changes?since=…`, the last
//! [`crate::changes::HISTORY`] entries), which the delivery log names.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::changes::Change;

/// Entries waiting for one hook, besides those being sent.
pub const QUEUE_BOUND: usize = 1_000;

/// Deliveries to one hook under way at once (each with its retries).
pub const SENDS_AT_ONCE: usize = 4;

/// What [`HookQueue::push`] did.
#[derive(Debug, Default)]
pub(super) struct Pushed {
    /// The oldest waiting entry, dropped to make room.
    pub dropped: Option<Arc<Change>>,
    /// The caller starts a sender: fewer than [`SENDS_AT_ONCE`] were running.
    pub start_sender: bool,
}

#[derive(Debug, Default)]
struct State {
    waiting: VecDeque<Arc<Change>>,
    /// Senders running: each takes entries until none wait.
    senders: usize,
}

/// One hook's queue. Its senders are tasks that take entries with
/// [`HookQueue::next`] until it answers `None`, so no task waits for an
/// entry, and a hook with nothing to send has none.
#[derive(Debug, Default)]
pub(super) struct HookQueue {
    state: Mutex<State>,
}

impl HookQueue {
    /// Adds `change` behind the others.
    pub fn push(&self, change: Arc<Change>) -> Pushed {
        let mut state = self.lock();
        state.waiting.push_back(change);
        let dropped = if state.waiting.len() > QUEUE_BOUND {
            state.waiting.pop_front()
        } else {
            None
        };
        let start_sender = state.senders < SENDS_AT_ONCE;
        if start_sender {
            state.senders += 1;
        }
        Pushed {
            dropped,
            start_sender,
        }
    }

    /// The next entry for a sender, or `None`: the sender ends (it is no
    /// longer counted, so the next push starts another).
    pub fn next(&self) -> Option<Arc<Change>> {
        let mut state = self.lock();
        let next = state.waiting.pop_front();
        if next.is_none() {
            state.senders -= 1;
        }
        next
    }

    /// Drops every waiting entry (the hook was turned off or deleted).
    pub fn clear(&self) {
        self.lock().waiting.clear();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change to the state is complete before it can panic.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::{About, ChangeKind};

    fn change(id: u64) -> Arc<Change> {
        Arc::new(Change {
            id,
            at: String::new(),
            about: About::calendar(ChangeKind::EventCreated, "c", None),
        })
    }

    #[test]
    fn a_webhook_queue_starts_a_few_senders_and_drops_its_oldest_past_the_bound() {
        let queue = HookQueue::default();
        let mut started = 0;
        let mut dropped = Vec::new();
        for id in 1..=(QUEUE_BOUND + 10) as u64 {
            let pushed = queue.push(change(id));
            started += usize::from(pushed.start_sender);
            dropped.extend(pushed.dropped.map(|c| c.id));
        }
        assert_eq!(started, SENDS_AT_ONCE, "no sender has taken an entry yet");
        assert_eq!(dropped, (1..=10).collect::<Vec<_>>());
        assert_eq!(queue.next().map(|c| c.id), Some(11));

        queue.clear();
        for _ in 0..SENDS_AT_ONCE {
            assert!(queue.next().is_none(), "each sender ends on an empty queue");
        }
        assert!(
            queue.push(change(1)).start_sender,
            "and a push starts one again"
        );
    }
}
