//! Blocking work (files, fsync, large parses) off the async worker threads.
//!
//! One behaviour for both servers: a panic in blocking work is a bug, so it
//! is logged and handed back as [`Panicked`]. A server answers it with its
//! JSON `500` and keeps serving; it never takes the server down. Code with
//! no error path of its own may [`Panicked::resume`] the panic on the
//! request's task, where the server's [`crate::PanicAnswer`] layer answers
//! the same `500`.

use std::any::Any;

/// A panic caught in blocking work (already logged).
pub struct Panicked(Box<dyn Any + Send + 'static>);

impl std::fmt::Debug for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Panicked").field(&self.message()).finish()
    }
}

impl Panicked {
    /// The panic's message, if it had a textual one.
    pub fn message(&self) -> &str {
        panic_message(self.0.as_ref())
    }

    /// Continues the panic on the calling task.
    pub fn resume(self) -> ! {
        std::panic::resume_unwind(self.0)
    }
}

/// Runs `work` on tokio's blocking pool; `Err` if it panicked (logged).
pub async fn blocking<T, F>(work: F) -> Result<T, Panicked>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => Ok(value),
        Err(error) => {
            // Only a panic: the blocking pool never cancels a started task.
            let panicked = Panicked(error.into_panic());
            tracing::error!(panic = panicked.message(), "blocking work panicked");
            Err(panicked)
        }
    }
}

/// The text of a panic payload (`panic!("…")` carries a `&str` or a
/// `String`).
pub fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn values_come_back() {
        assert_eq!(blocking(|| 6 * 7).await.unwrap(), 42);
    }

    #[tokio::test]
    async fn a_panic_comes_back_as_an_error_with_its_message() {
        let panicked = blocking(|| -> u8 { panic!("disk on fire") })
            .await
            .unwrap_err();
        assert_eq!(panicked.message(), "disk on fire");
        let formatted = blocking(|| -> u8 { panic!("{} left", 3) })
            .await
            .unwrap_err();
        assert_eq!(formatted.message(), "3 left");
    }

    #[tokio::test]
    async fn resume_continues_the_panic_on_the_caller() {
        let caller = tokio::spawn(async {
            let panicked = blocking(|| -> u8 { panic!("again") }).await.unwrap_err();
            panicked.resume()
        });
        let error = caller.await.unwrap_err();
        assert!(error.is_panic());
        assert_eq!(panic_message(error.into_panic().as_ref()), "again");
    }
}
