//! Settings files as Almanac reads them at start (`SettingsStore::open` on
//! a `settings.json` someone else may have written): no file may panic it;
//! the settings it starts with are always of a valid shape, and they are the
//! file's own whenever the file's shape is valid (a value only the shipped
//! data refuses, a lost time zone say, is loaded and reported, not reset). A valid file also survives being saved
//! and read again unchanged.
#![no_main]

mod common;

use std::sync::OnceLock;

use almanac_core::settings::{Settings, SettingsStore};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temp dir").keep());
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("the settings folder");
    let path = dir.join("settings.json");
    std::fs::write(&path, data).expect("the file is written");

    let store = SettingsStore::open(&path).expect("opening never fails on content");
    let started = store.get();
    assert!(
        started.validate_shape().is_ok(),
        "the settings started with are of a valid shape"
    );

    let Ok(parsed) = serde_json::from_slice::<Settings>(data) else {
        return;
    };
    if parsed.validate_shape().is_err() {
        return;
    }
    assert_eq!(*started, parsed, "a valid file is used as it is");
    let saved = serde_json::to_vec(&parsed).expect("settings serialize");
    let again: Settings = serde_json::from_slice(&saved).expect("saved settings read back");
    assert_eq!(again, parsed, "saved settings read back unchanged");
});
