//! Token check cost: a valid and an invalid secret against a store of 1 and of
//! 200 tokens, next to the floor every check pays (one SHA-256 of the secret).
//!
//! Uses the real OS keyring, so run it inside the test session:
//!   scripts/session.sh cargo bench -p almanac-core --bench tokens

use std::hint::black_box;
use std::sync::Arc;

use almanac_core::clock::SystemClock;
use almanac_core::tokens::{Expiry, KeyringSecretStore, NewToken, Scope, SecretStore, TokenStore};
use criterion::{Criterion, criterion_group, criterion_main};
use sha2::{Digest, Sha256};

fn store_with(dir: &std::path::Path, tokens: usize) -> (TokenStore, String) {
    let keyring = Arc::new(KeyringSecretStore::new());
    keyring
        .probe()
        .expect("no Secret Service: run under scripts/session.sh");
    let store = TokenStore::open(dir.join("tokens.json"), keyring, Arc::new(SystemClock)).unwrap();
    let mut last = String::new();
    for n in 0..tokens {
        let created = store
            .create(NewToken {
                name: format!("bench {n}"),
                scopes: [Scope::EventsRead].into_iter().collect(),
                expiry: Expiry::Never,
            })
            .unwrap();
        last = created.secret.expose().to_string();
    }
    (store, last)
}

fn checks(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let invalid = "ofc_pat_0000000000000000000000000000000000000000000";
    let mut group = c.benchmark_group("token_check");
    group.bench_function("baseline_sha256_only", |b| {
        b.iter(|| Sha256::digest(black_box(invalid).as_bytes()))
    });
    for size in [1, 200] {
        let (store, valid) = store_with(&dir.path().join(size.to_string()), size);
        group.bench_function(format!("valid_{size}_tokens"), |b| {
            b.iter(|| assert!(store.check(black_box(&valid)).grant().is_some()))
        });
        group.bench_function(format!("invalid_{size}_tokens"), |b| {
            b.iter(|| assert!(store.check(black_box(invalid)).grant().is_none()))
        });
        for info in store.list() {
            store.revoke(info.record.id).unwrap();
        }
    }
    group.finish();
}

criterion_group!(benches, checks);
criterion_main!(benches);
