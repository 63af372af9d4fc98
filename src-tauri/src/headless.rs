//! Headless mode: the servers, no windows, until SIGINT or SIGTERM.

use std::sync::Arc;

use almanac_core::api::{DeclineAll, HeadlessUi};
use almanac_core::paths::Paths;

use crate::cli::Args;
use crate::wiring::{self, Hooks, Services};
use almanac_loopback::shutdown_signal;

pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
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
        shutdown_signal().await;
        tracing::info!("shutting down");
        services.shutdown().await;
        Ok(())
    })
}
