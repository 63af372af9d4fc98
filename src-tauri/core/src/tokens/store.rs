//! The token store: creates, checks and revokes personal access tokens.
//!
//! Metadata is in `tokens.json` (see [`super::file`]), secrets are in a
//! [`SecretStore`] (the OS keyring). At start the store reads every live
//! token's secret once and keeps only its SHA-256 in memory; a check then hashes
//! the presented secret, finds candidates by the hash's first 64 bits and
//! decides with a constant-time comparison of all 256. Checks never touch the
//! keyring or the disk: revocation and expiry are plain in-memory reads, so they
//! apply to the very next check, and "last used" is an atomic store, written to
//! disk later in batches (see [`super::last_used`]). A keyring that cannot be
//! used at start is tried again in the background (see
//! [`super::keyring_retry`]); tokens work from the moment it answers.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
// tokio's clock: the same as std's, except that tests can pause it.
use tokio::time::Instant;

use chrono::{DateTime, Utc};
use serde::Serialize;
use subtle::ConstantTimeEq;
use tokio::sync::Notify;
use uuid::Uuid;

use super::TokenError;
use super::check::{Grant, TokenCheck};
use super::file;
use super::keyring_retry::EAGER_RETRY;
use super::record::{Expiry, MAX_NAME_CHARS, TokenInfo, TokenRecord, TokenStatus};
use super::secret::{Secret, SecretHash};
use super::secret_store::{SecretStore, SecretStoreError};
use crate::clock::Clock;
use crate::events::{AppEvent, EventBus};
use crate::scopes::{Scope, ScopeSet};

/// What the user asked for when creating a token.
#[derive(Debug, Clone)]
pub struct NewToken {
    pub name: String,
    pub scopes: ScopeSet,
    pub expiry: Expiry,
}

impl NewToken {
    /// A request named `name` for `scopes`, expiring as `expiry` says.
    pub fn new(name: &str, scopes: &[Scope], expiry: Expiry) -> Self {
        Self {
            name: name.to_string(),
            scopes: scopes.iter().copied().collect(),
            expiry,
        }
    }

    /// The request as it would be stored: the name trimmed, 1 to
    /// [`MAX_NAME_CHARS`] characters without control characters (it appears in
    /// the UI, in logs and as a keyring label), and at least one scope.
    pub fn validated(self) -> Result<Self, TokenError> {
        let name = self.name.trim();
        let problem = if name.is_empty() {
            Some("must not be empty".to_string())
        } else if name.chars().count() > MAX_NAME_CHARS {
            Some(format!("must be at most {MAX_NAME_CHARS} characters"))
        } else if name.chars().any(char::is_control) {
            Some("must not contain control characters".to_string())
        } else {
            None
        };
        if let Some(reason) = problem {
            return Err(TokenError::InvalidName(reason));
        }
        if self.scopes.is_empty() {
            return Err(TokenError::NoScopes);
        }
        Ok(Self {
            name: name.to_string(),
            ..self
        })
    }
}

/// A freshly created token. `secret` is shown to the user once and then
/// dropped: it is never retrievable again.
#[derive(Debug)]
pub struct CreatedToken {
    pub info: TokenInfo,
    pub secret: Secret,
}

/// Whether the OS keyring could be used when tokens were loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum KeyringStatus {
    Available,
    /// Every token check is refused until the keyring answers; it is tried
    /// again in the background, with backoff, and at once when a token is
    /// presented. `reason` says what went wrong the last time.
    Unavailable {
        reason: Arc<str>,
    },
}

