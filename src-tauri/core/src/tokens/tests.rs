//! Unit tests of the token logic against an in-memory secret store. The same
//! behaviour against the real OS keyring is in `tests/tokens_keyring.rs`.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};

use super::secret_store::MemorySecretStore;
use super::*;
use crate::clock::Clock;

struct ManualClock(Mutex<DateTime<Utc>>);

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

impl ManualClock {
    fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by;
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    secrets: Arc<MemorySecretStore>,
    clock: Arc<ManualClock>,
}

impl Fixture {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            secrets: Arc::default(),
            clock: Arc::new(ManualClock(Mutex::new(Utc::now()))),
        }
    }

    fn open(&self) -> TokenStore {
        TokenStore::open(
            self.dir.path().join("tokens.json"),
            self.secrets.clone(),
            self.clock.clone(),
        )
        .unwrap()
    }
}

#[test]
fn a_created_token_checks_valid_with_its_scopes() {
    let fx = Fixture::new();
    let store = fx.open();
    let created = store
        .create(NewToken::new(
            "  cron job ",
            &[Scope::EventsRead],
            Expiry::Never,
        ))
        .unwrap();
    assert_eq!(created.info.record.name, "cron job");
    assert_eq!(created.info.status, TokenStatus::Active);
    let grant = store.check(created.secret.expose()).grant().unwrap();
    assert_eq!(grant.token_id, created.info.record.id);
    assert!(grant.scopes.grants(Scope::EventsRead));
    assert!(!grant.scopes.grants(Scope::EventsWrite));
    assert_eq!(store.check("ofc_pat_nope"), TokenCheck::Invalid);
    assert_eq!(store.check(""), TokenCheck::Invalid);
}

#[test]
fn bad_requests_create_nothing() {
    let fx = Fixture::new();
    let store = fx.open();
    let long = "x".repeat(record::MAX_NAME_CHARS + 1);
    for (name, scopes) in [
        ("   ", &[Scope::EventsRead][..]),
        (long.as_str(), &[Scope::EventsRead][..]),
        ("tab\there", &[Scope::EventsRead][..]),
        ("no scopes", &[][..]),
    ] {
        assert!(
            store
                .create(NewToken::new(name, scopes, Expiry::Never))
                .is_err()
        );
    }
    assert!(store.list().is_empty());
    assert!(fx.secrets.secrets.lock().unwrap().is_empty());
    let exact = "é".repeat(record::MAX_NAME_CHARS);
    store
        .create(NewToken::new(&exact, &[Scope::EventsRead], Expiry::Never))
        .unwrap();
}

#[test]
fn expiry_applies_from_the_instant_it_is_due() {
    let fx = Fixture::new();
    let store = fx.open();
    let created = store
        .create(NewToken::new(
            "monthly",
            &[Scope::EventsRead],
            Expiry::Days30,
        ))
        .unwrap();
    let id = created.info.record.id;
    fx.clock
        .advance(Duration::days(30) - Duration::milliseconds(1));
    assert!(store.check(created.secret.expose()).grant().is_some());
    fx.clock.advance(Duration::milliseconds(1));
    assert_eq!(
        store.check(created.secret.expose()),
        TokenCheck::Expired {
            id,
            name: "monthly".into()
        }
    );
    assert_eq!(store.list()[0].status, TokenStatus::Expired);
}

#[test]
fn revocation_applies_to_the_next_check_and_survives_restart() {
    let fx = Fixture::new();
    let store = fx.open();
    let created = store
        .create(NewToken::new("ci", &[Scope::EventsWrite], Expiry::Never))
        .unwrap();
    let id = created.info.record.id;
    assert!(store.check(created.secret.expose()).grant().is_some());
    store.revoke(id).unwrap();
    assert!(matches!(
        store.check(created.secret.expose()),
        TokenCheck::Revoked { .. }
    ));
    assert_eq!(store.recheck(id).kind(), "revoked");
    assert!(fx.secrets.secrets.lock().unwrap().is_empty());
    drop(store);
    let store = fx.open();
    assert_eq!(store.list()[0].status, TokenStatus::Revoked);
    // After a restart the secret is gone from the keyring, so it is unknown.
    assert_eq!(store.check(created.secret.expose()), TokenCheck::Invalid);
    assert!(matches!(
        store.revoke(uuid::Uuid::nil()),
        Err(TokenError::NotFound(_))
    ));
}

