//! Where uncached `GET /events` queries and MCP tool calls over HTTP run: on
//! a few threads of their own, at a lower priority, never on the async
//! workers.
//!
//! The REST server shares its tokio runtime with the reminder daemon. A query
//! expanding thousands of occurrences (up to the ceiling, tens of
//! milliseconds) on an async worker would hold back every timer and request
//! queued behind it: reminders would fire late. So the query and its
//! serialization run on a pool of dedicated threads, one per core, which on
//! Linux lower their own priority (nice [`QUERY_NICE`]): when the CPU is
//! contended, the reminder daemon, the other routes and the window go first;
//! when it is not, queries get all of it. (Since answers are read from the
//! occurrence index, a query is short enough that the priority alone keeps
//! reminders on time; one thread per two cores left a core idle under load.)
//! A query waits for a free thread in arrival order, holding no thread while
//! it waits; one that cannot start within [`MAX_WAIT`] is refused
//! ([`QueryRefused::Busy`]: REST answers `503 Service Unavailable`).
//!
//! MCP tool calls over HTTP run here too, so a `GET /events` and a
//! `list_events` share one budget. And one token gets at most half the
//! threads (at least one): however many queries it sends at once (32
//! year-long listings from an assistant), another client's query finds a
//! thread. A query past its token's share that cannot start in time is
//! refused too ([`QueryRefused::TokenShare`]: REST answers `429 Too Many
//! Requests` with `Retry-After`).
//!
//! The slots live in the API, below both servers, and answer with their own
//! [`QueryRefused`]: `crate::rest` and `crate::mcp` each turn it into their
//! answer, so neither imports the other for them.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, oneshot};
use uuid::Uuid;

/// The longest a query waits for a thread.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// The query threads' nice value (0 is normal, 19 the lowest priority).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub const QUERY_NICE: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

/// Why a query did not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryRefused {
    /// The token held its share of the threads (`share` of them) for the
    /// whole wait.
    #[error(
        "this token already has {share} event queries running and more waiting; \
         send fewer at once"
    )]
    TokenShare { share: usize },
    /// No thread came free within the wait (`waited`).
    #[error(
        "the server is busy answering other event queries and this one could not \
         start within {} s; retry later",
        .waited.as_secs()
    )]
    Busy { waited: Duration },
    /// The query panicked, or the threads are gone: a bug, logged here.
    #[error("unexpected error while running the query")]
    Failed,
}

pub struct QuerySlots {
    /// One permit per query thread: a query that holds one never queues.
    slots: Arc<Semaphore>,
    /// Each token's share of the threads, by token id. An entry per token
    /// that ever queried: tokens are few (the user makes each one).
    shares: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
    /// Threads one token may hold at once.
    share: usize,
    max_wait: Duration,
    /// The threads stop once this is dropped.
    jobs: mpsc::Sender<Job>,
}

impl QuerySlots {
    /// One thread per core.
    pub fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self::with(cores, MAX_WAIT)
    }

    fn with(threads: usize, max_wait: Duration) -> Self {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let started = (0..threads)
            .filter(|n| {
                let queue = queue.clone();
                let spawned = std::thread::Builder::new()
                    .name(format!("query-{n}"))
                    .spawn(move || serve(&queue));
                if let Err(error) = &spawned {
                    tracing::error!(%error, "cannot start a query thread");
                }
                spawned.is_ok()
            })
            .count();
        Self {
            slots: Arc::new(Semaphore::new(started)),
            shares: Mutex::default(),
            share: started.div_ceil(2).max(1),
            max_wait,
            jobs,
        }
    }

    /// Runs `query` for `token` on a query thread once one is free and the
    /// token holds less than its share; its answer, or why it did not run.
    pub async fn run<T, F>(&self, token: Uuid, query: F) -> Result<T, QueryRefused>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let deadline = tokio::time::Instant::now() + self.max_wait;
        let share = self
            .shares
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(token)
            .or_insert_with(|| Arc::new(Semaphore::new(self.share)))
            .clone();
        let share = tokio::time::timeout_at(deadline, share.acquire_owned())
            .await
            .map_err(|_| QueryRefused::TokenShare { share: self.share })?
            .map_err(|_| QueryRefused::Failed)?;
        let slot = tokio::time::timeout_at(deadline, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| QueryRefused::Busy {
                waited: self.max_wait,
            })?
            .map_err(|_| QueryRefused::Failed)?;
        let (done, outcome) = oneshot::channel();
        let job: Job = Box::new(move || {
            // The permits move into the job: a client that hangs up does
            // not free them while its query still runs.
            let _permits = (share, slot);
            let _ = done.send(std::panic::catch_unwind(AssertUnwindSafe(query)));
        });
        if self.jobs.send(job).is_err() {
            tracing::error!("the query threads are gone");
            return Err(QueryRefused::Failed);
        }
        match outcome.await {
            Ok(Ok(answer)) => Ok(answer),
            _ => {
                tracing::error!("a query panicked");
                Err(QueryRefused::Failed)
            }
        }
    }
}

