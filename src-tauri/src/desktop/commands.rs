//! The Tauri commands the web UI calls. Each one forwards to a core service
//! and turns its error into the message the window shows; none decides
//! anything itself.

use std::sync::Arc;

use almanac_core::api::{Consent, ShownWrite};
use almanac_core::calendar::index::per_day::PerDay;
use almanac_core::calendar::index::search::Found;
use almanac_core::calendar::{Event, EventQuery, SourceInfo, VaultStatus};
use almanac_core::rest::ServerState;
use almanac_core::settings::Settings;
use almanac_core::settings::class::{self, Actor};
use almanac_core::tokens::{Expiry, NewToken, Scope, TokenInfo};
use almanac_reminders::{HistoryEntry, Scheduled};
use serde::Serialize;
use tauri::{Manager, State};
use uuid::Uuid;

use super::access::GrantedSecrets;
use super::consent::{ConsentDialogs, Question};
use super::settings_commands::SettingsRefusal;
use crate::cli::WindowKind;
use crate::wiring::Services;

/// Errors reach the UI as their message.
type CommandResult<T> = Result<T, String>;

fn message(error: impl std::fmt::Display) -> String {
    error.to_string()
}

// ---- settings --------------------------------------------------------------

#[tauri::command]
pub fn settings_get(services: State<'_, Arc<Services>>) -> Settings {
    (*services.core.settings.get()).clone()
}

/// Applies a partial settings object: the same path as `PUT /api/v1/settings`.
/// A refusal names the setting it concerns, for the window to show it there.
#[tauri::command]
pub async fn settings_update(
    services: State<'_, Arc<Services>>,
    patch: serde_json::Value,
) -> Result<Settings, SettingsRefusal> {
    let plugin = services.core.plugin().clone();
    // The calendar adopts the settings by rescanning the vault: blocking I/O.
    let updated =
        tauri::async_runtime::spawn_blocking(move || plugin.update_settings(Actor::User, &patch))
            .await
            .map_err(SettingsRefusal::unnamed)??;
    Ok((*updated).clone())
}

/// The REST server's state as the settings window shows it.
#[derive(Clone, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum RestStatus {
    Disabled,
    Running { port: u16 },
    Failed { error: String },
}

impl From<&ServerState> for RestStatus {
    fn from(state: &ServerState) -> Self {
        match state {
            ServerState::Disabled => RestStatus::Disabled,
            ServerState::Listening(addr) => RestStatus::Running { port: addr.port() },
            ServerState::Failed(error) => RestStatus::Failed {
                error: error.clone(),
            },
        }
    }
}

#[tauri::command]
pub fn rest_status(services: State<'_, Arc<Services>>) -> RestStatus {
    RestStatus::from(&*services.rest_state().borrow())
}

// ---- calendar -------------------------------------------------------------

/// The cached events overlapping `[start, end]` (epoch milliseconds), series
/// expanded, of `calendars` (all when absent: the window's shown ones), and
/// only the open tasks when `open_tasks` (the agenda's overdue ones): what a
/// calendar view shows. Bounded like every client query; the
/// window shows a refusal's message.
#[tauri::command]
pub async fn calendar_events(
    services: State<'_, Arc<Services>>,
    start: i64,
    end: i64,
    calendars: Option<Vec<String>>,
    open_tasks: Option<bool>,
) -> CommandResult<Vec<Event>> {
    let open_tasks = open_tasks.unwrap_or(false);
    let query = EventQuery {
        calendars,
        is_task: open_tasks.then_some(true),
        is_completed: open_tasks.then_some(false),
        start_millis: Some(start),
        end_millis: Some(end),
        ..EventQuery::default()
    };
    let calendar = services.core.calendar.clone();
    off_the_window_thread(move || calendar.query_checked(&query)).await
}

/// Like [`calendar_events`], for views of several days: at most `per_day`
/// events a day and how many more each day holds (a month of a large vault
/// holds more than any view draws; see `almanac_core::calendar::index::per_day`).
#[tauri::command]
pub async fn calendar_events_per_day(
    services: State<'_, Arc<Services>>,
    start: i64,
    end: i64,
    per_day: usize,
    calendars: Option<Vec<String>>,
) -> CommandResult<PerDay> {
    let query = EventQuery {
        calendars,
        start_millis: Some(start),
        end_millis: Some(end),
        ..EventQuery::default()
    };
    let calendar = services.core.calendar.clone();
    off_the_window_thread(move || calendar.query_per_day(&query, per_day)).await
}