#[test]
fn last_used_is_kept_in_memory_and_written_on_flush_not_per_check() {
    let fx = Fixture::new();
    let store = fx.open();
    let created = store
        .create(NewToken::new("x", &[Scope::EventsRead], Expiry::Never))
        .unwrap();
    let file = fx.dir.path().join("tokens.json");
    let written = std::fs::read(&file).unwrap();
    let used_at = fx.clock.now();
    store.check(created.secret.expose());
    assert_eq!(
        std::fs::read(&file).unwrap(),
        written,
        "a check wrote the file"
    );
    let used = store.list()[0].record.last_used_at.unwrap();
    assert_eq!(used.timestamp_millis(), used_at.timestamp_millis());
    store.flush_last_used().unwrap();
    drop(store);
    let reopened = fx.open();
    assert_eq!(reopened.list()[0].record.last_used_at, Some(used));
}

#[test]
fn an_unavailable_keyring_refuses_every_check_and_creation() {
    let fx = Fixture::new();
    let created = {
        let store = fx.open();
        store
            .create(NewToken::new("x", &[Scope::EventsRead], Expiry::Never))
            .unwrap()
    };
    let down = Arc::new(MemorySecretStore {
        secrets: Mutex::new(fx.secrets.secrets.lock().unwrap().clone()),
        unavailable: true.into(),
    });
    let store =
        TokenStore::open(fx.dir.path().join("tokens.json"), down, fx.clock.clone()).unwrap();
    assert!(matches!(
        store.keyring_status(),
        KeyringStatus::Unavailable { .. }
    ));
    assert_eq!(
        store.check(created.secret.expose()).kind(),
        "keyring-unavailable"
    );
    assert!(matches!(
        store.create(NewToken::new("y", &[Scope::EventsRead], Expiry::Never)),
        Err(TokenError::KeyringUnavailable(_))
    ));
    assert_eq!(store.list().len(), 1);
}

#[test]
fn a_keyring_that_comes_up_later_is_picked_up_by_a_retry() {
    use std::sync::atomic::Ordering;
    let fx = Fixture::new();
    let (live, revoked) = {
        let store = fx.open();
        let live = store
            .create(NewToken::new("live", &[Scope::EventsRead], Expiry::Never))
            .unwrap();
        let revoked = store
            .create(NewToken::new(
                "revoked",
                &[Scope::EventsRead],
                Expiry::Never,
            ))
            .unwrap();
        store.revoke(revoked.info.record.id).unwrap();
        (live, revoked)
    };
    fx.secrets.unavailable.store(true, Ordering::SeqCst);
    let store = fx.open();
    assert_eq!(
        store.check(live.secret.expose()).kind(),
        "keyring-unavailable"
    );
    assert!(!store.retry_keyring(), "still down");
    assert_eq!(
        store.check(live.secret.expose()).kind(),
        "keyring-unavailable"
    );

    fx.secrets.unavailable.store(false, Ordering::SeqCst);
    assert!(store.retry_keyring());
    assert_eq!(store.keyring_status(), KeyringStatus::Available);
    let grant = store.check(live.secret.expose()).grant().expect("valid");
    assert_eq!(grant.token_id, live.info.record.id);
    assert_eq!(store.check(revoked.secret.expose()).kind(), "invalid");
    assert_eq!(store.check("ofc_pat_unknown").kind(), "invalid");
    assert!(
        store
            .create(NewToken::new("after", &[Scope::EventsRead], Expiry::Never))
            .is_ok()
    );
}