/// All personal access tokens of one instance.
pub struct TokenStore {
    file: PathBuf,
    secrets: Arc<dyn SecretStore>,
    clock: Arc<dyn Clock>,
    state: RwLock<State>,
    /// Serializes everything that writes the file (create, revoke, flush), so
    /// two writers never interleave snapshot and save.
    writer: Mutex<()>,
    /// Some token's last-used time changed since the file was last written.
    last_used_dirty: AtomicBool,
    /// Wakes the background writer when `last_used_dirty` becomes true.
    pub(super) last_used_changed: Arc<Notify>,
    /// Wakes the keyring retry early: a token was refused for want of it.
    pub(super) keyring_wanted: Arc<Notify>,
    /// When the keyring was last tried, in milliseconds since `opened`.
    keyring_tried_ms: AtomicU64,
    opened: Instant,
    /// Where changes of the token list are announced.
    pub(super) events: EventBus,
}

struct State {
    keyring: KeyringStatus,
    tokens: HashMap<Uuid, Token>,
    /// Leading 64 bits of a secret's hash → the tokens whose hash starts so.
    by_hash: HashMap<u64, Vec<Uuid>>,
}

struct Token {
    /// `record.last_used_at` is stale; `last_used_ms` is the live value.
    record: TokenRecord,
    name: Arc<str>,
    /// `None` when the keyring has no secret for the token (or, after a
    /// restart, for a revoked one: revocation deletes the secret).
    hash: Option<SecretHash>,
    /// Epoch milliseconds, [`NEVER_USED`] if never.
    last_used_ms: AtomicI64,
}

const NEVER_USED: i64 = i64::MIN;

impl Token {
    fn new(record: TokenRecord, hash: Option<SecretHash>) -> Self {
        let last_used_ms = record
            .last_used_at
            .map_or(NEVER_USED, |at| at.timestamp_millis());
        Self {
            name: record.name.as_str().into(),
            record,
            hash,
            last_used_ms: AtomicI64::new(last_used_ms),
        }
    }

    fn record(&self) -> TokenRecord {
        let last_used_ms = self.last_used_ms.load(Ordering::Relaxed);
        TokenRecord {
            last_used_at: (last_used_ms != NEVER_USED)
                .then(|| DateTime::from_timestamp_millis(last_used_ms))
                .flatten(),
            ..self.record.clone()
        }
    }

    fn info(&self, now: DateTime<Utc>, keyring: &KeyringStatus) -> TokenInfo {
        let status = if self.record.revoked_at.is_some() {
            TokenStatus::Revoked
        } else if self.record.is_expired_at(now) {
            TokenStatus::Expired
        } else if self.hash.is_none() && *keyring == KeyringStatus::Available {
            TokenStatus::SecretMissing
        } else {
            TokenStatus::Active
        };
        TokenInfo {
            record: self.record(),
            status,
        }
    }
}

impl State {
    fn insert(&mut self, token: Token) {
        if let Some(hash) = token.hash {
            self.by_hash
                .entry(hash.lookup_key())
                .or_default()
                .push(token.record.id);
        }
        self.tokens.insert(token.record.id, token);
    }

    fn find(&self, hash: &SecretHash) -> Option<&Token> {
        self.by_hash
            .get(&hash.lookup_key())?
            .iter()
            .map(|id| &self.tokens[id])
            .find(|token| {
                token
                    .hash
                    .is_some_and(|known| bool::from(known.0.ct_eq(&hash.0)))
            })
    }
}