/// A query thread: lowers its priority, then runs jobs until the sender is
/// dropped.
fn serve(queue: &Mutex<mpsc::Receiver<Job>>) {
    lower_priority();
    loop {
        let next = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
        match next {
            Ok(job) => job(),
            Err(mpsc::RecvError) => return,
        }
    }
}

/// Sets this thread's nice value to [`QUERY_NICE`] (on Linux the nice value
/// belongs to the thread, not the process).
#[cfg(target_os = "linux")]
fn lower_priority() {
    // SAFETY: plain system calls on the calling thread's own id; no memory
    // is passed.
    let failed = unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, QUERY_NICE) != 0
    };
    if failed {
        let error = std::io::Error::last_os_error();
        tracing::warn!(%error, "a query thread keeps the normal priority");
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_query_that_cannot_start_in_time_is_refused_as_busy() {
        let slots = Arc::new(QuerySlots::with(1, Duration::from_millis(50)));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let busy = tokio::spawn({
            let slots = slots.clone();
            async move { slots.run(Uuid::nil(), move || wait.recv().ok()).await }
        });
        while slots.slots.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let refused = slots.run(Uuid::from_u128(9), || ()).await.unwrap_err();
        assert_eq!(
            refused,
            QueryRefused::Busy {
                waited: Duration::from_millis(50)
            }
        );
        release.send(()).unwrap();
        assert_eq!(busy.await.unwrap().unwrap(), Some(()));
        assert_eq!(slots.run(Uuid::nil(), || 7).await.unwrap(), 7);
    }

    /// One token sending many queries at once holds its share of the
    /// threads, no more: another token's query starts at once, and the
    /// greedy token's extra ones wait their turn (or are refused in the end).
    #[tokio::test]
    async fn one_token_holds_its_share_and_another_still_finds_a_thread() {
        let slots = Arc::new(QuerySlots::with(2, Duration::from_millis(200)));
        let (greedy, other) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(Mutex::new(wait));
        let mut busy = Vec::new();
        for _ in 0..8 {
            let (slots, wait) = (slots.clone(), wait.clone());
            busy.push(tokio::spawn(async move {
                slots
                    .run(greedy, move || wait.lock().unwrap().recv().ok())
                    .await
            }));
        }
        while slots.slots.available_permits() > 1 {
            tokio::task::yield_now().await;
        }
        // The greedy token holds one thread; the other one is free.
        assert_eq!(slots.run(other, || "answered").await.unwrap(), "answered");
        let refused = slots.run(greedy, || "").await.unwrap_err();
        assert_eq!(refused, QueryRefused::TokenShare { share: 1 });
        for _ in 0..8 {
            let _ = release.send(());
        }
        for query in busy {
            // Each either ran or waited past its time (refused): none hung.
            let _ = query.await.unwrap();
        }
    }

    #[tokio::test]
    async fn queries_run_at_a_lower_priority_and_a_panic_is_a_failure() {
        let slots = QuerySlots::with(1, MAX_WAIT);
        #[cfg(target_os = "linux")]
        {
            // SAFETY: reads the calling thread's nice value.
            let nice = slots.run(Uuid::nil(), || unsafe {
                libc::getpriority(libc::PRIO_PROCESS, 0)
            });
            assert_eq!(nice.await.unwrap(), QUERY_NICE);
        }
        let panicked = slots.run(Uuid::nil(), || -> u8 { panic!("boom") });
        assert_eq!(panicked.await.unwrap_err(), QueryRefused::Failed);
        assert_eq!(
            slots.run(Uuid::nil(), || "still serving").await.unwrap(),
            "still serving"
        );
    }
}
