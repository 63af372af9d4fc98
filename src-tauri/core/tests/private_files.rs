//! Everything Almanac keeps in its own config and data folders is the user's
//! alone: files 0600, folders 0700, whether written now or left wider by an
//! older version. Vault notes keep the user's modes.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use almanac_core::caldav_server::feeds::FeedStore;
use almanac_core::calendar::sources::caldav::mirror::{Mirror, MirrorStore};
use almanac_core::calendar::sources::caldav::queue::{QueueStore, QueuedWrite};
use almanac_core::calendar::sources::ical::{self, FeedMeta};
use almanac_core::paths::Paths;
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{InstanceBuilder, new_token, paths_in};

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// Every file and folder under `root` (itself included) with its mode.
fn modes(root: &Path) -> Vec<(String, u32)> {
    let mut found = vec![(root.display().to_string(), mode(root))];
    if root.is_dir() {
        for entry in std::fs::read_dir(root).unwrap() {
            found.extend(modes(&entry.unwrap().path()));
        }
    }
    found
}

fn assert_private(paths: &Paths, vault: &Path) {
    for root in [paths.config_dir(), paths.data_dir()] {
        for (name, mode) in modes(root) {
            if Path::new(&name).starts_with(vault) {
                continue;
            }
            let wanted = if Path::new(&name).is_dir() {
                0o700
            } else {
                0o600
            };
            assert_eq!(mode, wanted, "{name} is {mode:o}");
        }
    }
}

/// What an older version left: the same kinds of files, world-readable.
fn leave_wide_files(paths: &Paths) {
    let wide = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    let cache = paths.ical_cache_dir();
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(
        cache.join("old.ics"),
        "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
    )
    .unwrap();
    wide(&cache.join("old.ics"), 0o644);
    wide(&cache, 0o755);
    std::fs::create_dir_all(paths.caldav_queue_dir()).unwrap();
    wide(&paths.caldav_queue_dir(), 0o777);
    std::fs::create_dir_all(paths.config_dir()).unwrap();
    wide(paths.config_dir(), 0o755);
    wide(paths.data_dir(), 0o755);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_file_and_folder_almanac_keeps_is_the_owners_alone() {
    let builder = InstanceBuilder::new();
    let paths = paths_in(builder.dir());
    // A vault kept inside the data folder is still the user's.
    let vault = paths.data_dir().join("vault");
    let note = vault.join("events/2024-05-01 Plan.md");
    std::fs::create_dir_all(note.parent().unwrap()).unwrap();
    std::fs::write(&note, "---\ntitle: Plan\ndate: 2024-05-01\n---\n").unwrap();
    std::fs::set_permissions(&note, std::fs::Permissions::from_mode(0o644)).unwrap();
    leave_wide_files(&paths);
    let instance = builder.vault(&vault).open().await;

    // Everything written while running: token metadata, the ICS cache, the
    // CalDAV copy (snapshot and log) and queue, subscription feeds, settings.
    new_token(&instance, "t", &[Scope::EventsRead], Expiry::Never).await;
    let feed = ical::FeedCopies::new(&paths.ical_cache_dir());
    let meta = FeedMeta {
        url_hash: "h".into(),
        etag: None,
        last_modified: None,
        fetched_at_millis: 0,
    };
    feed.store(
        "holidays",
        Some("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"),
        &meta,
    )
    .unwrap();
    let mirrors = MirrorStore::new(&paths.ical_cache_dir());
    let mirror = Mirror::default();
    mirrors.store("work", &mirror).unwrap();
    mirrors.store_change("work", &mirror, &[]).unwrap();
    QueueStore::new(&paths.caldav_queue_dir())
        .store(
            "work",
            &[QueuedWrite::Delete {
                href: "/c/1.ics".into(),
                if_match: "\"1\"".into(),
            }],
        )
        .unwrap();
    FeedStore::new(paths.feeds_file())
        .create("phone", vec!["local".into()])
        .unwrap();
    tokio::task::block_in_place(|| {
        instance
            .plugin()
            .update_settings(
                almanac_core::settings::class::Actor::User,
                &serde_json::json!({"firstDay": 1}),
            )
            .unwrap()
    });

    assert!(paths.lock_file().exists() && paths.tokens_file().exists());
    assert_private(&paths, &vault);
    assert_eq!(mode(&note), 0o644, "a note's mode was narrowed");
}
