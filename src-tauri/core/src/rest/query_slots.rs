//! Where uncached `GET /events` queries run: on a few threads of their own,
//! at a lower priority, never on the async workers.
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
//! it waits; one that cannot start within [`MAX_WAIT`] gets `503 Service
//! Unavailable`.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, oneshot};

use super::RestError;
use crate::api::ApiError;

/// The longest a query waits for a thread.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// The query threads' nice value (0 is normal, 19 the lowest priority).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub const QUERY_NICE: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

pub struct QuerySlots {
    /// One permit per query thread: a query that holds one never queues.
    slots: Arc<Semaphore>,
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
                    .name(format!("rest-query-{n}"))
                    .spawn(move || serve(&queue));
                if let Err(error) = &spawned {
                    tracing::error!(%error, "cannot start a REST query thread");
                }
                spawned.is_ok()
            })
            .count();
        Self {
            slots: Arc::new(Semaphore::new(started)),
            max_wait,
            jobs,
        }
    }

    /// Runs `query` on a query thread once one is free.
    pub async fn run<T, F>(&self, query: F) -> Result<T, RestError>
    where
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let slot = tokio::time::timeout(self.max_wait, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| {
                RestError::Unavailable(format!(
                    "the server is busy answering other event queries and this one could not \
                     start within {} s; retry later",
                    self.max_wait.as_secs()
                ))
            })?
            .map_err(|_| RestError::Internal)?;
        let (done, outcome) = oneshot::channel();
        let job: Job = Box::new(move || {
            // The slot moves into the job: a client that hangs up does not
            // free it while its query still runs.
            let _slot = slot;
            let _ = done.send(std::panic::catch_unwind(AssertUnwindSafe(query)));
        });
        if self.jobs.send(job).is_err() {
            tracing::error!("the REST query threads are gone");
            return Err(RestError::Internal);
        }
        match outcome.await {
            Ok(Ok(answer)) => answer.map_err(RestError::from),
            _ => {
                tracing::error!("a REST query panicked");
                Err(RestError::Internal)
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
        tracing::warn!(%error, "a REST query thread keeps the normal priority");
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_query_that_cannot_start_in_time_gets_503() {
        let slots = Arc::new(QuerySlots::with(1, Duration::from_millis(50)));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let busy = tokio::spawn({
            let slots = slots.clone();
            async move { slots.run(move || Ok(wait.recv().ok())).await }
        });
        while slots.slots.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let refused = slots.run(|| Ok(())).await.unwrap_err();
        assert_eq!(refused.status(), 503, "{refused}");
        release.send(()).unwrap();
        assert_eq!(busy.await.unwrap().unwrap(), Some(()));
        assert_eq!(slots.run(|| Ok(7)).await.unwrap(), 7);
    }

    #[tokio::test]
    async fn queries_run_at_a_lower_priority_and_a_panic_is_a_500() {
        let slots = QuerySlots::with(1, MAX_WAIT);
        #[cfg(target_os = "linux")]
        {
            // SAFETY: reads the calling thread's nice value.
            let nice = slots.run(|| Ok(unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }));
            assert_eq!(nice.await.unwrap(), QUERY_NICE);
        }
        let panicked = slots.run(|| -> Result<(), ApiError> { panic!("boom") });
        assert_eq!(panicked.await.unwrap_err().status(), 500);
        assert_eq!(
            slots.run(|| Ok("still serving")).await.unwrap(),
            "still serving"
        );
    }
}
