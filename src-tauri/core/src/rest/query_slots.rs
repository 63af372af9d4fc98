//! Where uncached `GET /events` queries run: on the blocking pool, a few at a
//! time, never on the async workers.
//!
//! The REST server shares its tokio runtime with the reminder daemon. A query
//! expanding thousands of occurrences (up to the ceiling, tens of
//! milliseconds) on an async worker would hold back every timer and request
//! queued behind it: reminders would fire late. So the query and its
//! serialization run on the blocking pool, and a semaphore lets at most
//! half the cores (at least one) work on queries at once, leaving the rest
//! for the reminder daemon, the other routes and the window. Further queries
//! wait their turn (in arrival order, holding no thread); one that cannot
//! start within [`MAX_WAIT`] gets `503 Service Unavailable`.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use super::RestError;
use crate::api::ApiError;

/// The longest a query waits for a slot.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

pub struct QuerySlots {
    slots: Arc<Semaphore>,
    max_wait: Duration,
}

impl QuerySlots {
    /// Half the cores (at least one).
    pub fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self::with(cores / 2, MAX_WAIT)
    }

    fn with(slots: usize, max_wait: Duration) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(slots.max(1))),
            max_wait,
        }
    }

    /// Runs `query` on the blocking pool once a slot is free.
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
        // The slot moves into the task: a client that hangs up does not free
        // it while its query still runs.
        super::blocking(move || {
            let _slot = slot;
            query()
        })
        .await
    }
}

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
}
