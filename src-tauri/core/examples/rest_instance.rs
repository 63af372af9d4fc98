//! A throw-away Almanac instance serving REST over a given vault, for the load
//! benchmark (`scripts/bench-rest.sh`) and the schemathesis run
//! (`scripts/schemathesis-rest.sh`). Run it inside `scripts/session.sh`:
//! tokens live in the OS keyring.
//!
//! `rest_instance VAULT PORT [SCOPE…]` opens an instance whose config and data
//! live in a temp dir, with the `gen_vault` layout as its calendars (`events`
//! full notes, `journal` daily notes), creates a token with the scopes given
//! (default `events:read`), enables the REST server on `PORT`, prints
//! `TOKEN <secret>` once it listens, and serves until its standard input
//! closes.

use std::io::Read;
use std::sync::Arc;

use almanac_core::rest::{RestServer, ServerState};
use almanac_core::settings::{CalendarSource, KindSettings};
use almanac_core::tokens::{Expiry, KeyringSecretStore, NewToken, Scope, ScopeSet};
use almanac_testkit::InstanceBuilder;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(vault), Some(port)) = (args.next(), args.next().and_then(|p| p.parse().ok())) else {
        eprintln!("usage: rest_instance VAULT PORT [SCOPE...]");
        std::process::exit(2);
    };
    let mut scopes: ScopeSet = args
        .map(|scope| serde_json::from_value::<Scope>(serde_json::Value::String(scope)))
        .collect::<Result<_, _>>()?;
    if scopes.is_empty() {
        scopes = [Scope::EventsRead].into_iter().collect();
    }
    // Kept until the end: the instance's config and data live in its temp dir.
    let core = InstanceBuilder::new()
        .vault(vault)
        .settings(|settings| {
            settings.rest_server_enabled = true;
            settings.local_server_port = port;
            settings.calendar_sources.push(CalendarSource {
                id: "journal".into(),
                name: "Journal".into(),
                color: "#888888".into(),
                kind: KindSettings::DailyNote {
                    directory: "journal".into(),
                    heading: "Events".into(),
                },
                order: None,
                components: None,
            });
        })
        .secrets(Arc::new(KeyringSecretStore::new()))
        .try_open()
        .await?;
    let tokens = core.tokens.clone();
    let secret = tokio::task::spawn_blocking(move || {
        tokens.create(NewToken {
            name: "rest_instance".into(),
            scopes,
            expiry: Expiry::Never,
        })
    })
    .await??
    .secret;

    let server = RestServer::start(&core);
    let state = server
        .subscribe()
        .wait_for(|s| !matches!(s, ServerState::Disabled))
        .await?
        .clone();
    if let ServerState::Failed(reason) = state {
        eprintln!("rest_instance: {reason}");
        std::process::exit(1);
    }
    // The secret goes to the pipe the bench script reads, never to a file.
    println!("TOKEN {}", secret.expose());
    tokio::task::spawn_blocking(|| std::io::stdin().read_to_end(&mut Vec::new())).await??;
    server.shutdown().await;
    Ok(())
}
