//! Onboarding nobody watches: `almanac --vault PATH` at start, desktop or
//! headless. It takes what is harmless to take unasked (local and daily-note
//! calendars, ICS feeds, reminder defaults, the vault's name) and leaves the
//! CalDAV accounts out: an account makes Almanac send a password to a server
//! and write to it, which the user must see and confirm first (the Settings
//! window's import does, listing each account). The log says how many were
//! left out and where to add them, names each calendar skipped (its name,
//! type and why), and names no URL: ICS addresses often carry a secret token.

use std::fmt;
use std::path::Path;

use super::{ImportPlan, plan_import};
use crate::api::ApiError;
use crate::app::Core;
use crate::kinds::Origin;
use crate::settings::class::Actor;
use crate::settings::redact::redact_feed_url;

/// Applies what of the vault's Full Calendar settings may be taken without
/// asking (see the module's comment). No plugin settings is no error.
pub fn import_unattended(core: &Core, vault: &Path) -> Result<(), ApiError> {
    let plan = match plan_import(vault) {
        Ok(plan) => plan,
        Err(e) => {
            tracing::info!("onboarding: {e}");
            return Ok(());
        }
    };
    let (plan, accounts) = plan.without_accounts();
    let patch = plan.settings_patch(&core.settings.get());
    tracing::info!(
        found = %Summary(&plan),
        applied = patch.is_some(),
        "onboarding: Full Calendar settings found in vault `{}` ({})",
        plan.vault_name,
        plan.settings_file
    );
    if accounts > 0 {
        tracing::info!(
            accounts,
            "onboarding: CalDAV accounts are not imported without asking: add them in \
             Settings › Calendars, or choose this vault in Settings › Vault, which lists them \
             and imports them once you confirm"
        );
    }
    if let Some(patch) = patch {
        core.plugin().update_settings(Actor::User, &patch)?;
    }
    Ok(())
}

impl ImportPlan {
    /// The plan without its CalDAV accounts (and their passwords), and how
    /// many there were.
    pub fn without_accounts(mut self) -> (ImportPlan, usize) {
        let before = self.sources.len();
        self.sources
            .retain(|source| !source.kind.kind().uses_password());
        self.passwords = Default::default();
        self.passwords_to_keyring.clear();
        self.passwords_to_enter.clear();
        let accounts = before - self.sources.len();
        (self, accounts)
    }
}

/// A plan in counts, for the log: no address, no user name.
pub struct Summary<'a>(pub &'a ImportPlan);

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plan = self.0;
        let count = |origin: Origin| {
            plan.sources
                .iter()
                .filter(|source| source.kind.kind().origin() == origin)
                .count()
        };
        write!(
            f,
            "{} calendars ({} ICS feeds, {} CalDAV accounts), {} skipped, {} settings not \
             applied, reminder defaults: {}",
            plan.sources.len(),
            count(Origin::Feed),
            count(Origin::Server),
            plan.skipped.len(),
            plan.found_not_applied.len(),
            if plan.reminders.is_some() {
                "yes"
            } else {
                "no"
            },
        )?;
        // Each skipped calendar by its name and type, with why: a name is
        // not a secret, an address is (hidden as in `GET /calendars`).
        for (n, skipped) in plan.skipped.iter().enumerate() {
            let reason = skipped
                .reason
                .split('`')
                .map(|part| match part.contains("://") {
                    true => redact_feed_url(part),
                    false => part.to_string(),
                })
                .collect::<Vec<_>>()
                .join("`");
            let lead = if n == 0 { "; skipped: " } else { "; " };
            write!(f, "{lead}“{}” ({}): {reason}", skipped.name, skipped.kind)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onboarding::SkippedSource;

    #[test]
    fn each_skipped_calendar_is_named_with_why_and_no_address() {
        let plan = ImportPlan::empty("data.json".into(), "Vault".into());
        let plan = ImportPlan {
            skipped: vec![
            SkippedSource {
                name: "Team".into(),
                kind: "google".into(),
                reason: "unknown calendar type google".into(),
            },
            SkippedSource {
                name: "Club".into(),
                kind: "ical".into(),
                reason: "ICS url `ftp://me:s3cret@example.com/private-k/a.ics` is not http(s) or webcal"
                    .into(),
                },
            ],
            ..plan
        };
        let logged = Summary(&plan).to_string();
        assert!(
            logged.ends_with(
                "; skipped: “Team” (google): unknown calendar type google; \
                 “Club” (ical): ICS url `ftp://***@example.com/***` is not http(s) or webcal"
            ),
            "{logged}"
        );
        assert!(
            !logged.contains("s3cret") && !logged.contains("private-k"),
            "{logged}"
        );
    }
}