/// Runs an engine read on a blocking thread. A command that is not `async`
/// runs on the main thread, which also hands the web view's frames to the
/// screen: the calendar window asks for a month, its neighbours and the
/// mini-month's counts around every step, and each read held the step's
/// painting up for as long as it took.
async fn off_the_window_thread<T, E>(
    read: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> CommandResult<T>
where
    T: Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(read)
        .await
        .map_err(message)?
        .map_err(message)
}

/// The calendar window's search box: the events matching `text` within a
/// year of now, one per event, upcoming first (see
/// `almanac_core::calendar::index::search`). Off the window's thread: a search
/// runs on every pause in typing, and must not hold up the drawing.
#[tauri::command]
pub async fn calendar_search(
    services: State<'_, Arc<Services>>,
    text: String,
) -> CommandResult<Found> {
    let calendar = services.core.calendar.clone();
    let now = chrono::Utc::now().timestamp_millis();
    off_the_window_thread(move || calendar.search(&text, now)).await
}

/// Opens Settings on its Calendars section: the calendar window's link
/// beside each calendar.
#[tauri::command]
pub fn settings_show_calendars(app: tauri::AppHandle) -> CommandResult<()> {
    super::windows::show_settings_section(&app, "calendars")
        .map(drop)
        .map_err(message)
}

/// Ends the first start's welcome (held by the settings window): the
/// calendar opens, and the settings window closes.
#[tauri::command]
pub fn welcome_finish(app: tauri::AppHandle) -> CommandResult<()> {
    super::windows::show(&app, WindowKind::Calendar).map_err(message)?;
    if let Some(settings) = app.get_webview_window(WindowKind::Settings.name()) {
        settings.close().map_err(message)?;
    }
    Ok(())
}

#[tauri::command]
pub fn calendar_sources(services: State<'_, Arc<Services>>) -> Vec<SourceInfo> {
    services.core.calendar.sources()
}

/// Whether the vault can be used; the settings window shows why not.
#[tauri::command]
pub fn vault_status(services: State<'_, Arc<Services>>) -> VaultStatus {
    services.core.calendar.vault_status()
}

// ---- tokens ----------------------------------------------------------------

/// A scope as the Generate Token form lists it.
#[derive(Serialize)]
pub struct ScopeChoice {
    id: &'static str,
    description: &'static str,
    dangerous: bool,
    /// Which settings the scope lets a script change, if any.
    settings: Option<String>,
}

impl From<Scope> for ScopeChoice {
    fn from(scope: Scope) -> Self {
        ScopeChoice {
            id: scope.as_str(),
            description: scope.description(),
            dangerous: scope == Scope::SystemFullAccess,
            settings: class::settings_reach(scope),
        }
    }
}

#[tauri::command]
pub fn token_scopes() -> Vec<ScopeChoice> {
    Scope::ALL.into_iter().map(ScopeChoice::from).collect()
}

fn expiry(days: Option<u32>) -> CommandResult<Expiry> {
    Expiry::from_days(days).ok_or_else(|| "a token expires never, or in 30, 90 or 365 days".into())
}

#[tauri::command]
pub fn tokens_list(services: State<'_, Arc<Services>>) -> Vec<TokenInfo> {
    services.core.tokens.list()
}

/// A new token and its secret: the only time the secret leaves the core.
#[derive(Serialize)]
pub struct NewTokenShown {
    token: TokenInfo,
    secret: String,
}

#[tauri::command]
pub async fn token_create(
    services: State<'_, Arc<Services>>,
    name: String,
    scopes: Vec<Scope>,
    expires_in_days: Option<u32>,
) -> CommandResult<NewTokenShown> {
    let expiry = expiry(expires_in_days)?;
    let tokens = services.core.tokens.clone();
    let new = NewToken {
        name,
        scopes: scopes.into_iter().collect(),
        expiry,
    };
    // The secret goes to the keyring: blocking D-Bus calls.
    let created = tauri::async_runtime::spawn_blocking(move || tokens.create(new))
        .await
        .map_err(message)?
        .map_err(message)?;
    Ok(NewTokenShown {
        token: created.info,
        secret: created.secret.expose().to_string(),
    })
}

/// A secret shown once: a new token's name and secret.
#[derive(Serialize)]
pub struct SecretShown {
    name: String,
    secret: String,
}

