//! [`Core`]: one Almanac instance, wired — settings, calendar engine, tokens
//! and the in-process API. The desktop shell and the headless binary build one
//! with [`Core::open`] and hand its parts to the REST server and the UI.

use std::sync::Arc;

use crate::api::{CalendarPlugin, ConsentPrompt, PLUGIN_ID, Registry, UiController};
use crate::calendar::Calendar;
use crate::changes::{About, ChangeKind};
use crate::clock::SystemClock;
use crate::data_lock::DataLock;
use crate::events::{AppEvent, EventBus};
use crate::paths::Paths;
use crate::reminder_fired::{FiredReminder, HookRuns};
use crate::settings::{SettingsError, SettingsStore};
use crate::tokens::{self, SecretStore, TokenError, TokenStore};
use crate::vault_reminders::{self, VaultReminders};
use crate::webhooks::{KeyringSigningSecrets, RetryPolicy, Webhooks};

/// Why an instance could not start.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("settings: {0}")]
    Settings(#[from] SettingsError),
    #[error("tokens: {0}")]
    Tokens(#[from] TokenError),
    #[error("start-up task failed: {0}")]
    Startup(String),
    #[error("the data folder: {0}")]
    DataLock(#[from] crate::data_lock::DataLockError),
}

/// A running instance's core services. Share it behind an `Arc`.
pub struct Core {
    pub paths: Paths,
    /// Held for the instance's lifetime: no other engine opens these files
    /// meanwhile ([`crate::data_lock`]).
    data_lock: DataLock,
    pub settings: Arc<SettingsStore>,
    pub calendar: Calendar,
    pub tokens: Arc<TokenStore>,
    /// Announces every change of the parts above (see [`crate::events`]).
    /// The shell publishes the reminder daemon's changes here too.
    pub events: EventBus,
    /// Holds the calendar plugin under [`PLUGIN_ID`].
    pub registry: Registry,
    /// The user's webhooks, delivering the change feed's entries.
    pub webhooks: Webhooks,
    plugin: Arc<CalendarPlugin>,
    vault_reminders: tokio::sync::watch::Receiver<Arc<VaultReminders>>,
    /// This start's key, proving to clients that the REST port is ours;
    /// `None` if it could not be written (clients then refuse to send a
    /// token, which the log says).
    pub instance_key: Option<Arc<crate::instance_proof::InstanceKey>>,
    /// The reminder hooks running now ([`crate::reminder_fired`]).
    pub(crate) hook_runs: HookRuns,
    /// The calendars kept in the user's CalDAV account ([`crate::publish`]).
    pub publisher: Arc<crate::publish::Publisher>,
    /// Asks for a pass of every published calendar now ("Sync now").
    pub publish_now: crate::publish::worker::SyncNow,
}

impl Core {
    /// Opens (or on first start creates) the instance at `paths`, whose
    /// data folder's lock the caller took (the app with
    /// [`DataLock::take_over`], others with [`DataLock::acquire`]): settings,
    /// the vault, token metadata plus secrets from `secrets` (normally
    /// [`tokens::KeyringSecretStore`]). Neither a vault nor a keyring that
    /// cannot be used stops the start: the calendar reports
    /// [`Calendar::vault_status`] and tokens are refused with
    /// [`TokenStore::keyring_status`] saying why; both are retried in the
    /// background and recover by themselves. The calendar follows every
    /// settings change ([`Calendar::follow`]). Must run on a tokio runtime:
    /// it starts the background writer of token last-used times, the
    /// keyring retry and the token expiry announcer.
    pub async fn open(
        paths: Paths,
        data_lock: DataLock,
        secrets: Arc<dyn SecretStore>,
        ui: Arc<dyn UiController>,
        consent: Arc<dyn ConsentPrompt>,
    ) -> Result<Core, CoreError> {
        // Reading the vault and the keyring blocks; keep it off the runtime.
        let opening = paths.clone();
        let events = EventBus::default();
        let bus = events.clone();
        let (settings, calendar, tokens, vault_reminders) =
            tokio::task::spawn_blocking(move || {
                let announced = bus.clone();
                let settings = Arc::new(SettingsStore::open(&opening.settings_file())?.announcing(
                    Box::new(move |settings| {
                        announced.publish(AppEvent::SettingsChanged(settings))
                    }),
                ));
                if let Err(e) = opening.make_private(&settings.get().vault_path) {
                    tracing::warn!(error = %e, "could not make Almanac's folders private");
                }
                let calendar = Calendar::open_publishing(&settings.get(), &opening, bus.clone());
                let vault_reminders = vault_reminders::start(&calendar, &settings);
                let tokens = Arc::new(
                    TokenStore::open(opening.tokens_file(), secrets, Arc::new(SystemClock))?
                        .publishing_to(bus),
                );
                Ok::<_, CoreError>((settings, calendar, tokens, vault_reminders))
            })
            .await
            .map_err(|e| CoreError::Startup(e.to_string()))??;
        let instance_key = match crate::instance_proof::InstanceKey::create(&paths) {
            Ok(key) => Some(Arc::new(key)),
            Err(error) => {
                tracing::warn!(%error, "could not write the instance key: the command line and \
                    almanac mcp will not send tokens to this instance");
                None
            }
        };
        calendar.follow(&settings);
        tokens::spawn_last_used_writer(&tokens, tokens::DEFAULT_DEBOUNCE);
        tokens::spawn_keyring_retry(&tokens);
        tokens::spawn_expiry_announcer(&tokens);
        let plugin = Arc::new(CalendarPlugin::new(
            settings.clone(),
            calendar.clone(),
            tokens.clone(),
            ui,
            consent,
        ));
        let webhooks = Webhooks::open(
            paths.data_dir(),
            Arc::new(KeyringSigningSecrets::default()),
            RetryPolicy::default(),
        );
        webhooks.follow(plugin.changes().clone());
        let mut registry = Registry::default();
        registry.register(PLUGIN_ID, plugin.clone());
        let publisher = Arc::new(crate::publish::Publisher::new(
            plugin.clone(),
            calendar.clone(),
            settings.clone(),
            &paths,
        ));
        let publish_now = crate::publish::worker::start(&publisher, &settings, &calendar);
        Ok(Core {
            paths,
            data_lock,
            settings,
            calendar,
            tokens,
            events,
            registry,
            webhooks,
            plugin,
            vault_reminders,
            instance_key,
            hook_runs: Default::default(),
            publisher,
            publish_now,
        })
    }

    /// A reminder fired (the shell's notifier reports it): recorded in the
    /// change feed, and the user's reminder hook started
    /// ([`crate::reminder_fired`]). Returns at once.
    pub fn reminder_fired(&self, fired: FiredReminder) {
        let calendar_id = fired.event_id.as_deref().and_then(|id| {
            let details = self.calendar.details(id).ok()?;
            Some(details.calendar_id)
        });
        self.plugin().changes().push([About {
            kind: ChangeKind::ReminderFired,
            calendar_id,
            event_id: fired.event_id.clone(),
            reminder_id: Some(fired.id.clone()),
        }]);
        if let Some(command) = self.settings.get().reminders.hook_command.clone() {
            self.hook_runs.run(command, &fired);
        }
    }

    /// The current set of vault reminders, following vault edits, settings
    /// changes and the clock (see [`crate::vault_reminders`]).
    pub fn vault_reminders(&self) -> tokio::sync::watch::Receiver<Arc<VaultReminders>> {
        self.vault_reminders.clone()
    }

    /// The data folder's lock this instance holds.
    pub fn data_lock(&self) -> &DataLock {
        &self.data_lock
    }

    /// The calendar plugin (the same object the registry holds).
    pub fn plugin(&self) -> &Arc<CalendarPlugin> {
        &self.plugin
    }
}
