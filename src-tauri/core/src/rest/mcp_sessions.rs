//! How many MCP sessions (`/mcp`, Streamable HTTP) are open, per token and
//! in all. Each session holds a worker and its buffers until it ends, so a
//! token opening sessions without end would grow the process and crowd out
//! the other clients. A session is counted from the `initialize` answer that
//! names it until the client ends it (`DELETE`) or it has been idle as long
//! as the MCP service waits before ending it itself.
//!
//! Past its own bound a token's `initialize` gets `429` with `Retry-After`;
//! past the bound in all, any token's gets `503` with `Retry-After`.
//!
//! A place is taken when the `initialize` is admitted, not when its answer
//! names the session: a thousand `initialize`s sent at once would otherwise
//! all pass the check before the first of them was counted (the bench
//! `lateness_under_load` with `LOAD=mcp-sessions` opened hundreds).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::local::SessionConfig;
use uuid::Uuid;

use crate::loopback_server::RestError;
use crate::loopback_server::error::Bound;

/// Sessions one token may hold open (an assistant needs one).
pub const PER_TOKEN: usize = 8;
/// Sessions open in all.
pub const TOTAL: usize = 64;
/// A session idle this long has been ended by the MCP service.
const IDLE: Duration = SessionConfig::DEFAULT_KEEP_ALIVE;

/// The open sessions: which token opened each, and when it was last used.
#[derive(Debug, Default)]
pub struct McpSessions {
    open: Mutex<HashMap<String, (Uuid, Instant)>>,
}

impl McpSessions {
    /// A place for one more session of `token`, held until the request
    /// that asked for it is answered, or the refusal that says why there is
    /// none.
    pub fn admit(&self, token: Uuid) -> Result<Admission<'_>, RestError> {
        let mut open = self.lock();
        let now = Instant::now();
        open.retain(|_, (_, used)| now.duration_since(*used) < IDLE);
        if open.values().filter(|(owner, _)| *owner == token).count() >= PER_TOKEN {
            return Err(RestError::past_bound(
                Bound::Token,
                format_args!(
                    "this token already has {PER_TOKEN} MCP sessions open (the most it may); \
                     end one first (DELETE /mcp with its Mcp-Session-Id)"
                ),
            ));
        }
        if open.len() >= TOTAL {
            return Err(RestError::past_bound(
                Bound::All,
                format_args!("{TOTAL} MCP sessions are open (the most served at once)"),
            ));
        }
        // Not a session id rmcp would make (those are UUIDs).
        let place = format!("opening {}", Uuid::new_v4());
        open.insert(place.clone(), (token, now));
        Ok(Admission {
            sessions: self,
            place,
            token,
        })
    }

    /// Session `id` was used (it stays open).
    pub fn used(&self, id: &str) {
        if let Some((_, used)) = self.lock().get_mut(id) {
            *used = Instant::now();
        }
    }

    /// Session `id` was ended by its client.
    pub fn closed(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Uuid, Instant)>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A place taken for a session being opened. [`Admission::opened`] gives
/// it the session's id; dropped without (the request opened no session), it
/// is given back.
#[derive(Debug)]
pub struct Admission<'a> {
    sessions: &'a McpSessions,
    place: String,
    token: Uuid,
}

impl Admission<'_> {
    /// The request opened session `id`: the place is now its.
    pub fn opened(self, id: &str) {
        let mut open = self.sessions.lock();
        open.remove(&self.place);
        open.insert(id.to_string(), (self.token, Instant::now()));
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        self.sessions.lock().remove(&self.place);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_bounded_per_token_and_in_all_and_an_ended_one_frees_its_place() {
        let sessions = McpSessions::default();
        let greedy = Uuid::new_v4();
        for n in 0..PER_TOKEN {
            sessions.admit(greedy).unwrap().opened(&format!("g{n}"));
        }
        assert_eq!(sessions.admit(greedy).unwrap_err().status().as_u16(), 429);
        sessions.closed("g0");
        assert!(sessions.admit(greedy).is_ok());
        for n in PER_TOKEN - 1..TOTAL {
            sessions
                .admit(Uuid::new_v4())
                .unwrap()
                .opened(&format!("o{n}"));
        }
        assert_eq!(
            sessions
                .admit(Uuid::new_v4())
                .unwrap_err()
                .status()
                .as_u16(),
            503
        );
    }

    #[test]
    fn initializes_sent_at_once_count_before_their_sessions_open() {
        let sessions = McpSessions::default();
        let greedy = Uuid::new_v4();
        // All of them admitted, none answered yet.
        let mut waiting: Vec<Admission<'_>> = (0..PER_TOKEN)
            .map(|_| sessions.admit(greedy).unwrap())
            .collect();
        let refused = sessions.admit(greedy).unwrap_err();
        assert_eq!(refused.status().as_u16(), 429, "{refused}");
        // One opens its session: still the token's whole share.
        waiting.pop().unwrap().opened("s1");
        assert_eq!(sessions.admit(greedy).unwrap_err().status().as_u16(), 429);
        // One opens none (not an `initialize`, or refused by the service):
        // its place is given back.
        drop(waiting.pop());
        sessions.admit(greedy).unwrap().opened("s2");
        assert_eq!(sessions.admit(greedy).unwrap_err().status().as_u16(), 429);
        // Places being opened count in all too.
        drop(waiting);
        let others: Vec<Admission<'_>> = (2..TOTAL)
            .map(|_| sessions.admit(Uuid::new_v4()).unwrap())
            .collect();
        assert_eq!(
            sessions
                .admit(Uuid::new_v4())
                .unwrap_err()
                .status()
                .as_u16(),
            503
        );
        drop(others);
        assert!(sessions.admit(Uuid::new_v4()).is_ok());
    }
}
