//! Putting settings in place: opening the vault (or recording why it cannot
//! be used), resolving the sources, and swapping them into the engine with a
//! rescan. Callers serialize on `write_lock`.

use chrono_tz::Tz;

use crate::calendar::engine::{Calendar, lock};
use crate::calendar::index::cache::Cache;
use crate::calendar::sources::SourceConfig;
use crate::calendar::sources::caldav::account;
use crate::calendar::vault::Vault;
use crate::settings::{Settings, SettingsStore};
use almanac_model::error::CalendarError;
use almanac_model::status::VaultStatus;

/// The sources of `settings`, resolved against the vault; a source that
/// cannot be used is logged and left out.
fn configs(settings: &Settings, vault: &Vault) -> Vec<SourceConfig> {
    settings
        .calendar_sources
        .iter()
        .filter_map(|source| {
            SourceConfig::from_settings(source, &settings.vault_path)
                .or_else(|_| SourceConfig::from_settings(source, vault.root()))
                .map_err(
                    |error| tracing::error!(source = %source.id, %error, "calendar source ignored"),
                )
                .ok()
        })
        .collect()
}

pub(in crate::calendar) fn display_tz(settings: &Settings) -> Tz {
    settings.display_timezone.parse().unwrap_or(Tz::UTC)
}

fn create_source_dirs(vault: &Vault, configs: &[SourceConfig]) -> Result<(), CalendarError> {
    for dir in configs.iter().filter_map(SourceConfig::dir) {
        if !dir.is_empty() {
            let path = vault.join(dir)?;
            std::fs::create_dir_all(&path).map_err(|e| CalendarError::io(&path, e))?;
        }
    }
    Ok(())
}

/// What the engine needs to use `settings`: the vault (its note calendars'
/// folders created), the sources and the vault's status. When the vault
/// cannot be used the status says why; `previous` keeps the `since` of a
/// problem that persists.
pub(in crate::calendar) fn prepare(
    settings: &Settings,
    previous: &VaultStatus,
) -> (Vault, Vec<SourceConfig>, VaultStatus) {
    let opened = Vault::open(&settings.vault_path).and_then(|vault| {
        let configs = configs(settings, &vault);
        create_source_dirs(&vault, &configs)?;
        Ok((vault, configs))
    });
    match opened {
        Ok((vault, configs)) => (vault, configs, VaultStatus::Available),
        Err(error) => {
            let vault = Vault::unopened(&settings.vault_path);
            let configs = configs(settings, &vault);
            let since = match previous {
                VaultStatus::Unavailable { since, .. } => since.clone(),
                VaultStatus::Available => chrono::Utc::now().to_rfc3339(),
            };
            let reason = error.to_string();
            (vault, configs, VaultStatus::Unavailable { reason, since })
        }
    }
}

/// Logs a change of the vault's status (not a repeat of the same problem).
pub(in crate::calendar) fn log_transition(previous: &VaultStatus, next: &VaultStatus) {
    match (previous, next) {
        (VaultStatus::Unavailable { .. }, VaultStatus::Available) => {
            tracing::info!("the vault is available again")
        }
        (VaultStatus::Unavailable { reason: old, .. }, VaultStatus::Unavailable { reason, .. })
            if old == reason => {}
        (_, VaultStatus::Unavailable { reason, .. }) => tracing::error!(
            %reason,
            "the vault is unavailable; note calendars stay empty until it can be opened"
        ),
        (VaultStatus::Available, VaultStatus::Available) => {}
    }
}

impl Calendar {
    /// The work of [`Calendar::apply_settings`].
    pub(in crate::calendar) fn adopt_settings(&self, settings: &Settings) {
        let _write = lock(&self.inner.write_lock);
        self.adopt(settings);
    }

    /// The work of [`Calendar::catch_up`].
    pub(in crate::calendar) fn catch_up_with(&self, store: &SettingsStore) {
        let _write = lock(&self.inner.write_lock);
        // Read under the lock: two callers can never adopt out of order.
        let latest = store.get();
        if latest.same_calendar_as(&lock(&self.inner.wanted)) {
            self.retry_vault();
        } else {
            self.adopt(&latest);
        }
    }

    /// Tries an unavailable vault again; changes nothing (not even the cache
    /// generation) while the problem stays the same. Callers hold `write_lock`.
    fn retry_vault(&self) {
        let previous = self.vault_status();
        if previous.is_available() {
            return;
        }
        let wanted = lock(&self.inner.wanted).clone();
        let prepared = prepare(&wanted, &previous);
        if prepared.2 != previous {
            self.install(&wanted, prepared, previous);
        }
    }

    /// Callers hold `write_lock`.
    fn adopt(&self, settings: &Settings) {
        let before = std::mem::replace(&mut *lock(&self.inner.wanted), settings.clone());
        // A CalDAV calendar removed takes its password out of the keyring.
        for id in account::removed(&before, settings) {
            if let Err(error) = self.inner.caldav.passwords.delete(&id) {
                tracing::warn!(source = %id, %error, "could not delete a removed CalDAV calendar's password");
            }
        }
        let previous = self.vault_status();
        let prepared = prepare(settings, &previous);
        self.install(settings, prepared, previous);
    }

    /// Puts a prepared vault and sources in place and rescans. Callers hold
    /// `write_lock`.
    fn install(
        &self,
        settings: &Settings,
        (vault, configs, status): (Vault, Vec<SourceConfig>, VaultStatus),
        previous: VaultStatus,
    ) {
        log_transition(&previous, &status);
        let usable = status.is_available();
        let rewatch = {
            let mut state = self.inner.write();
            let rewatch = state.vault != vault || previous.is_available() != usable;
            let mut cache = Cache::new(configs, display_tz(settings));
            cache.keep_feeds_of(&state.cache);
            cache.journal = state.cache.journal.continued();
            state.vault = vault;
            state.cache = cache;
            state.vault_status = status;
            rewatch
        };
        if rewatch {
            *lock(&self.inner.watcher) = None;
            if usable {
                self.inner.start_watcher();
            }
        }
        self.inner.rescan_notes();
        self.inner.load_cached_feeds();
        self.revalidate(false);
    }
}
