//! The app's part of the reminder daemon's `/doctor` (its `host` member):
//! where token secrets are kept and whether the keyring answers, and the
//! desktop's registration of Almanac (autostart, menu entry, URL handlers).
//! Computed on each request, on the blocking pool: memory, a few small
//! files, and the URL handlers `xdg-mime` named within the last minute
//! (`os_registration` caches them).

use std::sync::Arc;

use almanac_core::app::Core;
use almanac_core::os_registration::Registration;
use almanac_core::tokens::SecretBackend;
use almanac_reminders::DiagnosticsProvider;
use serde_json::json;

pub fn provider(core: &Core, secrets: SecretBackend) -> DiagnosticsProvider {
    let tokens = core.tokens.clone();
    let settings = core.settings.clone();
    Arc::new(move || {
        let schemes = settings.get().reminders.allowed_schemes.clone();
        json!({
            "osRegistration": Registration::inspect(&schemes),
            "tokens": {
                "secrets": secrets,
                "keyring": tokens.keyring_status(),
                "count": tokens.list().len(),
            },
        })
    })
}
