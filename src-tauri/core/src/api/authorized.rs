//! [`AuthorizedApi`]: every operation a token can be used for, each guarded by
//! its scope (the contract's route-to-scope table).
//!
//! Each call first re-checks the token, so revoking or expiring it stops an
//! API object a script is still holding, then checks the scope. Reads answer
//! from memory; writes (`create_event`, `update_event`, `delete_event`,
//! `update_settings`) touch the disk and block, so async callers run them with
//! `spawn_blocking`.

use std::sync::Arc;

use chrono::NaiveDate;
use chrono_tz::Tz;
use serde_json::Value;
use uuid::Uuid;

use super::error::ApiError;
use super::event_times::EventTimes;
use super::plugin::CalendarPlugin;
use super::request::{EventFilter, EventOptions};
use super::state::InternalState;
use crate::calendar::{
    Event, EventDetails, EventFields, EventQuery, JsonAnswer, QueryAnswer, SourceInfo, TakenName,
    VaultStatus,
};
use crate::history::{Author, acting_as};
use crate::settings::Settings;
use crate::settings::class::Actor;
use crate::settings::redact::redact_feed_url;
use crate::tokens::{Grant, Scope, ScopeSet, TokenCheck};
use crate::view::CalendarView;

/// The API object a valid token unlocks. Cheap to clone.
#[derive(Clone)]
pub struct AuthorizedApi {
    pub(super) plugin: Arc<CalendarPlugin>,
    pub(super) grant: Grant,
    /// Acts for the person who owns the files, not for a token: no token
    /// to recheck ([`CalendarPlugin::as_owner`]).
    owner: bool,
}

impl AuthorizedApi {
    pub(super) fn new(plugin: Arc<CalendarPlugin>, grant: Grant) -> Self {
        Self {
            plugin,
            grant,
            owner: false,
        }
    }

    pub(super) fn owner(plugin: Arc<CalendarPlugin>, grant: Grant) -> Self {
        Self {
            plugin,
            grant,
            owner: true,
        }
    }

    /// The token this object acts for.
    pub fn token_id(&self) -> Uuid {
        self.grant.token_id
    }

    /// The token's scopes as given (without `system:full-access` expanded).
    pub fn scopes(&self) -> ScopeSet {
        self.grant.scopes
    }

    /// `getEvents(filter)`: cached events matching `filter`, series expanded,
    /// sorted by start. Synchronous, from memory. Scope `events:read`.
    pub fn get_events(&self, filter: &EventFilter) -> Result<Vec<Event>, ApiError> {
        Ok(self.get_events_answer(filter)?.events)
    }

    /// [`Self::get_events`] with the recurring series left out of the answer
    /// (each needs more than its share of the query's expansion steps).
    pub fn get_events_answer(&self, filter: &EventFilter) -> Result<QueryAnswer, ApiError> {
        self.require(Scope::EventsRead)?;
        Ok(self
            .plugin
            .calendar
            .query_answer(&EventQuery::from(filter))?)
    }

    /// [`Self::get_events_answer`] with the events serialized as one JSON
    /// array, each with its [`EventTimes`]. Scope `events:read`.
    pub fn get_events_json(&self, filter: &EventFilter) -> Result<JsonAnswer, ApiError> {
        self.require(Scope::EventsRead)?;
        Ok(self
            .plugin
            .calendar
            .query_json_with(&EventQuery::from(filter), &EventTimes::write_members)?)
    }

    /// The display zone, which answers give events' local times in (see
    /// [`EventTimes`]).
    pub fn display_zone(&self) -> Tz {
        self.plugin.calendar.display_timezone()
    }

    /// One event with its note path and line. Scope `events:read`.
    pub fn get_event_details(&self, id: &str) -> Result<EventDetails, ApiError> {
        self.require(Scope::EventsRead)?;
        Ok(self.plugin.calendar.details(id)?)
    }

    /// The note the `date` occurrence of series `id` has of its own, which
    /// deleting that occurrence deletes (see [`crate::calendar::Calendar::detached_note`]).
    /// Scope `events:read`.
    pub fn detached_note(&self, id: &str, date: NaiveDate) -> Result<Option<String>, ApiError> {
        self.require(Scope::EventsRead)?;
        Ok(self.plugin.calendar.detached_note(id, date))
    }

    /// Creates an event in calendar `calendar_id`. Scope `events:write`.
    pub fn create_event(
        &self,
        calendar_id: &str,
        fields: EventFields,
        options: EventOptions,
    ) -> Result<Event, ApiError> {
        self.require(Scope::EventsWrite)?;
        refuse_instance_date(&options)?;
        let _author = acting_as(self.author());
        let taken = if options.number_taken_name {
            TakenName::Number
        } else {
            TakenName::Refuse
        };
        let event = self
            .plugin
            .calendar
            .create_named(calendar_id, fields, taken)?;
        self.announce(&options, || format!("“{}” was created", event.title));
        Ok(event)
    }

