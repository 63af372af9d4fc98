//! Tokens against the real OS keyring (gnome-keyring over D-Bus). Run with
//! `scripts/session.sh cargo nextest run -p almanac-core`; without a Secret Service
//! these tests fail, they do not skip.

use std::sync::Arc;

use almanac_core::clock::{Clock, SystemClock};
use almanac_core::tokens::{
    Expiry, KeyringStatus, NewToken, Scope, TokenCheck, TokenStatus, TokenStore,
};
use almanac_testkit::{
    ManualClock, captured_logs, files_containing, keyring_lookup, logs_text, real_keyring,
};
use chrono::Duration;

fn open(dir: &std::path::Path, clock: Arc<dyn Clock>) -> TokenStore {
    TokenStore::open(dir.join("tokens.json"), real_keyring(), clock).unwrap()
}

#[test]
fn create_check_and_revoke_through_the_keyring() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), Arc::new(SystemClock));
    let created = store
        .create(NewToken::new(
            "backup script",
            &[Scope::EventsRead],
            Expiry::Never,
        ))
        .unwrap();
    let id = created.info.record.id;
    assert!(created.secret.expose().starts_with("ofc_pat_"));
    assert_eq!(
        keyring_lookup(id).as_deref(),
        Some(created.secret.expose()),
        "secret-tool does not see the secret Almanac stored"
    );

    let grant = store.check(created.secret.expose()).grant().unwrap();
    assert_eq!(grant.token_id, id);
    assert_eq!(store.check("ofc_pat_wrong"), TokenCheck::Invalid);

    store.revoke(id).unwrap();
    assert_eq!(
        store.check(created.secret.expose()),
        TokenCheck::Revoked {
            id,
            name: "backup script".into()
        }
    );
    assert_eq!(
        keyring_lookup(id),
        None,
        "revocation left the secret in the keyring"
    );
}

#[test]
fn expiry_is_enforced_with_an_injected_clock() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new();
    let store = open(dir.path(), clock.clone());
    let created = store
        .create(NewToken::new(
            "quarterly",
            &[Scope::ProvidersRead],
            Expiry::Days90,
        ))
        .unwrap();
    let id = created.info.record.id;
    assert_eq!(
        created.info.record.expires_at,
        Some(created.info.record.created_at + Duration::days(90))
    );
    clock.advance(Duration::days(89));
    assert!(store.check(created.secret.expose()).grant().is_some());
    clock.advance(Duration::days(1));
    assert_eq!(
        store.check(created.secret.expose()),
        TokenCheck::Expired {
            id,
            name: "quarterly".into()
        }
    );
    // Expired survives a restart too.
    drop(store);
    let store = open(dir.path(), clock.clone());
    assert!(matches!(
        store.check(created.secret.expose()),
        TokenCheck::Expired { .. }
    ));
    store.revoke(id).unwrap();
}

#[test]
fn tokens_survive_a_restart_and_revoked_ones_stay_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new();
    let (kept, revoked) = {
        let store = open(dir.path(), clock.clone());
        let kept = store
            .create(NewToken::new(
                "kept",
                &[Scope::EventsRead, Scope::EventsWrite],
                Expiry::Days365,
            ))
            .unwrap();
        let revoked = store
            .create(NewToken::new(
                "revoked",
                &[Scope::SettingsRead],
                Expiry::Never,
            ))
            .unwrap();
        store.revoke(revoked.info.record.id).unwrap();
        assert!(store.check(kept.secret.expose()).grant().is_some());
        (kept, revoked)
    }; // dropping the store writes the pending last-used time

    let store = open(dir.path(), clock.clone());
    assert_eq!(store.keyring_status(), KeyringStatus::Available);
    let grant = store.check(kept.secret.expose()).grant().unwrap();
    assert!(grant.scopes.grants(Scope::EventsWrite));
    assert!(store.check(revoked.secret.expose()).grant().is_none());
    let listed = store.list();
    let status = |id| listed.iter().find(|t| t.record.id == id).unwrap();
    assert_eq!(status(kept.info.record.id).status, TokenStatus::Active);
    assert_eq!(
        status(kept.info.record.id)
            .record
            .last_used_at
            .map(|t| t.timestamp_millis()),
        Some(clock.now().timestamp_millis())
    );
    assert_eq!(status(revoked.info.record.id).status, TokenStatus::Revoked);
    store.revoke(kept.info.record.id).unwrap();
}

#[test]
fn secrets_never_reach_files_or_logs() {
    captured_logs();
    let config = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let paths = almanac_core::paths::Paths::new(config.path(), data.path());
    almanac_core::settings::SettingsStore::open(&paths.settings_file()).unwrap();
    let store =
        TokenStore::open(paths.tokens_file(), real_keyring(), Arc::new(SystemClock)).unwrap();
    let mut secrets = Vec::new();
    for (name, expiry) in [("one", Expiry::Never), ("two", Expiry::Days30)] {
        let created = store
            .create(NewToken::new(name, &Scope::ALL, expiry))
            .unwrap();
        assert!(store.check(created.secret.expose()).grant().is_some());
        secrets.push((created.info.record.id, created.secret));
    }
    store.revoke(secrets[1].0).unwrap();
    store.check(secrets[1].1.expose());
    store.flush_last_used().unwrap();
    drop(store);

    let logs = logs_text();
    for (id, _) in &secrets {
        // Positive control: the capture works and the events name the token.
        assert!(logs.contains(&id.to_string()), "token {id} never logged");
    }
    for (_, secret) in &secrets {
        let random_part = &secret.expose()["ofc_pat_".len()..];
        for dir in [config.path(), data.path()] {
            assert_eq!(
                files_containing(dir, random_part),
                Vec::<std::path::PathBuf>::new()
            );
        }
        assert!(!logs.contains(random_part), "a secret reached the logs");
    }
    assert!(
        !files_containing(data.path(), "\"one\"").is_empty(),
        "metadata not written"
    );
}
