//! The app's part of the reminder daemon's `/doctor` (its `host` member):
//! where token secrets are kept and whether the keyring answers. Computed on
//! each request from in-memory state only.

use std::sync::Arc;

use almanac_core::app::Core;
use almanac_core::tokens::SecretBackend;
use almanac_reminders::DiagnosticsProvider;
use serde_json::json;

pub fn provider(core: &Core, secrets: SecretBackend) -> DiagnosticsProvider {
    let tokens = core.tokens.clone();
    Arc::new(move || {
        json!({
            "tokens": {
                "secrets": secrets,
                "keyring": tokens.keyring_status(),
                "count": tokens.list().len(),
            },
        })
    })
}