    /// [`AuthorizedApi::create_event`], run once per idempotency `key` when
    /// there is one: a retry with the same key and request answers the
    /// first's event and creates nothing ([`super::idempotency`]).
    pub fn create_event_keyed(
        &self,
        key: Option<&super::IdempotencyKey>,
        calendar_id: &str,
        fields: EventFields,
        options: EventOptions,
    ) -> Result<Event, ApiError> {
        let Some(key) = key else {
            return self.create_event(calendar_id, fields, options);
        };
        self.require(Scope::EventsWrite)?;
        // What is asked, field by field: the same request prints the same.
        let request = (
            "create_event",
            calendar_id,
            format!("{fields:?} {options:?}"),
        );
        self.plugin
            .idempotency
            .once(self.token_id(), key, request, || {
                self.create_event(calendar_id, fields, options)
            })
    }

    /// Updates event `id` with `fields` (a merge patch), or with
    /// `options.instance_date` only that occurrence of its CalDAV series.
    /// Scope `events:write`.
    pub fn update_event(
        &self,
        id: &str,
        fields: EventFields,
        options: EventOptions,
    ) -> Result<Event, ApiError> {
        self.require(Scope::EventsWrite)?;
        let _author = acting_as(self.author());
        let calendar = &self.plugin.calendar;
        let event = match options.instance_date {
            Some(date) => calendar.update_occurrence(id, date, fields)?,
            None => calendar.update(id, fields)?,
        };
        self.announce(&options, || format!("“{}” was updated", event.title));
        Ok(event)
    }

    /// Moves event `id` to calendar `calendar_id`, applying `fields`. Scope
    /// `events:write`.
    pub fn move_event(
        &self,
        id: &str,
        calendar_id: &str,
        fields: EventFields,
        options: EventOptions,
    ) -> Result<Event, ApiError> {
        self.require(Scope::EventsWrite)?;
        refuse_instance_date(&options)?;
        let _author = acting_as(self.author());
        let event = self.plugin.calendar.move_to(id, calendar_id, fields)?;
        self.announce(&options, || {
            format!("“{}” was moved to {}", event.title, event.calendar_name)
        });
        Ok(event)
    }

    /// Deletes event `id`, or with `options.instance_date` suppresses that one
    /// occurrence of its series. Scope `events:write`.
    pub fn delete_event(&self, id: &str, options: EventOptions) -> Result<(), ApiError> {
        self.require(Scope::EventsWrite)?;
        let _author = acting_as(self.author());
        self.plugin.calendar.delete(id, options.instance_date)?;
        self.announce(&options, || match options.instance_date {
            Some(date) => format!("the {date} occurrence of an event was removed"),
            None => "an event was deleted".to_string(),
        });
        Ok(())
    }

    /// The configured calendar sources. Scope `providers:read`. Feed URLs
    /// are shown with their credentials hidden unless the token has
    /// `system:full-access` ([`crate::settings::redact`]).
    pub fn get_sources(&self) -> Result<Vec<SourceInfo>, ApiError> {
        let grant = self.require(Scope::ProvidersRead)?;
        let mut sources = self.plugin.calendar.sources();
        if !grant.scopes.grants(Scope::SystemFullAccess) {
            for url in sources.iter_mut().filter_map(|s| s.url.as_mut()) {
                *url = redact_feed_url(url);
            }
        }
        Ok(sources)
    }

    /// Whether the vault can be used, and if not, why. Scope `providers:read`.
    pub fn get_vault_status(&self) -> Result<VaultStatus, ApiError> {
        self.require(Scope::ProvidersRead)?;
        Ok(self.plugin.calendar.vault_status())
    }

    /// Starts a background refetch of remote calendars. Scope `providers:write`.
    pub fn revalidate(&self, force: bool) -> Result<(), ApiError> {
        self.require(Scope::ProvidersWrite)?;
        self.plugin.calendar.revalidate(force);
        Ok(())
    }

    /// Focuses or opens the main calendar view. Scope `ui:open-calendar`.
    pub fn open_calendar(&self) -> Result<(), ApiError> {
        self.require(Scope::UiOpenCalendar)?;
        self.plugin.ui.open_calendar().map_err(ui_error)
    }

