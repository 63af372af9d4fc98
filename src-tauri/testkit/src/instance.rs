//! A throw-away Almanac core: "temp dir → paths → settings → `Core::open`",
//! written once.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use almanac_core::api::{ConsentPrompt, DeclineAll, HeadlessUi, UiController};
use almanac_core::app::{Core, CoreError};
use almanac_core::data_lock::DataLock;
use almanac_core::paths::Paths;
use almanac_core::settings::class::Actor;
use almanac_core::settings::{Settings, SettingsStore};
use almanac_core::tokens::{Expiry, NewToken, Scope, SecretStore};

use crate::keyring::real_keyring;

/// The config and data dirs of an instance living under `root`.
pub fn paths_in(root: &Path) -> Paths {
    Paths::new(root.join("config"), root.join("data"))
}

/// Builds a [`TestInstance`]. Unless told otherwise: the vault is `vault/`
/// in the instance's temp dir (created only when a note is written), the
/// display zone is UTC, the UI is headless, every access request is
/// declined, and secrets go to the real OS keyring (run under
/// `scripts/session.sh`).
pub struct InstanceBuilder {
    dir: tempfile::TempDir,
    settings: Settings,
    notes: Vec<(String, String)>,
    secrets: Option<Arc<dyn SecretStore>>,
    ui: Arc<dyn UiController>,
    consent: Arc<dyn ConsentPrompt>,
}

impl Default for InstanceBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl InstanceBuilder {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let settings = Settings {
            vault_path: dir.path().join("vault"),
            display_timezone: "UTC".into(),
            ..Settings::default()
        };
        Self {
            dir,
            settings,
            notes: Vec::new(),
            secrets: None,
            ui: Arc::new(HeadlessUi),
            consent: Arc::new(DeclineAll),
        }
    }

    /// The temp dir that will hold the instance (config, data, vault), for
    /// a test to put files there before it starts.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Serves the calendar from `vault` instead of the temp dir's.
    pub fn vault(mut self, vault: impl Into<PathBuf>) -> Self {
        self.settings.vault_path = vault.into();
        self
    }

    /// A note at `rel` in the vault (folders created), there before the core
    /// starts.
    pub fn note(mut self, rel: &str, text: &str) -> Self {
        self.notes.push((rel.into(), text.into()));
        self
    }

    /// Changes the settings written before the core starts, as a user's
    /// earlier run would have left them.
    pub fn settings(mut self, edit: impl FnOnce(&mut Settings)) -> Self {
        edit(&mut self.settings);
        self
    }

    pub fn secrets(mut self, secrets: Arc<dyn SecretStore>) -> Self {
        self.secrets = Some(secrets);
        self
    }

    pub fn ui(mut self, ui: Arc<dyn UiController>) -> Self {
        self.ui = ui;
        self
    }

    pub fn consent(mut self, consent: Arc<dyn ConsentPrompt>) -> Self {
        self.consent = consent;
        self
    }

    /// Writes the notes and the settings, then opens the core.
    pub async fn try_open(self) -> Result<TestInstance, CoreError> {
        for (rel, text) in &self.notes {
            let path = self.settings.vault_path.join(rel);
            std::fs::create_dir_all(path.parent().expect("a note inside the vault"))
                .expect("vault folders");
            std::fs::write(&path, text).expect("a note written");
        }
        let paths = paths_in(self.dir.path());
        SettingsStore::open(&paths.settings_file())?.replace(Actor::User, self.settings)?;
        let secrets = match self.secrets {
            Some(secrets) => secrets,
            None => real_keyring(),
        };
        let lock = DataLock::acquire(&paths)?;
        let core = Core::open(paths, lock, secrets, self.ui, self.consent).await?;
        Ok(TestInstance {
            dir: self.dir,
            core,
        })
    }

    /// [`InstanceBuilder::try_open`], for tests where opening must work.
    pub async fn open(self) -> TestInstance {
        self.try_open().await.expect("the test instance opens")
    }
}

/// A running core and the temp dir holding its config, data and (by
/// default) vault; the dir is removed when the instance is dropped.
pub struct TestInstance {
    pub dir: tempfile::TempDir,
    pub core: Core,
}

/// Tests use the instance as the core it wraps.
impl Deref for TestInstance {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}

/// A new token on `core`'s store, as a client sends it (its secret). Made
/// off the async workers: storing the secret in the keyring blocks.
pub async fn new_token(core: &Core, name: &str, scopes: &[Scope], expiry: Expiry) -> String {
    let tokens = core.tokens.clone();
    let request = NewToken::new(name, scopes, expiry);
    tokio::task::spawn_blocking(move || {
        let created = tokens.create(request).expect("the token is created");
        created.secret.expose().to_string()
    })
    .await
    .expect("the token task ends")
}
