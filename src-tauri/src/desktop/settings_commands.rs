//! The Tauri commands behind the settings window's sections besides API &
//! Security: the time zones it offers, the Full Calendar import it offers
//! for a vault, and the vaults Obsidian knows, which a first start offers.
//! The core builds the import plan, decides whether it applies and finds
//! the vaults; these only carry them to the window and back.

use std::path::PathBuf;
use std::sync::Arc;

use almanac_core::api::ApiError;
use almanac_core::calendar::sources::caldav::password::Passwords;
use almanac_core::onboarding::{
    ImportPlan, ObsidianVault, OnboardingError, find_obsidian_vaults, plan_import,
};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{Settings, time_zone_names};
use serde::Serialize;
use tauri::State;

use crate::wiring::Services;

/// A refused settings change as the window shows it: the reason, and the
/// setting it concerns (`calendarSources[2].url`) when the core names one,
/// so the window can put the reason next to that field.
#[derive(Debug, Serialize)]
pub struct SettingsRefusal {
    field: Option<String>,
    message: String,
}

impl From<ApiError> for SettingsRefusal {
    fn from(error: ApiError) -> Self {
        match error {
            ApiError::BadRequest { field, reason } => SettingsRefusal {
                field: Some(field),
                message: reason,
            },
            other => SettingsRefusal::unnamed(other),
        }
    }
}

impl SettingsRefusal {
    pub fn unnamed(error: impl std::fmt::Display) -> Self {
        SettingsRefusal {
            field: None,
            message: error.to_string(),
        }
    }
}

/// Every IANA zone the display time zone may be, sorted.
#[tauri::command]
pub fn time_zones() -> Vec<&'static str> {
    let mut zones: Vec<_> = time_zone_names().collect();
    zones.sort_unstable();
    zones
}

/// What the settings window offers to import from a vault's Full Calendar
/// settings: the plan, and the settings it would change now (the top-level
/// keys of `ImportPlan::settings_patch`: what the user has not configured).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportOffer {
    #[serde(flatten)]
    plan: ImportPlan,
    applies: Vec<String>,
}

/// The import offer for the folder `path`, or `None` when it holds no Full
/// Calendar settings. Settings that cannot be read are an error to show.
#[tauri::command]
pub async fn vault_import_offer(
    services: State<'_, Arc<Services>>,
    path: PathBuf,
) -> Result<Option<ImportOffer>, String> {
    let plan = match blocking(move || plan_import(&path)).await? {
        Ok(plan) => plan,
        Err(OnboardingError::NoPluginSettings(_)) => return Ok(None),
        Err(error) => return Err(error.to_string()),
    };
    let applies = match plan.settings_patch(&services.core.settings.get()) {
        Some(serde_json::Value::Object(patch)) => patch.keys().cloned().collect(),
        _ => Vec::new(),
    };
    Ok(Some(ImportOffer { plan, applies }))
}

/// Applies the import the user confirmed: the plan is read again from the
/// vault (the window holds only what it showed), and applied as the user.
#[tauri::command]
pub async fn vault_import_apply(
    services: State<'_, Arc<Services>>,
    path: PathBuf,
) -> Result<Settings, SettingsRefusal> {
    let plugin = services.core.plugin().clone();
    let settings = services.core.settings.clone();
    let updated = blocking(move || {
        let plan = plan_import(&path).map_err(SettingsRefusal::unnamed)?;
        let patch = plan.settings_patch(&settings.get()).ok_or_else(|| {
            SettingsRefusal::unnamed("everything this import holds is configured already")
        })?;
        let updated = plugin
            .update_settings(Actor::User, &patch)
            .map_err(SettingsRefusal::from)?;
        plan.store_passwords(&patch, &Passwords::default())
            .map_err(|e| {
                SettingsRefusal::unnamed(format!(
                    "the calendars were imported, but their CalDAV passwords could not be \
                     kept in the system keyring ({e}): enter them in Calendars"
                ))
            })?;
        Ok::<_, SettingsRefusal>(updated)
    })
    .await
    .map_err(SettingsRefusal::unnamed)??;
    Ok((*updated).clone())
}

/// The vaults in Obsidian's vault list on this computer, most recently
/// opened first, each marked when it holds Full Calendar settings.
#[tauri::command]
pub async fn obsidian_vaults() -> Result<Vec<ObsidianVault>, String> {
    blocking(find_obsidian_vaults).await
}

/// Runs file I/O (reading the vault, rescanning it) off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| e.to_string())
}