    /// Focuses or opens the calendar sidebar. Scope `ui:open-sidebar`.
    pub fn open_sidebar(&self) -> Result<(), ApiError> {
        self.require(Scope::UiOpenSidebar)?;
        self.plugin.ui.open_sidebar().map_err(ui_error)
    }

    /// Switches the calendar to the view named `view_name` (`timeGridWeek`, …).
    /// Scope `ui:change-view`.
    pub fn change_view(&self, view_name: &str) -> Result<(), ApiError> {
        self.require(Scope::UiChangeView)?;
        let view = CalendarView::from_id(view_name).ok_or_else(|| {
            ApiError::bad_request(
                "viewName",
                format!(
                    "`{view_name}` is not a view; known views: {}",
                    CalendarView::known_ids()
                ),
            )
        })?;
        self.plugin.ui.change_view(view).map_err(ui_error)
    }

    /// The current settings (they hold no token secrets). Scope
    /// `settings:read`. Feed URLs are shown with their credentials hidden
    /// unless the token has `system:full-access`.
    pub fn get_settings(&self) -> Result<Arc<Settings>, ApiError> {
        let grant = self.require(Scope::SettingsRead)?;
        Ok(shown_to(&grant, self.plugin.settings.get()))
    }

    /// Applies a partial settings object, all or nothing. Scope
    /// `settings:write`; keys that change what Almanac reads, writes, fetches,
    /// opens or listens on need `system:full-access`
    /// ([`crate::settings::class`]). The answer hides feed credentials as
    /// [`AuthorizedApi::get_settings`] does.
    pub fn update_settings(&self, patch: &Value) -> Result<Arc<Settings>, ApiError> {
        let grant = self.require(Scope::SettingsWrite)?;
        let next = self
            .plugin
            .update_settings(Actor::Token(grant.scopes), patch)?;
        Ok(shown_to(&grant, next))
    }

    /// `getInternalState()`: raw state — settings, sources, cache statistics,
    /// token metadata and keyring status; never secrets. Scope
    /// `system:full-access`.
    pub fn get_internal_state(&self) -> Result<InternalState, ApiError> {
        self.require(Scope::SystemFullAccess)?;
        Ok(InternalState {
            settings: self.plugin.settings.get(),
            sources: self.plugin.calendar.sources(),
            vault: self.plugin.calendar.vault_status(),
            cache: self.plugin.calendar.stats(),
            tokens: self.plugin.tokens.list(),
            keyring: self.plugin.tokens.keyring_status(),
        })
    }

    /// The token still holds and grants `scope`; its current grant.
    pub(super) fn require(&self, scope: Scope) -> Result<Grant, ApiError> {
        if self.owner {
            return Ok(self.grant.clone());
        }
        match self.plugin.tokens.recheck(self.grant.token_id) {
            TokenCheck::Valid(grant) if grant.scopes.grants(scope) => Ok(grant),
            TokenCheck::Valid(grant) => {
                tracing::info!(
                    token_id = %grant.token_id, token_name = %grant.token_name, %scope,
                    "API call refused: missing scope"
                );
                Err(ApiError::MissingScope(scope))
            }
            refused => Err(ApiError::TokenNoLongerValid(refused.kind())),
        }
    }

    /// Who this object's writes are recorded as made by in the history:
    /// its token by name; acting for the owner, whoever the surface said
    /// acts (the window, a published calendar's sync), else the command
    /// line.
    pub(super) fn author(&self) -> Author {
        if self.owner {
            crate::history::author::said().unwrap_or(Author::Cli)
        } else {
            Author::Token {
                name: self.grant.token_name.to_string(),
            }
        }
    }

    fn announce(&self, options: &EventOptions, message: impl FnOnce() -> String) {
        if !options.silent {
            let message = format!("{} by “{}”", message(), self.grant.token_name);
            self.plugin.ui.announce(&message);
        }
    }
}

/// The settings as `grant` may see them: feed credentials and the reminder
/// hook's command only with `system:full-access`.
fn shown_to(grant: &Grant, settings: Arc<Settings>) -> Arc<Settings> {
    if grant.scopes.grants(Scope::SystemFullAccess) {
        settings
    } else {
        Arc::new(settings.with_secrets_hidden())
    }
}

/// `instanceDate` means nothing on create; a mistake worth reporting rather
/// than ignoring.
fn refuse_instance_date(options: &EventOptions) -> Result<(), ApiError> {
    match options.instance_date {
        Some(_) => Err(ApiError::bad_request(
            "options.instanceDate",
            "only applies to deleting or editing an occurrence",
        )),
        None => Ok(()),
    }
}

fn ui_error(error: super::ui::UiUnavailable) -> ApiError {
    ApiError::UiUnavailable(error.0)
}
