//! A vault that cannot be used is a reported state, not a failure: the
//! engine starts with empty note calendars, refuses writes to them, says why,
//! and recovers by itself once the folder can be used. Settings reach the
//! engine through the settings store's change channel, whoever changes them.
//!
//! The fault is real: the vault path is an existing regular file. (Tests run
//! as root here, and root reads a mode-000 folder as if nothing were wrong.)

use crate::common;

use std::sync::Arc;

use almanac_core::calendar::{CalendarError, VaultStatus};
use almanac_core::settings::class::Actor;
use almanac_core::settings::{KindSettings, SettingsStore};
use common::*;
use serde_json::json;

const NOTE: &str = "---\ntitle: Standup\ndate: 2024-05-01\n---\n";

fn reason(status: VaultStatus) -> String {
    match status {
        VaultStatus::Unavailable { reason, .. } => reason,
        VaultStatus::Available => panic!("the vault was reported available"),
    }
}

#[test]
fn a_file_where_the_vault_should_be_starts_empty_and_recovers_once_it_is_a_folder() {
    let vault = TestVault::new();
    std::fs::write(vault.vault(), b"not a folder").unwrap();
    let store = Arc::new(SettingsStore::open(&vault.paths().settings_file()).unwrap());
    store.replace(Actor::User, vault.settings.clone()).unwrap();

    let cal = vault.open();
    cal.follow(&store);
    let why = reason(cal.vault_status());
    assert!(
        why.contains(&vault.vault().display().to_string()),
        "the reason names the path: {why}"
    );
    assert!(all(&cal).is_empty());
    assert_eq!(cal.sources().len(), 1, "the calendars are still listed");
    let refused = cal
        .create(
            "local",
            fields(json!({"title": "Nope", "date": "2024-05-02", "allDay": true})),
        )
        .unwrap_err();
    assert!(
        matches!(refused, CalendarError::VaultUnavailable(_)),
        "{refused:?}"
    );
    assert_eq!(refused.code(), "vault_unavailable");

    // Fixed outside Almanac: the file becomes the folder it should be.
    std::fs::remove_file(vault.vault()).unwrap();
    vault.write("events/standup.md", NOTE);
    wait_until(&cal, "the vault to be picked up", |c| {
        c.vault_status().is_available() && titles(&all(c)) == ["Standup"]
    });
    // …and from then on it is watched like any vault.
    vault.write("events/review.md", &NOTE.replace("Standup", "Review"));
    wait_until(&cal, "the watcher to run", |c| all(c).len() == 2);
    assert!(cal.stats().watcher_alive);
}

#[test]
fn a_vault_under_a_file_is_unavailable_and_a_settings_change_moves_away_from_it() {
    let vault = TestVault::new();
    vault.write("events/standup.md", NOTE);
    let store = Arc::new(SettingsStore::open(&vault.paths().settings_file()).unwrap());
    store.replace(Actor::User, vault.settings.clone()).unwrap();
    let cal = vault.open();
    cal.follow(&store);
    assert_eq!(titles(&all(&cal)), ["Standup"]);

    // A path through a regular file cannot become a folder (ENOTDIR).
    let blocker = vault.dir.path().join("blocker");
    std::fs::write(&blocker, b"").unwrap();
    let unusable = blocker.join("vault");
    // Straight through the store: no API call, the engine follows anyway.
    store
        .update(Actor::User, &json!({"vaultPath": unusable}))
        .unwrap();
    wait_until(&cal, "the vault problem", |c| {
        !c.vault_status().is_available() && all(c).is_empty()
    });
    assert!(reason(cal.vault_status()).contains("blocker"));
    assert_eq!(store.get().vault_path, unusable, "not rolled back");

    store
        .update(Actor::User, &json!({"vaultPath": vault.vault()}))
        .unwrap();
    wait_until(&cal, "the old vault again", |c| {
        c.vault_status().is_available() && titles(&all(c)) == ["Standup"]
    });
}

#[test]
fn every_settings_change_reaches_the_engine_through_the_store() {
    let vault = TestVault::new();
    vault.write("events/standup.md", NOTE);
    vault.write("work/plan.md", &NOTE.replace("Standup", "Plan"));
    let store = Arc::new(SettingsStore::open(&vault.paths().settings_file()).unwrap());
    store.replace(Actor::User, vault.settings.clone()).unwrap();
    let cal = vault.open();
    cal.follow(&store);

    let mut sources = vault.settings.calendar_sources.clone();
    sources.push(source(
        "work",
        KindSettings::FullNote {
            directory: "work".into(),
        },
    ));
    store
        .update(Actor::User, &json!({ "calendarSources": sources }))
        .unwrap();
    wait_until(&cal, "the new source", |c| {
        let mut t = titles(&all(c));
        t.sort();
        t == ["Plan", "Standup"]
    });
    store
        .update(Actor::User, &json!({"displayTimezone": "Asia/Tokyo"}))
        .unwrap();
    wait_until(&cal, "the new zone", |c| {
        c.display_timezone() == chrono_tz::Asia::Tokyo
    });
    // A change the engine does not read costs no rescan. (Catching up first
    // waits for the zone change's rescan, which may still be running.)
    cal.catch_up(&store);
    let generation = *cal.subscribe().borrow();
    store.update(Actor::User, &json!({"firstDay": 1})).unwrap();
    cal.catch_up(&store);
    assert_eq!(*cal.subscribe().borrow(), generation);
}