#[tokio::test(start_paused = true)]
async fn the_background_retry_backs_off_and_a_presented_token_wakes_it() {
    use std::sync::atomic::Ordering;
    let fx = Fixture::new();
    let live = fx
        .open()
        .create(NewToken::new("live", &[Scope::EventsRead], Expiry::Never))
        .unwrap();
    fx.secrets.unavailable.store(true, Ordering::SeqCst);
    let store = Arc::new(fx.open());
    let retry = spawn_keyring_retry(&store);
    // Tries at 1, 3, 7, 15, 31 and 61 s fail; the next is due at 91 s.
    tokio::time::sleep(Duration::seconds(65).to_std().unwrap()).await;
    assert_eq!(
        store.check(live.secret.expose()).kind(),
        "keyring-unavailable"
    );
    fx.secrets.unavailable.store(false, Ordering::SeqCst);
    // The check above found the last try 4 s old and woke the retry: it
    // succeeds long before the backoff would have come round.
    tokio::time::timeout(keyring_retry::EAGER_RETRY * 2, retry)
        .await
        .expect("the woken retry found the keyring")
        .unwrap();
    assert!(store.check(live.secret.expose()).grant().is_some());
}

#[test]
fn a_secret_missing_from_the_keyring_is_reported_not_fatal() {
    let fx = Fixture::new();
    let store = fx.open();
    let created = store
        .create(NewToken::new("gone", &[Scope::EventsRead], Expiry::Never))
        .unwrap();
    let kept = store
        .create(NewToken::new("kept", &[Scope::EventsRead], Expiry::Never))
        .unwrap();
    drop(store);
    fx.secrets
        .secrets
        .lock()
        .unwrap()
        .remove(&created.info.record.id);
    let store = fx.open();
    assert_eq!(store.keyring_status(), KeyringStatus::Available);
    let status_of = |id| {
        store
            .list()
            .into_iter()
            .find(|t| t.record.id == id)
            .unwrap()
            .status
    };
    assert_eq!(
        status_of(created.info.record.id),
        TokenStatus::SecretMissing
    );
    assert_eq!(status_of(kept.info.record.id), TokenStatus::Active);
    assert_eq!(store.check(created.secret.expose()), TokenCheck::Invalid);
    assert!(store.check(kept.secret.expose()).grant().is_some());
}

#[test]
fn a_corrupt_metadata_file_is_kept_aside() {
    let fx = Fixture::new();
    std::fs::write(fx.dir.path().join("tokens.json"), b"{ nope").unwrap();
    let store = fx.open();
    assert!(store.list().is_empty());
    let aside = std::fs::read_dir(fx.dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains("corrupt"));
    assert!(aside);
}

#[tokio::test(start_paused = true)]
async fn the_background_writer_batches_last_used_times() {
    let fx = Fixture::new();
    let store = Arc::new(fx.open());
    let created = store
        .create(NewToken::new("x", &[Scope::EventsRead], Expiry::Never))
        .unwrap();
    let file = fx.dir.path().join("tokens.json");
    let writer = spawn_last_used_writer(&store, std::time::Duration::from_secs(5));
    for _ in 0..100 {
        store.check(created.secret.expose());
    }
    let on_disk = |file: &std::path::Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
    };
    assert!(on_disk(&file)["tokens"][0]["lastUsedAt"].is_null());
    // Paused time: the sleep completes as soon as the runtime is idle.
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    while on_disk(&file)["tokens"][0]["lastUsedAt"].is_null() {
        tokio::task::yield_now().await;
    }
    drop(store);
    tokio::time::timeout(std::time::Duration::from_secs(60), writer)
        .await
        .expect("writer stops once the store is gone")
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_token_reaching_its_expiry_is_announced_then() {
    use crate::events::{AppEvent, Delivery, EventBus};
    let fx = Fixture::new();
    let bus = EventBus::default();
    let store = Arc::new(fx.open().publishing_to(bus.clone()));
    let mut events = bus.subscribe();
    let announcer = spawn_expiry_announcer(&store);
    let started = tokio::time::Instant::now();

    store
        .create(NewToken::new("month", &[Scope::EventsRead], Expiry::Days30))
        .unwrap();
    let tokens_changed = Some(Delivery::Event(AppEvent::TokensChanged));
    assert_eq!(events.recv().await, tokens_changed, "the create");
    // Paused time runs ahead to the next timer: the expiry.
    assert_eq!(events.recv().await, tokens_changed, "the expiry");
    assert!(started.elapsed() >= Duration::days(30).to_std().unwrap());
    fx.clock.advance(Duration::days(30));
    assert_eq!(store.list()[0].status, TokenStatus::Expired);
    announcer.abort();
}
