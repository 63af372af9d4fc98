//! The calendar plugin's public object: what the plugin registry hands out
//! under [`PLUGIN_ID`]. Scripts get an [`AuthorizedApi`] from it by presenting
//! a token ([`CalendarPlugin::with_token`]) or by asking the user for one
//! ([`CalendarPlugin::request_access`]).

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::authorized::AuthorizedApi;
use super::consent::{AccessRequest, Consent, ConsentPrompt, WriteConfirmation};
use super::consent_gate::{Asking, ConsentGate, MAX_REQUESTS_PER_MINUTE};
use super::error::ApiError;
use super::ui::UiController;
use crate::calendar::Calendar;
use crate::changes::{self, ChangeFeed};
use crate::settings::class::Actor;
use crate::settings::vault_path::check_vault_path;
use crate::settings::{Settings, SettingsStore};
use crate::tokens::{NewToken, ScopeSet, Secret, TokenCheck, TokenStore};

/// The plugin's identifier in the registry (Obsidian Full Calendar's).
pub const PLUGIN_ID: &str = "full-calendar";

/// Longest `reason` a script may give in an access request, in characters.
pub const MAX_REASON_CHARS: usize = 1000;

/// The calendar plugin: the services every API call works on.
pub struct CalendarPlugin {
    pub(super) settings: Arc<SettingsStore>,
    pub(super) calendar: Calendar,
    pub(super) tokens: Arc<TokenStore>,
    pub(super) ui: Arc<dyn UiController>,
    consent: Arc<dyn ConsentPrompt>,
    /// Access requests: rate-limited, asked one at a time.
    consent_gate: ConsentGate,
    /// Serializes settings updates: the class checks look at the settings
    /// the patch is applied to, so check-patch-replace must not interleave.
    settings_update: Mutex<()>,
    /// What changed in the calendar, following it ([`crate::changes`]).
    pub(super) changes: ChangeFeed,
    /// Creates sent with an idempotency key ([`super::idempotency`]).
    pub(super) idempotency: super::idempotency::IdempotencyKeys,
}

impl CalendarPlugin {
    pub fn new(
        settings: Arc<SettingsStore>,
        calendar: Calendar,
        tokens: Arc<TokenStore>,
        ui: Arc<dyn UiController>,
        consent: Arc<dyn ConsentPrompt>,
    ) -> Self {
        let changes = changes::follow(&calendar);
        Self {
            settings,
            calendar,
            tokens,
            ui,
            consent,
            consent_gate: ConsentGate::default(),
            settings_update: Mutex::new(()),
            changes,
            idempotency: Default::default(),
        }
    }

    /// The change feed ([`crate::changes`]), for the shell to report to.
    pub fn changes(&self) -> &ChangeFeed {
        &self.changes
    }

    /// `withToken(secret)`: the authorized API, or `None` when the token is
    /// invalid, expired or revoked (or the keyring is unavailable).
    pub fn with_token(self: &Arc<Self>, secret: &str) -> Option<AuthorizedApi> {
        self.authorize(secret).ok()
    }

    /// The same check as [`CalendarPlugin::with_token`], keeping the refusal so
    /// a caller (the REST server) can log why. Callers must not tell clients
    /// apart by it: every refusal is the same 403.
    pub fn authorize(self: &Arc<Self>, secret: &str) -> Result<AuthorizedApi, TokenCheck> {
        match self.tokens.check(secret) {
            TokenCheck::Valid(grant) => Ok(AuthorizedApi::new(self.clone(), grant)),
            refused => Err(refused),
        }
    }

    /// The API for the person who owns the instance's files, with every
    /// scope and no token: for the command line working on a vault whose
    /// data folder it has locked (no instance runs), where the user could
    /// edit the notes by hand anyway. Never for a client of a server.
    pub fn as_owner(self: &Arc<Self>) -> AuthorizedApi {
        let grant = crate::tokens::Grant {
            token_id: uuid::Uuid::nil(),
            token_name: Arc::from("the owner, on the command line"),
            scopes: [crate::tokens::Scope::SystemFullAccess]
                .into_iter()
                .collect(),
        };
        AuthorizedApi::owner(self.clone(), grant)
    }

