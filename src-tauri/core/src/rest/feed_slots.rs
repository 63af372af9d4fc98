//! How many change-feed waits (`GET /changes` streams and long-polls) are
//! open at once: a few per token, and a bound in all well below the port's
//! connection cap ([`MAX_CONNECTIONS`]). Each holds a connection for minutes;
//! without a bound, one token opening hundreds would take every connection
//! the other clients (a calendar app, the window, scripts) need.
//!
//! Past its own bound a token gets `429` with `Retry-After`; past the bound
//! in all, any token gets `503` with `Retry-After`. A slot is given back when
//! its stream or long-poll ends, however it ends (the client going away
//! drops the stream, and the slot with it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use almanac_loopback::connections::MAX_CONNECTIONS;
use uuid::Uuid;

use crate::loopback_server::RestError;
use crate::loopback_server::error::Bound;

/// Open waits one token may hold (a client needs one).
pub const PER_TOKEN: usize = 4;
/// Open waits in all: a quarter of the port's connections.
pub const TOTAL: usize = MAX_CONNECTIONS / 4;

/// The open waits, by token.
#[derive(Debug, Default)]
pub struct FeedSlots {
    open: Mutex<HashMap<Uuid, usize>>,
}

/// One open wait; dropping it gives the slot back.
#[derive(Debug)]
pub struct FeedSlot {
    slots: Arc<FeedSlots>,
    token: Uuid,
}

impl FeedSlots {
    /// A slot for `token`, or the refusal that says why there is none.
    pub fn take(self: &Arc<Self>, token: Uuid) -> Result<FeedSlot, RestError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mine = open.get(&token).copied().unwrap_or(0);
        if mine >= PER_TOKEN {
            return Err(RestError::past_bound(
                Bound::Token,
                format_args!(
                    "this token already follows the change feed {PER_TOKEN} times at once \
                     (the most it may); close one first"
                ),
            ));
        }
        if open.values().sum::<usize>() >= TOTAL {
            return Err(RestError::past_bound(
                Bound::All,
                format_args!(
                    "the change feed is followed {TOTAL} times at once (the most it serves)"
                ),
            ));
        }
        *open.entry(token).or_default() += 1;
        Ok(FeedSlot {
            slots: self.clone(),
            token,
        })
    }
}

impl Drop for FeedSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(mine) = open.get_mut(&self.token) {
            *mine -= 1;
            if *mine == 0 {
                open.remove(&self.token);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_past_its_share_gets_429_and_all_past_the_total_503() {
        let slots = Arc::new(FeedSlots::default());
        let greedy = Uuid::new_v4();
        let held: Vec<FeedSlot> = (0..PER_TOKEN)
            .map(|_| slots.take(greedy).unwrap())
            .collect();
        let refused = slots.take(greedy).unwrap_err();
        assert_eq!(refused.status().as_u16(), 429, "{refused}");
        // Another token still gets one.
        let other = slots.take(Uuid::new_v4()).unwrap();
        drop(other);
        // A slot given back can be taken again.
        drop(held);
        let again: Vec<FeedSlot> = (0..PER_TOKEN)
            .map(|_| slots.take(greedy).unwrap())
            .collect();
        // Fill the rest with many tokens: past the total, everyone waits.
        let mut many = Vec::new();
        while many.len() + again.len() < TOTAL {
            many.push(slots.take(Uuid::new_v4()).unwrap());
        }
        let full = slots.take(Uuid::new_v4()).unwrap_err();
        assert_eq!(full.status().as_u16(), 503, "{full}");
        drop(many);
        assert!(slots.take(Uuid::new_v4()).is_ok());
    }
}
