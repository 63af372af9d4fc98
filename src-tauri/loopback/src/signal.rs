//! The process signals that end Almanac (and the standalone daemon) cleanly.
//!
//! The handlers are installed by [`ShutdownSignal::install`], before anything
//! starts listening: from then on SIGINT and SIGTERM are ours to handle. A
//! handler installed only once the servers run would leave a window in which
//! a supervisor that saw the port open and sent SIGTERM kills the process
//! outright, with nothing flushed.

#[cfg(unix)]
use tokio::signal::unix::{Signal, SignalKind, signal};

/// SIGINT and SIGTERM, watched from the moment this is created.
pub struct ShutdownSignal {
    #[cfg(unix)]
    watched: Option<(Signal, Signal)>,
}

impl ShutdownSignal {
    /// Installs the handlers now. Must run inside a tokio runtime. Where
    /// SIGTERM cannot be watched (not Unix, or the handler cannot be
    /// installed), [`ShutdownSignal::recv`] waits for Ctrl-C alone.
    pub fn install() -> ShutdownSignal {
        #[cfg(unix)]
        {
            let watched = signal(SignalKind::interrupt())
                .and_then(|interrupt| Ok((interrupt, signal(SignalKind::terminate())?)));
            match watched {
                Ok(watched) => ShutdownSignal {
                    watched: Some(watched),
                },
                Err(error) => {
                    tracing::warn!("cannot watch SIGTERM, only Ctrl-C stops: {error}");
                    ShutdownSignal { watched: None }
                }
            }
        }
        #[cfg(not(unix))]
        ShutdownSignal {}
    }

    /// Resolves on the first SIGINT (Ctrl-C) or SIGTERM.
    pub async fn recv(self) {
        #[cfg(unix)]
        if let Some((mut interrupt, mut terminate)) = self.watched {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!("cannot watch Ctrl-C either: {error}");
            std::future::pending::<()>().await;
        }
    }
}

/// Installs the handlers and waits: [`ShutdownSignal::install`] then
/// [`ShutdownSignal::recv`]. For a caller with nothing to start first.
pub async fn shutdown_signal() {
    ShutdownSignal::install().recv().await
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

    #[tokio::test(flavor = "current_thread")]
    async fn a_signal_before_anyone_waits_is_not_lost() {
        let installed = ShutdownSignal::install();
        // Raised before `recv` is ever polled: the installed handler holds
        // it (else it would kill the test binary).
        // SAFETY: raising a signal at our own process is always sound.
        assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
        installed.recv().await;
    }
}
