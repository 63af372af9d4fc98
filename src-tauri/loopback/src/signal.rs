//! The process signals that end Almanac (and the standalone daemon) cleanly.

/// Resolves on SIGINT (Ctrl-C) or SIGTERM. Where SIGTERM cannot be watched
/// (not Unix, or the handler cannot be installed), on SIGINT alone.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
                return;
            }
            Err(error) => tracing::warn!("cannot watch SIGTERM, only Ctrl-C stops: {error}"),
        }
    }
    if let Err(error) = tokio::signal::ctrl_c().await {
        tracing::error!("cannot watch Ctrl-C either: {error}");
        std::future::pending::<()>().await;
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn sigterm_resolves_it() {
        let waiting = tokio::spawn(shutdown_signal());
        // On this one thread, yielding runs the spawned task up to its first
        // wait, by when the handlers are installed (else SIGTERM would kill
        // the test binary: a failure, loudly).
        tokio::task::yield_now().await;
        // SAFETY: raising a signal at our own process is always sound.
        assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
        waiting.await.unwrap();
    }
}