impl TokenStore {
    /// Loads token metadata from `file` and each live token's secret from
    /// `secrets`. A keyring that cannot be used does not fail the load: the
    /// store opens in the [`KeyringStatus::Unavailable`] state and refuses every
    /// check. Blocks on the keyring; call it off the async runtime.
    pub fn open(
        file: PathBuf,
        secrets: Arc<dyn SecretStore>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, TokenError> {
        let records = file::load(&file)?;
        let mut state = State {
            keyring: KeyringStatus::Available,
            tokens: HashMap::new(),
            by_hash: HashMap::new(),
        };
        let hashes = load_hashes(&*secrets, &records);
        if let Err(e) = &hashes {
            tracing::error!(
                reason = %e,
                "token secrets could not be loaded; every token check is refused until the keyring answers"
            );
            state.keyring = KeyringStatus::Unavailable {
                reason: e.to_string().into(),
            };
        }
        for record in records {
            // Hashes read before a failure must not make a partial set usable.
            let hash = hashes
                .as_ref()
                .ok()
                .and_then(|h| h.get(&record.id).copied());
            state.insert(Token::new(record, hash));
        }
        Ok(Self {
            file,
            secrets,
            clock,
            state: RwLock::new(state),
            writer: Mutex::new(()),
            last_used_dirty: AtomicBool::new(false),
            last_used_changed: Arc::new(Notify::new()),
            keyring_wanted: Arc::new(Notify::new()),
            keyring_tried_ms: AtomicU64::new(0),
            opened: Instant::now(),
            events: EventBus::default(),
        })
    }

    /// Announces changes of the token list on `events` (the instance's bus)
    /// from now on; a store opened alone announces on a bus of its own.
    pub(crate) fn publishing_to(mut self, events: EventBus) -> Self {
        self.events = events;
        self
    }

    /// Tries the keyring again while it is unavailable: once it answers, every
    /// live token's secret is loaded and checks work from then on. Returns
    /// whether the keyring is available. Blocks on the keyring; call it off
    /// the async runtime.
    pub fn retry_keyring(&self) -> bool {
        self.keyring_tried_ms
            .store(self.opened.elapsed().as_millis() as u64, Ordering::Relaxed);
        let records: Vec<TokenRecord> = {
            let state = self.read();
            if state.keyring == KeyringStatus::Available {
                return true;
            }
            state.tokens.values().map(|t| t.record.clone()).collect()
        };
        let loaded = load_hashes(&*self.secrets, &records);
        let mut guard = self.write();
        let state = &mut *guard;
        match loaded {
            Ok(hashes) => {
                state.by_hash.clear();
                for (id, token) in state.tokens.iter_mut() {
                    token.hash = hashes.get(id).copied();
                    if let Some(hash) = token.hash {
                        state
                            .by_hash
                            .entry(hash.lookup_key())
                            .or_default()
                            .push(*id);
                    }
                }
                state.keyring = KeyringStatus::Available;
                drop(guard);
                tracing::info!(
                    tokens = hashes.len(),
                    "the OS keyring is available again; tokens are accepted"
                );
                self.events.publish(AppEvent::TokensChanged);
                true
            }
            Err(e) => {
                tracing::debug!(reason = %e, "the OS keyring is still unavailable");
                state.keyring = KeyringStatus::Unavailable {
                    reason: e.to_string().into(),
                };
                false
            }
        }
    }

    /// A check was refused for want of the keyring: wake the retry, unless
    /// it tried less than [`EAGER_RETRY`] ago.
    fn want_keyring(&self) {
        let now = self.opened.elapsed().as_millis() as u64;
        let tried = self.keyring_tried_ms.load(Ordering::Relaxed);
        if now.saturating_sub(tried) >= EAGER_RETRY.as_millis() as u64 {
            self.keyring_wanted.notify_one();
        }
    }

    /// The one token check, shared by the in-process API and the REST server.
    /// Never blocks on I/O.
    pub fn check(&self, presented: &str) -> TokenCheck {
        let hash = SecretHash::of(presented);
        let state = self.read();
        let outcome = match &state.keyring {
            KeyringStatus::Unavailable { reason } => {
                self.want_keyring();
                TokenCheck::KeyringUnavailable {
                    reason: reason.clone(),
                }
            }
            KeyringStatus::Available => match state.find(&hash) {
                Some(token) => self.judge(token),
                None => TokenCheck::Invalid,
            },
        };
        drop(state);
        log_refusal(&outcome);
        outcome
    }

    /// Checks again a token that passed [`TokenStore::check`] earlier (an API
    /// object held by a script), so revocation and expiry reach it too.
    pub fn recheck(&self, id: Uuid) -> TokenCheck {
        let state = self.read();
        let outcome = match (&state.keyring, state.tokens.get(&id)) {
            (KeyringStatus::Unavailable { reason }, _) => {
                self.want_keyring();
                TokenCheck::KeyringUnavailable {
                    reason: reason.clone(),
                }
            }
            (KeyringStatus::Available, Some(token)) if token.hash.is_some() => self.judge(token),
            (KeyringStatus::Available, _) => TokenCheck::Invalid,
        };
        drop(state);
        log_refusal(&outcome);
        outcome
    }

    fn judge(&self, token: &Token) -> TokenCheck {
        let now = self.clock.now();
        let (id, name) = (token.record.id, token.name.clone());
        if token.record.revoked_at.is_some() {
            return TokenCheck::Revoked { id, name };
        }
        if token.record.is_expired_at(now) {
            return TokenCheck::Expired { id, name };
        }
        token
            .last_used_ms
            .fetch_max(now.timestamp_millis(), Ordering::Relaxed);
        // Load first: the common case (already dirty) then writes nothing shared.
        if !self.last_used_dirty.load(Ordering::Relaxed)
            && !self.last_used_dirty.swap(true, Ordering::AcqRel)
        {
            self.last_used_changed.notify_one();
        }
        TokenCheck::Valid(Grant {
            token_id: id,
            token_name: name,
            scopes: token.record.scopes,
        })
    }

    /// Creates a token: secret into the keyring first, then metadata to disk.
    /// If either step fails nothing is left behind and the error says why.
    pub fn create(&self, new: NewToken) -> Result<CreatedToken, TokenError> {
        let new = new.validated()?;
        let _writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if let KeyringStatus::Unavailable { reason } = &self.read().keyring {
            return Err(TokenError::KeyringUnavailable(reason.to_string()));
        }
        let now = self.clock.now();
        let record = TokenRecord {
            id: Uuid::new_v4(),
            name: new.name,
            scopes: new.scopes,
            created_at: now,
            expires_at: new.expiry.expires_at(now),
            last_used_at: None,
            revoked_at: None,
        };
        let secret = Secret::generate();
        self.secrets
            .set(record.id, &keyring_label(&record.name), &secret)
            .map_err(TokenError::Keyring)?;
        if let Err(e) = self.persist(Some(&record)) {
            if let Err(cleanup) = self.secrets.delete(record.id) {
                tracing::warn!(token_id = %record.id, error = %cleanup,
                    "could not remove the secret of a token whose creation failed");
            }
            return Err(e);
        }
        let token = Token::new(record, Some(secret.hash()));
        let mut state = self.write();
        let info = token.info(now, &state.keyring);
        state.insert(token);
        drop(state);
        tracing::info!(
            token_id = %info.record.id, token_name = %info.record.name,
            scopes = ?Vec::from(info.record.scopes), expires_at = ?info.record.expires_at,
            "token created"
        );
        self.events.publish(AppEvent::TokensChanged);
        Ok(CreatedToken { info, secret })
    }

    /// Revokes a token. It is refused from the next check on (before anything
    /// is written), stays revoked across restarts, and its secret is deleted
    /// from the keyring. Revoking a revoked token changes nothing.
    pub fn revoke(&self, id: Uuid) -> Result<TokenInfo, TokenError> {
        let _writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let now = self.clock.now();
        let info = {
            let mut guard = self.write();
            let state = &mut *guard;
            let token = state.tokens.get_mut(&id).ok_or(TokenError::NotFound(id))?;
            if token.record.revoked_at.is_some() {
                return Ok(token.info(now, &state.keyring));
            }
            token.record.revoked_at = Some(now);
            token.info(now, &state.keyring)
        };
        tracing::info!(token_id = %id, token_name = %info.record.name, "token revoked");
        // Refused from now on, whether or not the file can be written.
        self.events.publish(AppEvent::TokensChanged);
        self.persist(None)?;
        if let Err(e) = self.secrets.delete(id) {
            tracing::warn!(token_id = %id, error = %e,
                "the revoked token's secret could not be deleted from the keyring; the token is refused regardless");
        }
        Ok(info)
    }

    /// Every token, oldest first, with its status now.
    pub fn list(&self) -> Vec<TokenInfo> {
        let now = self.clock.now();
        let state = self.read();
        let mut infos: Vec<_> = state
            .tokens
            .values()
            .map(|token| token.info(now, &state.keyring))
            .collect();
        infos.sort_by_key(|info| (info.record.created_at, info.record.id));
        infos
    }

    /// How long until the next live token expires, if one ever will.
    pub(super) fn until_next_expiry(&self) -> Option<std::time::Duration> {
        let now = self.clock.now();
        self.read()
            .tokens
            .values()
            .filter(|token| token.record.revoked_at.is_none())
            .filter_map(|token| token.record.expires_at)
            .filter(|at| *at > now)
            .min()
            .map(|at| (at - now).to_std().unwrap_or_default())
    }

    /// Whether tokens could be loaded from the keyring, and if not, why.
    pub fn keyring_status(&self) -> KeyringStatus {
        self.read().keyring.clone()
    }

    /// Writes pending last-used times to disk, if any changed.
    pub fn flush_last_used(&self) -> Result<(), TokenError> {
        if !self.last_used_dirty.load(Ordering::Acquire) {
            return Ok(());
        }
        let _writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        self.persist(None)
    }

    /// Saves every record (plus `pending`, not yet in memory) to the file.
    /// Callers hold `writer`.
    fn persist(&self, pending: Option<&TokenRecord>) -> Result<(), TokenError> {
        // Cleared before the snapshot: a check racing with us re-dirties it and
        // its time is written next round rather than lost.
        let was_dirty = self.last_used_dirty.swap(false, Ordering::AcqRel);
        let mut records: Vec<TokenRecord> =
            self.read().tokens.values().map(Token::record).collect();
        records.extend(pending.cloned());
        records.sort_by_key(|record| (record.created_at, record.id));
        file::save(&self.file, records).inspect_err(|_| {
            if was_dirty {
                self.last_used_dirty.store(true, Ordering::Release);
                self.last_used_changed.notify_one();
            }
        })
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for TokenStore {
    /// Last-used times still in memory are written on the way out, and the
    /// background tasks (which hold only weak references) are told to stop.
    fn drop(&mut self) {
        if let Err(e) = self.flush_last_used() {
            tracing::warn!(error = %e, "could not save token last-used times");
        }
        self.last_used_changed.notify_one();
        self.keyring_wanted.notify_one();
    }
}

/// Each live token's secret hash from `secrets`; a token the keyring has no
/// secret for is left out (and logged). Fails as a whole when the keyring
/// cannot be used.
fn load_hashes(
    secrets: &dyn SecretStore,
    records: &[TokenRecord],
) -> Result<HashMap<Uuid, SecretHash>, SecretStoreError> {
    secrets.probe()?;
    let mut hashes = HashMap::new();
    for record in records.iter().filter(|r| r.revoked_at.is_none()) {
        match secrets.hash(record.id)? {
            Some(hash) => {
                hashes.insert(record.id, hash);
            }
            None => tracing::warn!(
                token_id = %record.id, token_name = %record.name,
                "the keyring has no secret for this token; it cannot be used"
            ),
        }
    }
    Ok(hashes)
}

/// Refusals are logged with the token's id and name (never the secret).
fn log_refusal(outcome: &TokenCheck) {
    match outcome {
        TokenCheck::Valid(_) => {}
        TokenCheck::Invalid => tracing::debug!("token check: no token has this secret"),
        TokenCheck::Expired { id, name } => {
            tracing::info!(token_id = %id, token_name = %name, "token check: expired")
        }
        TokenCheck::Revoked { id, name } => {
            tracing::info!(token_id = %id, token_name = %name, "token check: revoked")
        }
        TokenCheck::KeyringUnavailable { reason } => {
            tracing::warn!(%reason, "token check refused: the OS keyring is unavailable")
        }
    }
}

fn keyring_label(name: &str) -> String {
    format!("Almanac personal access token: {name}")
}
