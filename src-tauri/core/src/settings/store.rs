//! [`SettingsStore`]: the settings file, the one path every change takes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::watch;

use super::class::Actor;
use super::{Settings, SettingsError};
use crate::fsutil::atomic_write_private;

/// Told of every commit, in commit order (the app puts it on its bus).
pub type Announce = Box<dyn Fn(Arc<Settings>) + Send + Sync>;

/// The settings of one instance: loaded from, and saved to, its JSON file.
pub struct SettingsStore {
    path: PathBuf,
    current: watch::Sender<Arc<Settings>>,
    /// Who hears of commits besides `current`'s receivers.
    announce: Announce,
    /// Serializes writers so two updates cannot interleave load-modify-save.
    write_lock: std::sync::Mutex<()>,
}

impl std::fmt::Debug for SettingsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SettingsStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SettingsStore {
    /// Loads the settings file, or creates it with defaults on first start.
    /// A file that cannot be parsed, or breaks a rule of its own shape
    /// ([`Settings::validate_shape`]), is kept aside
    /// (`settings.json.corrupt-…`) rather than overwritten, and defaults are
    /// used. A value only the shipped data refuses (a holiday place or a
    /// zone an update dropped) loads as it is, logged; the file is not
    /// rewritten, and the part that reads it shows the problem.
    pub fn open(path: &Path) -> Result<Self, SettingsError> {
        let settings = match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice::<Settings>(&bytes) {
                Ok(settings) if settings.validate_shape().is_ok() => {
                    for problem in settings.shipped_data_problems() {
                        tracing::warn!(
                            file = %path.display(), key = %problem.key, reason = %problem.reason,
                            "setting kept although this version does not know its value"
                        );
                    }
                    settings
                }
                outcome => {
                    let reason = match outcome {
                        Err(e) => e.to_string(),
                        Ok(s) => s.validate_shape().unwrap_err().to_string(),
                    };
                    let aside = path.with_extension(format!(
                        "json.corrupt-{}",
                        chrono::Utc::now().format("%Y%m%dT%H%M%S")
                    ));
                    tracing::error!(
                        file = %path.display(), kept_as = %aside.display(), %reason,
                        "settings file unreadable; starting from defaults"
                    );
                    let _ = std::fs::rename(path, &aside);
                    Self::write(path, &Settings::default())?;
                    Settings::default()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let settings = Settings::default();
                Self::write(path, &settings)?;
                settings
            }
            Err(source) => {
                return Err(SettingsError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        Ok(Self {
            path: path.to_path_buf(),
            current: watch::Sender::new(Arc::new(settings)),
            announce: Box::new(|_| {}),
            write_lock: std::sync::Mutex::new(()),
        })
    }

    /// The current settings.
    pub fn get(&self) -> Arc<Settings> {
        self.current.borrow().clone()
    }

    /// Tells `announce` of every commit from now on (the app wires it to
    /// its bus); a store opened alone tells no one but its receivers.
    pub(crate) fn announcing(mut self, announce: Announce) -> Self {
        self.announce = announce;
        self
    }

    /// A receiver that wakes whenever the settings change.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Settings>> {
        self.current.subscribe()
    }

    /// Applies a partial update (see [`Settings::patched`]) for `actor`,
    /// persists it, then notifies. Nothing changes if the actor may not make
    /// the change or any part is invalid. The in-process API, REST and the
    /// desktop shell come through [`crate::api::CalendarPlugin::update_settings`],
    /// which also checks a new vault path and waits for the calendar.
    pub fn update(&self, actor: Actor, patch: &Value) -> Result<Arc<Settings>, SettingsError> {
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        self.commit_patch(actor, &self.get(), patch)
    }

    /// [`SettingsStore::update`] with a patch made from the current settings
    /// under the write lock, so no other change falls between reading them
    /// and writing the patch. `None` from `patch`: nothing to change.
    pub fn update_from(
        &self,
        actor: Actor,
        patch: impl FnOnce(&Settings) -> Option<Value>,
    ) -> Result<Option<Arc<Settings>>, SettingsError> {
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        let current = self.get();
        match patch(&current) {
            Some(patch) => self.commit_patch(actor, &current, &patch).map(Some),
            None => Ok(None),
        }
    }

    /// Checks `patch` of `current` for `actor` and commits it. Callers hold
    /// `write_lock`.
    fn commit_patch(
        &self,
        actor: Actor,
        current: &Settings,
        patch: &Value,
    ) -> Result<Arc<Settings>, SettingsError> {
        actor.may_patch(current, patch)?;
        let next = current.patched(patch)?;
        actor.may_adopt(current, &next)?;
        self.commit(next)
    }

    /// Replaces the settings wholesale for `actor` (class-checked as a patch
    /// of every key, validated), persists, and notifies.
    pub fn replace(&self, actor: Actor, next: Settings) -> Result<Arc<Settings>, SettingsError> {
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        let current = self.get();
        let whole = serde_json::to_value(&next).expect("settings always serialize");
        actor.may_patch(&current, &whole)?;
        actor.may_adopt(&current, &next)?;
        next.validate_change(&current, &|_| false)?;
        self.commit(next)
    }

    /// The one place settings change: the file, then the watch channel and
    /// the announcement, in that order, under `write_lock` so announcements keep the
    /// order of commits. Callers hold `write_lock`.
    fn commit(&self, next: Settings) -> Result<Arc<Settings>, SettingsError> {
        Self::write(&self.path, &next)?;
        let next = Arc::new(next);
        self.current.send_replace(next.clone());
        (self.announce)(next.clone());
        Ok(next)
    }

    fn write(path: &Path, settings: &Settings) -> Result<(), SettingsError> {
        let mut json = serde_json::to_vec_pretty(settings).expect("settings always serialize");
        json.push(b'\n');
        atomic_write_private(path, &json).map_err(|source| SettingsError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}