/// The secret of the oldest token allowed in a consent dialog and not yet
/// shown, if any; handed out once, then forgotten.
#[tauri::command]
pub fn granted_secret_take(granted: State<'_, GrantedSecrets>) -> Option<SecretShown> {
    granted.take().map(|granted| SecretShown {
        name: granted.name,
        secret: granted.secret.expose().to_string(),
    })
}

#[tauri::command]
pub async fn token_revoke(
    services: State<'_, Arc<Services>>,
    id: Uuid,
) -> CommandResult<TokenInfo> {
    let tokens = services.core.tokens.clone();
    let revoked = tauri::async_runtime::spawn_blocking(move || tokens.revoke(id))
        .await
        .map_err(message)?
        .map_err(message)?;
    Ok(revoked)
}

// ---- consent ---------------------------------------------------------------

/// An access request as the consent dialog shows it: its text made safe to
/// show by the core.
#[derive(Serialize)]
pub struct ConsentShown {
    name: String,
    reason: String,
    warnings: Vec<String>,
    scopes: Vec<ScopeChoice>,
}

#[tauri::command]
pub fn consent_request(dialogs: State<'_, ConsentDialogs>, id: u64) -> CommandResult<ConsentShown> {
    let Some(Question::Access(request)) = dialogs.question(id) else {
        return Err("this request was already answered or has expired".into());
    };
    let shown = request.shown();
    Ok(ConsentShown {
        name: shown.name,
        reason: shown.reason,
        warnings: shown.warnings,
        scopes: request.scopes.iter().map(ScopeChoice::from).collect(),
    })
}

#[tauri::command]
pub fn consent_answer(
    dialogs: State<'_, ConsentDialogs>,
    id: u64,
    allow: bool,
    expires_in_days: Option<u32>,
) -> CommandResult<()> {
    let consent = if allow {
        Consent::Granted {
            expiry: expiry(expires_in_days)?,
        }
    } else {
        Consent::Declined
    };
    dialogs.answer(id, consent)
}

/// The destructive write the confirmation dialog `id` asks about, made safe
/// to show by the core.
#[tauri::command]
pub fn write_confirmation(
    dialogs: State<'_, ConsentDialogs>,
    id: u64,
) -> CommandResult<ShownWrite> {
    match dialogs.question(id) {
        Some(Question::Write(confirmation)) => Ok(confirmation.shown()),
        _ => Err("this question was already answered or has expired".into()),
    }
}

#[tauri::command]
pub fn write_confirmation_answer(
    dialogs: State<'_, ConsentDialogs>,
    id: u64,
    allow: bool,
) -> CommandResult<()> {
    let consent = match allow {
        true => Consent::Granted {
            expiry: Expiry::Never,
        },
        false => Consent::Declined,
    };
    dialogs.answer(id, consent)
}

// ---- reminders -------------------------------------------------------------

/// How many upcoming reminders the window lists.
const UPCOMING_SHOWN: usize = 200;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemindersView {
    upcoming: Vec<Scheduled>,
    recently_fired: Vec<HistoryEntry>,
    /// Why the daemon is not running, or not on the configured port.
    problem: Option<String>,
}

#[tauri::command]
pub async fn reminders_list(services: State<'_, Arc<Services>>) -> CommandResult<RemindersView> {
    let daemon = services.reminders().await;
    Ok(match daemon.as_ref() {
        Some(daemon) => RemindersView {
            upcoming: daemon.upcoming(UPCOMING_SHOWN),
            recently_fired: daemon.recently_fired(),
            problem: services.reminders_problem(),
        },
        None => RemindersView {
            upcoming: Vec::new(),
            recently_fired: Vec::new(),
            problem: Some(
                services
                    .reminders_problem()
                    .unwrap_or_else(|| "the reminder daemon has stopped".to_string()),
            ),
        },
    })
}

#[tauri::command]
pub async fn reminder_open(services: State<'_, Arc<Services>>, id: String) -> CommandResult<()> {
    let daemon = services.reminders().await;
    let daemon = daemon
        .as_ref()
        .ok_or("the reminder daemon is not running")?;
    daemon.open(&id).map_err(message)
}

#[tauri::command]
pub async fn reminder_snooze(
    services: State<'_, Arc<Services>>,
    id: String,
    minutes: i64,
) -> CommandResult<()> {
    let daemon = services.reminders().await;
    let daemon = daemon
        .as_ref()
        .ok_or("the reminder daemon is not running")?;
    daemon.snooze(&id, minutes).await.map(drop).map_err(message)
}
