//! Headless mode: the servers, no windows, until SIGINT or SIGTERM.

use std::sync::Arc;

use almanac_core::api::{DeclineAll, HeadlessUi};
use almanac_core::paths::Paths;

use crate::cli::Args;
use crate::wiring::{self, Hooks, Services};
use almanac_loopback::ShutdownSignal;

/// Log lines to stderr, at `ALMANAC_LOG`'s level (info by default).
pub fn init_logging() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ALMANAC_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
}

pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        // Before any port opens: a SIGTERM from here on stops us cleanly.
        let shutdown = ShutdownSignal::install();
        let hooks = Hooks {
            ui: Arc::new(HeadlessUi),
            consent: Arc::new(DeclineAll),
            notifier: wiring::system_notifier().await,
        };
        let services = Services::start(Paths::platform(), args.vault.clone(), hooks).await?;
        tracing::info!(
            config = %services.core.paths.settings_file().display(),
            vault = %services.core.settings.get().vault_path.display(),
            "almanac running headless (no windows); Ctrl-C to stop"
        );
        shutdown.recv().await;
        tracing::info!("shutting down");
        services.shutdown().await;
        Ok(())
    })
}
