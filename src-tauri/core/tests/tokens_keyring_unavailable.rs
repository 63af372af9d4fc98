//! With no reachable Secret Service the token store still opens: every check is
//! refused with the `KeyringUnavailable` outcome, creation says why, and the
//! diagnostics name the reason; a whole instance still starts. Its own test
//! binary, because it points this process's D-Bus session address at nothing.

use std::sync::Arc;

use almanac_core::clock::SystemClock;
use almanac_core::tokens::{
    Expiry, KeyringSecretStore, KeyringStatus, NewToken, Scope, TokenCheck, TokenError, TokenStore,
};
use almanac_testkit::InstanceBuilder;

#[tokio::test]
async fn an_unreachable_keyring_is_a_clear_state_not_a_crash() {
    // SAFETY: the only test in this binary, run before anything else reads the
    // environment or starts threads that could.
    unsafe {
        std::env::set_var(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/almanac-bus",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    // A metadata file from an earlier run, whose secret cannot be fetched now.
    std::fs::write(
        dir.path().join("tokens.json"),
        br#"{"version":1,"tokens":[{"id":"6f1c6f7e-3a53-4a4e-9d0e-0d7f5f0b8e11","name":"cron",
            "scopes":["events:read"],"createdAt":"2025-01-01T00:00:00Z","expiresAt":null,
            "lastUsedAt":null,"revokedAt":null}]}"#,
    )
    .unwrap();
    let store = TokenStore::open(
        dir.path().join("tokens.json"),
        Arc::new(KeyringSecretStore::new()),
        Arc::new(SystemClock),
    )
    .expect("the store opens without a keyring");

    let KeyringStatus::Unavailable { reason } = store.keyring_status() else {
        panic!("keyring reported available with no D-Bus session");
    };
    assert!(!reason.is_empty());
    assert!(matches!(
        store.check("ofc_pat_anything"),
        TokenCheck::KeyringUnavailable { .. }
    ));
    let refused = store
        .create(NewToken {
            name: "new".into(),
            scopes: [Scope::EventsRead].into_iter().collect(),
            expiry: Expiry::Never,
        })
        .unwrap_err();
    assert!(matches!(refused, TokenError::KeyringUnavailable(_)));
    assert!(refused.to_string().contains("keyring"), "{refused}");
    assert_eq!(store.list().len(), 1, "metadata is still listed");

    // A whole instance starts all the same, and its API refuses every token.
    let core = InstanceBuilder::new()
        .secrets(Arc::new(KeyringSecretStore::new()))
        .try_open()
        .await
        .expect("the app starts without a keyring");
    assert!(core.plugin().with_token("ofc_pat_anything").is_none());
    assert!(matches!(
        core.tokens.keyring_status(),
        KeyringStatus::Unavailable { .. }
    ));
}