    /// Asks the user to allow a destructive write, through the same queue as
    /// access requests (one dialog at a time) and a rate limit of its own;
    /// `None` when nobody can be asked or the minute's confirmations are
    /// spent.
    pub(super) fn confirm_write(&self, confirmation: &WriteConfirmation) -> Option<bool> {
        if !self.consent.can_confirm_writes() {
            return None;
        }
        let turn = self.consent_gate.admit(Asking::Write, || {}).ok()?;
        let answer = self.consent.confirm_write(confirmation);
        drop(turn);
        answer
    }

    /// `requestAccess(name, reason, scopes)`: asks the user, through the
    /// consent prompt, to create a token. Returns its secret (this is the only
    /// time anyone sees it) or `None` when the request is malformed, over the
    /// rate limit, declined by the user, or the token cannot be stored; the
    /// log says which. Requests are asked one at a time: this blocks while
    /// earlier ones are being answered (see [`super::consent_gate`]).
    pub fn request_access(&self, name: &str, reason: &str, scopes: ScopeSet) -> Option<Secret> {
        let reason = reason.trim();
        let request = NewToken {
            name: name.to_string(),
            scopes,
            expiry: crate::tokens::Expiry::Never,
        };
        let request = match request.validated() {
            Ok(request) if reason.chars().count() <= MAX_REASON_CHARS => request,
            Ok(_) => {
                tracing::info!(
                    "access request refused: reason longer than {MAX_REASON_CHARS} characters"
                );
                return None;
            }
            Err(e) => {
                tracing::info!(error = %e, "access request refused");
                return None;
            }
        };
        let ask = AccessRequest {
            name: request.name.clone(),
            reason: reason.to_string(),
            scopes,
        };
        let Ok(turn) = self.consent_gate.admit(Asking::Access, || {
            tracing::info!(name = %ask.name, "access request waiting: another one is being asked");
        }) else {
            tracing::info!(
                name = %ask.name,
                "access request declined: more than {MAX_REQUESTS_PER_MINUTE} requests in a minute"
            );
            return None;
        };
        let consent = self.consent.ask(&ask);
        drop(turn);
        let Consent::Granted { expiry } = consent else {
            tracing::info!(name = %ask.name, "access request declined by the user");
            return None;
        };
        match self.tokens.create(NewToken { expiry, ..request }) {
            Ok(created) => Some(created.secret),
            Err(e) => {
                tracing::warn!(error = %e, "access was granted but the token could not be created");
                None
            }
        }
    }

    /// Applies a partial settings object for `actor`: checked against the
    /// setting classes ([`crate::settings::class`]; a refused key is a 403),
    /// validated whole (a bad value is refused before anything is written), a
    /// new `vaultPath` held to [`crate::settings::vault_path`], persisted and
    /// announced by the settings store's commit (its watch channel and the
    /// event bus, [`crate::events`]), which every consumer follows. Returns
    /// once the calendar engine has adopted it, so the answer and the next
    /// read agree; a vault that cannot be used is then the
    /// engine's reported state ([`Calendar::vault_status`]), not a refusal.
    /// The API passes its token's scopes; the desktop shell passes
    /// [`Actor::User`].
    pub fn update_settings(&self, actor: Actor, patch: &Value) -> Result<Arc<Settings>, ApiError> {
        self.update_settings_with(actor, |_| Ok(patch.clone()))
    }

    /// [`Self::update_settings`] with the patch made from the current
    /// settings while no other update can run (a change to one calendar
    /// source must not drop another added meanwhile).
    pub(crate) fn update_settings_with(
        &self,
        actor: Actor,
        make_patch: impl FnOnce(&Settings) -> Result<Value, ApiError>,
    ) -> Result<Arc<Settings>, ApiError> {
        let next = {
            let _one_at_a_time = self
                .settings_update
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let previous = self.settings.get();
            let patch = &make_patch(&previous)?;
            actor.may_patch(&previous, patch)?;
            let next = previous.patched(patch)?;
            actor.may_adopt(&previous, &next)?;
            if next.vault_path != previous.vault_path {
                check_vault_path(&next.vault_path)?;
            }
            // The store checks the classes again, in its commit: no write
            // reaches the settings unchecked or unannounced.
            self.settings.replace(actor, next)?
        };
        self.calendar.catch_up(&self.settings);
        Ok(next)
    }
}
