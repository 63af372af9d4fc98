//! Who gets to ask the user, and when: access requests are rate-limited and
//! asked one at a time, in the order they came.
//!
//! A script that repeats `requestAccess` must not be able to bury the user in
//! dialogs (hoping for a tired "Allow"), nor stack a second dialog on top of
//! the one being read. So at most [`MAX_REQUESTS_PER_MINUTE`] requests are
//! admitted in any minute (the rest are declined at once), and an admitted
//! request waits until every earlier one has been answered.
//!
//! Access requests and write confirmations (an assistant's delete) count
//! apart ([`Asking`]): an assistant looping on deletes spends its own minute,
//! never the one a plugin's access request needs. They share the one queue,
//! so there is still one dialog at a time.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Requests of one kind admitted in any sliding minute, from all callers
/// together.
pub const MAX_REQUESTS_PER_MINUTE: usize = 5;

/// What a dialog asks; each kind has its own rate limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asking {
    /// `requestAccess`: a new token.
    Access,
    /// A destructive write an assistant or a script asked for.
    Write,
}

const MINUTE: Duration = Duration::from_secs(60);

#[derive(Default)]
struct State {
    /// When the requests of the last minute were admitted, oldest first:
    /// access requests, then write confirmations.
    admitted: [VecDeque<Instant>; 2],
    /// The ticket the next admitted request gets.
    next_ticket: u64,
    /// The ticket whose turn it is.
    serving: u64,
}

/// The rate limit and the queue.
#[derive(Default)]
pub struct ConsentGate {
    state: Mutex<State>,
    turn_over: Condvar,
}

/// An admitted request's turn to ask; the next request's turn starts when it
/// is dropped.
pub struct Turn<'a> {
    gate: &'a ConsentGate,
}

/// Why a request was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimited;

impl ConsentGate {
    /// Admits a request (or refuses it past the rate limit) and, if
    /// admitted, blocks until it is its turn. `waiting` is called once if
    /// the request has to wait for earlier ones.
    pub fn admit(&self, asking: Asking, waiting: impl FnOnce()) -> Result<Turn<'_>, RateLimited> {
        self.admit_at(asking, Instant::now(), waiting)
    }

    fn admit_at(
        &self,
        asking: Asking,
        now: Instant,
        waiting: impl FnOnce(),
    ) -> Result<Turn<'_>, RateLimited> {
        let mut state = self.lock();
        let admitted = &mut state.admitted[asking as usize];
        while admitted
            .front()
            .is_some_and(|at| now.saturating_duration_since(*at) >= MINUTE)
        {
            admitted.pop_front();
        }
        if admitted.len() >= MAX_REQUESTS_PER_MINUTE {
            return Err(RateLimited);
        }
        admitted.push_back(now);
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        if state.serving != ticket {
            waiting();
        }
        while state.serving != ticket {
            state = self
                .turn_over
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
        Ok(Turn { gate: self })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.gate.lock().serving += 1;
        self.gate.turn_over.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::mpsc;

    #[test]
    fn at_most_the_limit_per_minute_is_admitted() {
        let gate = ConsentGate::default();
        let start = Instant::now();
        for _ in 0..MAX_REQUESTS_PER_MINUTE {
            drop(gate.admit_at(Asking::Access, start, || {}).unwrap());
        }
        assert_eq!(
            gate.admit_at(Asking::Access, start + Duration::from_secs(59), || {})
                .err(),
            Some(RateLimited)
        );
        // A minute after the first, one more fits.
        assert!(gate.admit_at(Asking::Access, start + MINUTE, || {}).is_ok());
    }

    #[test]
    fn write_confirmations_spend_a_minute_of_their_own() {
        let gate = ConsentGate::default();
        let start = Instant::now();
        // An assistant looping on deletes uses up its own minute…
        for _ in 0..MAX_REQUESTS_PER_MINUTE {
            drop(gate.admit_at(Asking::Write, start, || {}).unwrap());
        }
        assert_eq!(
            gate.admit_at(Asking::Write, start, || {}).err(),
            Some(RateLimited)
        );
        // …and an access request is still asked.
        assert!(gate.admit_at(Asking::Access, start, || {}).is_ok());
    }

    #[test]
    fn requests_wait_for_the_one_being_asked_in_order() {
        let gate = Arc::new(ConsentGate::default());
        let first = gate
            .admit(Asking::Access, || panic!("the first request never waits"))
            .unwrap();
        let (order_tx, order_rx) = mpsc::channel();
        let (waiting_tx, waiting_rx) = mpsc::channel();
        let mut threads = Vec::new();
        for n in 0..2 {
            let (gate, order, waiting) = (gate.clone(), order_tx.clone(), waiting_tx.clone());
            threads.push(std::thread::spawn(move || {
                let asking = [Asking::Access, Asking::Write][n];
                let _turn = gate.admit(asking, || waiting.send(n).unwrap()).unwrap();
                order.send(n).unwrap();
            }));
            // Admitted in this order: the second is queued behind the first.
            assert_eq!(waiting_rx.recv().unwrap(), n);
        }
        assert!(order_rx.try_recv().is_err(), "asked while another was open");
        drop(first);
        assert_eq!(order_rx.recv().unwrap(), 0);
        assert_eq!(order_rx.recv().unwrap(), 1);
        for thread in threads {
            thread.join().unwrap();
        }
    }
}
