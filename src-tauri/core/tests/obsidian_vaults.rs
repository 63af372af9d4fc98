//! Finding the vaults Obsidian knows, from its `obsidian.json` as Obsidian
//! writes it: most recently opened first, gone folders left out, each marked
//! when it holds a Full Calendar plugin's settings.

use std::path::{Path, PathBuf};

use almanac_core::onboarding::obsidian_vaults::{VAULT_LIST, vault_lists, vaults_in};
use almanac_core::onboarding::{
    MAX_SETTINGS_BYTES, ORIGINAL_SETTINGS, ObsidianVault, REMASTERED_SETTINGS,
};
use serde_json::json;

fn folder(root: &Path, name: &str) -> PathBuf {
    let path = root.join(name);
    std::fs::create_dir_all(&path).unwrap();
    path
}

fn plugin_settings(vault: &Path, file: &str) {
    let path = vault.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, r#"{"calendarSources": []}"#).unwrap();
}

/// `obsidian.json` under `config` (Obsidian's config folder's parent), as
/// Obsidian writes it: vaults by random id, with path, last-open time in
/// milliseconds and whether each is open, plus its other keys.
fn write_list(config: &Path, vaults: serde_json::Value) -> PathBuf {
    let list = config.join(VAULT_LIST);
    std::fs::create_dir_all(list.parent().unwrap()).unwrap();
    let data = json!({"vaults": vaults, "frame": "hidden", "updateDisabled": false});
    std::fs::write(&list, serde_json::to_string(&data).unwrap()).unwrap();
    list
}

#[test]
fn the_vaults_come_most_recent_first_and_marked() {
    let root = tempfile::tempdir().unwrap();
    let work = folder(root.path(), "Work");
    let diary = folder(root.path(), "Diary");
    let plain = folder(root.path(), "Plain");
    plugin_settings(&work, REMASTERED_SETTINGS);
    plugin_settings(&diary, ORIGINAL_SETTINGS);
    // The path Almanac once read, which neither plugin writes.
    plugin_settings(&plain, ".obsidian/plugins/full-calendar/data.json");
    let gone = root.path().join("Deleted");
    let list = write_list(
        &root.path().join("config"),
        json!({
            "a1b2c3d4e5f60718": {"path": plain, "ts": 1_700_000_000_000_i64},
            "0f1e2d3c4b5a6978": {"path": work, "ts": 1_700_000_300_000_i64, "open": true},
            "1122334455667788": {"path": gone, "ts": 1_800_000_000_000_i64},
            "99aabbccddeeff00": {"path": diary, "ts": 1_700_000_200_000_i64},
            "8877665544332211": {"path": "relative/vault", "ts": 1_900_000_000_000_i64}
        }),
    );

    let vaults = vaults_in(&[list]);

    let vault = |path: &Path, last_opened: i64, has_full_calendar: bool| ObsidianVault {
        path: path.to_path_buf(),
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        last_opened,
        has_full_calendar,
    };
    assert_eq!(
        vaults,
        [
            vault(&work, 1_700_000_300_000, true),
            vault(&diary, 1_700_000_200_000, true),
            vault(&plain, 1_700_000_000_000, false),
        ]
    );
    assert!(!root.path().join("Deleted").exists(), "nothing is created");
}

#[test]
fn a_list_that_cannot_be_read_finds_none() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("config");
    let vault = folder(root.path(), "Vault");
    let list = write_list(&config, json!({"x": {"path": vault, "ts": 1}}));
    assert_eq!(vaults_in(std::slice::from_ref(&list)).len(), 1);

    for broken in [
        "{\"vaults\": {".to_string(),
        "[1, 2]".to_string(),
        r#"{"vaults": []}"#.to_string(),
        r#"{"vaults": {"x": {"path": 3}}}"#.to_string(),
        format!(
            "{{\"pad\": \"{}\"}}",
            "x".repeat(MAX_SETTINGS_BYTES as usize)
        ),
    ] {
        std::fs::write(&list, &broken).unwrap();
        assert!(
            vaults_in(std::slice::from_ref(&list)).is_empty(),
            "{:.40}",
            broken
        );
    }
    assert!(vaults_in(&[root.path().join("missing.json")]).is_empty());
}

#[test]
fn lists_are_merged_each_vault_once() {
    let root = tempfile::tempdir().unwrap();
    let shared = folder(root.path(), "Shared");
    let flatpak = folder(root.path(), "Flatpak only");
    let native = write_list(
        &root.path().join("native"),
        json!({"a": {"path": shared, "ts": 10}}),
    );
    let sandboxed = write_list(
        &root.path().join("flatpak"),
        json!({"b": {"path": shared, "ts": 30}, "c": {"path": flatpak, "ts": 20}}),
    );
    let vaults = vaults_in(&[native, sandboxed]);
    let seen: Vec<_> = vaults
        .iter()
        .map(|v| (v.name.as_str(), v.last_opened))
        .collect();
    assert_eq!(seen, [("Shared", 30), ("Flatpak only", 20)]);
}

#[test]
fn obsidians_config_folders_are_where_it_keeps_them() {
    let lists = vault_lists(
        Some(PathBuf::from("/home/ada/.config")),
        Some(PathBuf::from("/home/ada")),
    );
    assert_eq!(
        lists[0],
        PathBuf::from("/home/ada/.config/obsidian/obsidian.json")
    );
    if cfg!(target_os = "linux") {
        assert_eq!(
            lists[1..],
            [
                PathBuf::from(
                    "/home/ada/.var/app/md.obsidian.Obsidian/config/obsidian/obsidian.json"
                ),
                PathBuf::from("/home/ada/snap/obsidian/current/.config/obsidian/obsidian.json"),
            ]
        );
    }
    assert!(vault_lists(None, None).is_empty());
}
