//! Headless mode: the servers, no windows, until SIGINT or SIGTERM.

use almanac_core::paths::Paths;
use almanac_core::settings::SettingsStore;

use crate::cli::Args;

pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let paths = Paths::platform();
    let settings = SettingsStore::open(&paths.settings_file())?;
    if let Some(vault) = &args.vault {
        settings.update(&serde_json::json!({ "vaultPath": vault }))?;
    }
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        tracing::info!(
            config = %paths.settings_file().display(),
            vault = %settings.get().vault_path.display(),
            "almanac running headless (no windows); Ctrl-C to stop"
        );
        shutdown_signal().await;
        tracing::info!("shutting down");
    });
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
