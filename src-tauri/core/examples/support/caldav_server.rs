//! Almanac's CalDAV server switched on for a benchmark, as the Settings
//! window does, on a free port, with a token of the scopes asked for.
//! Shared by the CalDAV benchmarks.

use almanac_core::app::Core;
use almanac_core::caldav_server;
use almanac_core::rest::{RestServer, ServerState};
use almanac_core::settings::class::Actor;
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{free_port, new_token};

/// The running server (shut it down at the end), its port and the token's
/// secret.
pub async fn start(
    core: &Core,
    scopes: &[Scope],
) -> Result<(RestServer, u16, String), Box<dyn std::error::Error>> {
    let secret = new_token(core, "benchmark", scopes, Expiry::Never).await;
    let server = caldav_server::start(
        core.plugin().clone(),
        core.calendar.clone(),
        &core.paths,
        core.settings.subscribe(),
    );
    let port = free_port();
    let plugin = core.plugin().clone();
    tokio::task::spawn_blocking(move || {
        plugin.update_settings(
            Actor::User,
            &serde_json::json!({"caldavServer": {"enabled": true, "port": port}}),
        )
    })
    .await??;
    server
        .subscribe()
        .wait_for(|s| matches!(s, ServerState::Listening(_)))
        .await?;
    Ok((server, port, secret))
}
