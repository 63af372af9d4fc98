//! External edits reach the cache through the file watcher: creates, edits,
//! deletes, renames of notes and of folders, and settings changes. Every test
//! awaits the change subscription (no fixed sleeps).

use crate::common;

use almanac_core::calendar::{Calendar, EventQuery};
use almanac_core::settings::KindSettings;
use common::*;

fn titles_now(cal: &Calendar) -> Vec<String> {
    let mut t = titles(&all(cal));
    t.sort();
    t
}

#[test]
fn external_creates_edits_and_deletes_show_up() {
    let vault = TestVault::new();
    let cal = vault.open();
    assert!(cal.stats().watcher_alive);
    vault.write("events/a.md", "---\ntitle: Alpha\ndate: 2024-05-01\n---\n");
    wait_until(&cal, "create", |c| titles_now(c) == ["Alpha"]);
    vault.write(
        "events/a.md",
        "---\ntitle: Alpha edited\ndate: 2024-05-01\n---\n",
    );
    wait_until(&cal, "edit", |c| titles_now(c) == ["Alpha edited"]);
    // An edit that makes the note invalid removes the event and counts it.
    vault.write("events/a.md", "---\ntitle: [broken\n---\n");
    wait_until(&cal, "invalid edit", |c| {
        titles_now(c).is_empty() && c.stats().skipped == 1
    });
    vault.write(
        "events/a.md",
        "---\ntitle: Alpha again\ndate: 2024-05-01\n---\n",
    );
    wait_until(&cal, "repaired", |c| {
        titles_now(c) == ["Alpha again"] && c.stats().skipped == 0
    });
    std::fs::remove_file(vault.vault().join("events/a.md")).unwrap();
    wait_until(&cal, "delete", |c| titles_now(c).is_empty());
}

#[test]
fn renames_of_notes_and_folders_show_up() {
    let vault = TestVault::new();
    vault.write("events/a.md", "---\ntitle: Alpha\ndate: 2024-05-01\n---\n");
    let cal = vault.open();
    let root = vault.vault();
    std::fs::rename(root.join("events/a.md"), root.join("events/b.md")).unwrap();
    wait_until(&cal, "rename", |c| {
        all(c).iter().map(|e| e.id.clone()).collect::<Vec<_>>() == ["fullnote:events/b.md"]
    });
    // Moving a note out of the source folder removes it; back in adds it.
    std::fs::rename(root.join("events/b.md"), root.join("b.md")).unwrap();
    wait_until(&cal, "moved out", |c| all(c).is_empty());
    std::fs::create_dir_all(root.join("events/sub")).unwrap();
    std::fs::rename(root.join("b.md"), root.join("events/sub/b.md")).unwrap();
    wait_until(&cal, "moved into a new subfolder", |c| {
        all(c).iter().any(|e| e.id == "fullnote:events/sub/b.md")
    });
    // Renaming a whole folder moves every note in it.
    std::fs::rename(root.join("events/sub"), root.join("events/renamed")).unwrap();
    wait_until(&cal, "folder renamed", |c| {
        all(c).iter().map(|e| e.id.clone()).collect::<Vec<_>>() == ["fullnote:events/renamed/b.md"]
    });
    std::fs::remove_dir_all(root.join("events/renamed")).unwrap();
    wait_until(&cal, "folder removed", |c| all(c).is_empty());
}

#[test]
fn editor_style_saves_and_hidden_files() {
    let vault = TestVault::new();
    let cal = vault.open();
    let root = vault.vault();
    // Write to a hidden temp file, then rename over the note (many editors).
    std::fs::write(
        root.join("events/.a.md.swp"),
        "---\ntitle: Saved\ndate: 2024-05-01\n---\n",
    )
    .unwrap();
    std::fs::rename(root.join("events/.a.md.swp"), root.join("events/a.md")).unwrap();
    wait_until(&cal, "atomic save", |c| titles_now(c) == ["Saved"]);
    // Hidden files and folders are never events.
    vault.write(
        "events/.hidden.md",
        "---\ntitle: Hidden\ndate: 2024-05-01\n---\n",
    );
    vault.write(
        "events/.trash/x.md",
        "---\ntitle: Trashed\ndate: 2024-05-01\n---\n",
    );
    vault.write(
        "events/visible.md",
        "---\ntitle: Visible\ndate: 2024-05-01\n---\n",
    );
    wait_until(&cal, "visible note", |c| {
        titles_now(c).contains(&"Visible".to_string())
    });
    assert_eq!(titles_now(&cal), ["Saved", "Visible"]);
}

#[test]
fn daily_notes_are_watched_too() {
    let vault = TestVault::new().with_source(
        "daily",
        KindSettings::DailyNote {
            directory: "journal".into(),
            heading: "Events".into(),
        },
    );
    let cal = vault.open();
    vault.write("journal/2024-05-01.md", "## Events\n- [ ] Write report\n");
    wait_until(&cal, "daily create", |c| titles_now(c) == ["Write report"]);
    vault.write(
        "journal/2024-05-01.md",
        "## Events\n- [x] Write report\n- Call\n",
    );
    wait_until(&cal, "daily edit", |c| {
        c.query(&EventQuery {
            is_completed: Some(true),
            ..EventQuery::default()
        })
        .len()
            == 1
            && titles_now(c) == ["Call", "Write report"]
    });
}

#[test]
fn own_writes_are_visible_without_the_watcher_and_settings_changes_rescan() {
    let vault = TestVault::new();
    vault.write(
        "events/a.md",
        "---\ntitle: All day\nallDay: true\ndate: 2024-05-01\n---\n",
    );
    vault.write(
        "other/b.md",
        "---\ntitle: Other\ndate: 2024-05-01\nstartTime: 12:00\n---\n",
    );
    let cal = vault.open();
    let before = *cal.subscribe().borrow();
    let e = cal
        .create(
            "local",
            fields(serde_json::json!({"title": "Mine", "date": "2024-05-02", "allDay": true})),
        )
        .unwrap();
    assert!(
        *cal.subscribe().borrow() > before,
        "a write bumps the generation itself"
    );
    assert!(cal.details(&e.id).is_ok());
    // Display zone change: all-day spans move.
    let mut settings = vault.settings.clone();
    settings.display_timezone = "Asia/Tokyo".into();
    settings.calendar_sources.push(source(
        "other",
        KindSettings::FullNote {
            directory: "other".into(),
        },
    ));
    cal.apply_settings(&settings);
    let q = cal.query(&range("2024-04-30T15:00:00Z", "2024-04-30T15:00:00Z"));
    assert_eq!(
        titles(&q),
        ["All day"],
        "May 1 starts at 15:00Z the day before in Tokyo"
    );
    assert_eq!(cal.sources().len(), 2);
    assert!(titles_now(&cal).contains(&"Other".to_string()));
    // Moving the vault moves the watcher.
    let new_root = vault.dir.path().join("vault2");
    settings.vault_path = new_root.clone();
    cal.apply_settings(&settings);
    assert!(all(&cal).is_empty());
    assert!(new_root.join("events").is_dir() && new_root.join("other").is_dir());
    std::fs::write(
        new_root.join("events/n.md"),
        "---\ntitle: New vault\ndate: 2024-05-01\n---\n",
    )
    .unwrap();
    wait_until(&cal, "watcher follows the vault", |c| {
        titles_now(c) == ["New vault"]
    });
}
