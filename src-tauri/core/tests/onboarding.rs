//! Onboarding from a vault: the import plan from a Full Calendar plugin's
//! settings file, shaped like the plugin's real `data.json` and written
//! where Obsidian keeps it (`.obsidian/plugins/<plugin id>/data.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use almanac_core::onboarding::{
    FoundSetting, ImportPlan, ImportedDisplay, ImportedReminders, OnboardingError,
    REMASTERED_SETTINGS, SkippedSource, import_unattended, plan_import,
};
use almanac_core::settings::{CalendarSource, KindSettings, Settings};
use serde_json::json;

/// The plugin's settings as it writes them: its defaults plus five kinds of
/// sources (CalDAV as the iCloud preset makes it, its password included),
/// one Almanac does not read (Google).
fn plugin_settings() -> serde_json::Value {
    json!({
        "calendarSources": [
            {"type": "local", "id": "local_1", "name": "Work", "directory": "Calendar/Work", "color": "#ff5733"},
            {"type": "dailynote", "id": "dailynote_1", "name": "Daily", "heading": "Events", "format": "default", "color": "#2ecc71"},
            {"type": "ical", "id": "ical_1", "name": "Holidays", "url": "https://example.com/holidays.ics", "color": "#9b59b6"},
            {"type": "caldav", "id": "caldav_1", "name": "iCloud", "url": "https://caldav.icloud.com",
             "homeUrl": "https://caldav.icloud.com/123/calendars/", "username": "me@example.com", "password": "hunter2", "color": "#e67e22"},
            {"type": "google", "id": "google_1", "name": "Team", "calendarId": "team@group.calendar.google.com", "color": "#3498db"}
        ],
        "defaultCalendar": 0,
        "firstDay": 1,
        "initialView": {"desktop": "timeGridWeek", "mobile": "timeGrid3Days"},
        "timeFormat24h": true,
        "enableReminders": true,
        "enableDefaultReminder": false,
        "defaultReminderMinutes": 15,
        "fcrReminderCompanion": {"enabled": true, "apiUrl": "http://127.0.0.1:45677"},
        "businessHours": {"enabled": false, "daysOfWeek": [1, 2, 3, 4, 5], "startTime": "09:00", "endTime": "17:00"},
        "currentVersion": "1.0.0"
    })
}

/// A vault named `My Vault` holding `data` as Full Calendar Remastered's
/// settings file.
fn vault_with(data: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("My Vault");
    let file = vault.join(REMASTERED_SETTINGS);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, data).unwrap();
    std::fs::write(
        vault.join(".obsidian/daily-notes.json"),
        r#"{"folder":"Daily"}"#,
    )
    .unwrap();
    (dir, vault)
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    files
}

fn source(id: &str, name: &str, color: &str, kind: KindSettings) -> CalendarSource {
    CalendarSource {
        id: id.into(),
        name: name.into(),
        color: color.into(),
        kind,
        order: None,
        components: None,
    }
}

#[test]
fn the_plan_maps_supported_sources_and_lists_the_rest() {
    let (_dir, vault) = vault_with(&plugin_settings().to_string());
    let obsidian = vault.join(".obsidian");
    let before = snapshot(&obsidian);

    let plan = plan_import(&vault).unwrap();

    let expected = ImportPlan {
        settings_file: ".obsidian/plugins/full-calendar-remastered/data.json".into(),
        also_found: vec![],
        vault_name: "My Vault".into(),
        sources: vec![
            source(
                "local_1",
                "Work",
                "#ff5733",
                KindSettings::FullNote {
                    directory: "Calendar/Work".into(),
                },
            ),
            source(
                "dailynote_1",
                "Daily",
                "#2ecc71",
                KindSettings::DailyNote {
                    directory: String::new(),
                    heading: "Events".into(),
                },
            ),
            source(
                "ical_1",
                "Holidays",
                "#9b59b6",
                KindSettings::Ical {
                    url: "https://example.com/holidays.ics".into(),
                    allow_private_network: false,
                },
            ),
            // Discovery starts from the deeper of the plugin's addresses.
            source(
                "caldav_1",
                "iCloud",
                "#e67e22",
                KindSettings::Caldav {
                    url: "https://caldav.icloud.com/123/calendars/".into(),
                    username: "me@example.com".into(),
                    calendar_url: String::new(),
                },
            ),
        ],
        skipped: vec![SkippedSource {
            name: "Team".into(),
            kind: "google".into(),
            reason: plan.skipped[0].reason.clone(),
        }],
        reminders: Some(ImportedReminders {
            vault_reminders: Some(true),
            default_reminders: Some(false),
            default_minutes: Some(15),
        }),
        display: Some(ImportedDisplay {
            first_day: Some(1),
            time_format_24h: Some(true),
            initial_view: Some("timeGridWeek".into()),
        }),
        found_not_applied: vec![
            FoundSetting {
                key: "calendarSources[1].format".into(),
                value: json!("default"),
            },
            FoundSetting {
                key: "fcrReminderCompanion".into(),
                value: json!({"enabled": true, "apiUrl": "http://127.0.0.1:45677"}),
            },
        ],
        passwords_to_keyring: vec!["iCloud".into()],
        passwords_to_enter: vec![],
        // Checked below, through what it shows.
        passwords: plan.passwords.clone(),
    };
    assert_eq!(plan, expected);
    // Google's calendars are not imported; the reason says what to do instead.
    assert!(
        plan.skipped[0]
            .reason
            .contains("secret address in iCal format"),
        "{}",
        plan.skipped[0].reason
    );
    // The plan shows no CalDAV password anywhere, its debug form included.
    assert!(!serde_json::to_string(&plan).unwrap().contains("hunter2"));
    assert!(!format!("{plan:?}").contains("hunter2"));
    assert_eq!(format!("{:?}", plan.passwords), r#"["caldav_1"]"#);
    assert_eq!(snapshot(&obsidian), before, ".obsidian must stay untouched");
}

#[test]
fn the_plan_applies_only_over_the_default_sources() {
    let (_dir, vault) = vault_with(&plugin_settings().to_string());
    let plan = plan_import(&vault).unwrap();

    let fresh = Settings::default();
    let patch = plan
        .settings_patch(&fresh)
        .expect("default sources take the import");
    let applied = fresh
        .patched(&patch)
        .expect("the imported sources are valid settings");
    assert_eq!(applied.calendar_sources, plan.sources);
    assert_eq!(applied.vault_name.as_deref(), Some("My Vault"));
    assert_eq!(applied.reminders.default_minutes, 15);
    // The plugin's display: Monday first, 24-hour times, the week.
    assert_eq!(applied.first_day, 1);
    assert!(applied.time_format_24h);
    assert_eq!(applied.initial_view, "timeGridWeek");

    // Sources, reminder defaults, display settings and the vault name the
    // user set are theirs.
    let mut customised = Settings::default();
    customised.calendar_sources[0].name = "Mine".into();
    customised.reminders.default_minutes = 5;
    customised.vault_name = Some("Work".into());
    customised.first_day = 3;
    customised.time_format_24h = !customised.time_format_24h;
    customised.initial_view = "timeGridDay".into();
    assert_eq!(plan.settings_patch(&customised), None);
    // Each display setting on its own: only the untouched ones are taken.
    customised.time_format_24h = Settings::default().time_format_24h;
    assert_eq!(
        plan.settings_patch(&customised),
        Some(json!({"timeFormat24h": true}))
    );
}

#[test]
fn display_settings_almanac_cannot_take_are_listed_not_applied() {
    let mut data = plugin_settings();
    data["firstDay"] = json!(9);
    data["timeFormat24h"] = json!("yes");
    data["initialView"] = json!({"desktop": "timeGrid3Days", "mobile": "timeGrid3Days"});
    let (_dir, vault) = vault_with(&data.to_string());
    let plan = plan_import(&vault).unwrap();
    assert_eq!(plan.display, None);
    for (key, value) in [
        ("firstDay", json!(9)),
        ("timeFormat24h", json!("yes")),
        ("initialView.desktop", json!("timeGrid3Days")),
    ] {
        assert!(
            plan.found_not_applied.contains(&FoundSetting {
                key: key.into(),
                value: value.clone(),
            }),
            "{key} missing from {:?}",
            plan.found_not_applied
        );
    }
    // The older plugins' one view, a string.
    data["initialView"] = json!("dayGridMonth");
    let (_dir, vault) = vault_with(&data.to_string());
    let display = plan_import(&vault).unwrap().display.unwrap();
    assert_eq!(display.initial_view.as_deref(), Some("dayGridMonth"));
}

#[test]
fn unusable_entries_are_listed_with_their_reason() {
    let data = json!({"calendarSources": [
        {"type": "local", "id": "local_1", "name": "No folder", "color": "#000000"},
        {"type": "ical", "id": "ical_1", "name": "FTP", "url": "ftp://example.com/a.ics", "color": "#111111"},
        {"type": "local", "id": "local_1", "name": "Same id", "directory": "b"},
        {"type": "local", "name": "No id", "directory": "c", "color": "#222222"}
    ]});
    let (_dir, vault) = vault_with(&data.to_string());
    let plan = plan_import(&vault).unwrap();
    assert_eq!(
        plan.skipped,
        vec![
            SkippedSource {
                name: "No folder".into(),
                kind: "local".into(),
                reason: "`directory` is missing".into(),
            },
            SkippedSource {
                name: "FTP".into(),
                kind: "ical".into(),
                reason: "ICS url `ftp://example.com/a.ics` is not http(s) or webcal".into(),
            },
        ]
    );
    let ids: Vec<_> = plan.sources.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["local_1", "local_2"]);
    assert_eq!(
        plan.sources[0].color, "#3788d8",
        "no colour: Almanac's default"
    );
    assert!(plan.found_not_applied.is_empty());
}

#[test]
fn a_malformed_settings_file_is_a_clear_error() {
    for data in ["{not json", "[1, 2]", r#"{"calendarSources": 3}"#] {
        let (_dir, vault) = vault_with(data);
        let err = plan_import(&vault).unwrap_err();
        assert!(
            matches!(err, OnboardingError::Malformed { .. }),
            "{data}: {err}"
        );
        assert!(err.to_string().starts_with("nothing to import: "), "{err}");
    }
}

#[test]
fn a_vault_without_the_plugin_has_nothing_to_import() {
    let dir = tempfile::tempdir().unwrap();
    // The path the plugins never wrote, which Almanac once read.
    let old = dir.path().join(".obsidian/plugins/full-calendar");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("data.json"), plugin_settings().to_string()).unwrap();
    let err = plan_import(dir.path()).unwrap_err();
    assert!(matches!(err, OnboardingError::NoPluginSettings(_)), "{err}");
    assert!(
        err.to_string()
            .starts_with("nothing to import: no Full Calendar settings in "),
        "{err}"
    );
    assert!(
        err.to_string().contains(
            "neither .obsidian/plugins/full-calendar-remastered/data.json nor \
             .obsidian/plugins/obsidian-full-calendar/data.json"
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path().join(".obsidian/plugins"))
            .unwrap()
            .count(),
        1,
        "nothing is created"
    );
}

/// The plugin's `DEFAULT_SETTINGS` (`src/types/settings.ts`) as it saves
/// them, with the reminder settings changed by the user and two sources.
fn default_shaped_settings() -> serde_json::Value {
    serde_json::from_str(DEFAULT_SHAPED).unwrap()
}

const DEFAULT_SHAPED: &str = r##"{
        "calendarSources": [
            {"type": "local", "id": "local_1", "name": "Work", "directory": "Calendar/Work", "color": "#ff5733"},
            {"type": "dailynote", "id": "dailynote_1", "name": "Daily", "heading": "Events", "color": "#2ecc71"}
        ],
        "defaultCalendar": 0,
        "firstDay": 0,
        "initialView": {"desktop": "timeGridWeek", "mobile": "timeGrid3Days"},
        "timeFormat24h": false,
        "clickToCreateEventFromMonthView": true,
        "displayTimezone": null,
        "lastSystemTimezone": null,
        "enableAdvancedCategorization": false,
        "chrono_analyser_config": null,
        "categorySettings": [],
        "useCustomGoogleClient": false,
        "googleClientId": "",
        "googleClientSecret": "",
        "googleAccounts": [],
        "useCustomMicrosoftClient": false,
        "microsoftClientId": "",
        "microsoftProxyBaseUrl": "",
        "microsoftAccounts": [],
        "businessHours": {"enabled": false, "daysOfWeek": [1, 2, 3, 4, 5], "startTime": "09:00", "endTime": "17:00"},
        "enableBackgroundEvents": true,
        "enableReminders": true,
        "workspaces": [],
        "activeWorkspace": null,
        "showEventInStatusBar": false,
        "highlightCurrentOrNextEvent": true,
        "slotMinTime": "00:00",
        "slotMaxTime": "24:00",
        "allDaySlot": true,
        "timeGridDayHeaderFormat": "day-mmdd",
        "weekends": true,
        "hiddenDays": [],
        "dayMaxEvents": false,
        "activityWatch": {"enabled": false, "apiUrl": "http://127.0.0.1:5600", "lastSyncTime": 0,
            "autoSyncEnabled": false, "autoSyncIntervalMins": 10, "targetCalendarId": "",
            "syncStrategy": "auto", "customDateStart": "", "customDateEnd": "", "profiles": []},
        "tasksIntegration": {"backlogDateTarget": "scheduledDate", "calendarDisplayDateTarget": "scheduledDate",
            "openEditModalAfterBacklogDrop": false, "taskDisplayFormat": "dayPlanner", "includeGlobalQueryInBacklog": false},
        "milestones": {"counters": {}, "unlockedAt": {}},
        "fcrReminderCompanion": {"enabled": false, "apiUrl": "http://127.0.0.1:45677"},
        "apiTokens": {},
        "authorizedTokens": {},
        "enableDefaultReminder": true,
        "defaultReminderMinutes": 20,
        "currentVersion": "1.4.0",
        "linkedNotesDirectory": "",
        "linkedNoteTemplate": "# {{title}}\n\n**Date**: {{date}}\n"
    }"##;

#[test]
fn the_plugins_reminder_defaults_and_the_vault_name_are_imported() {
    let (_dir, vault) = vault_with(&default_shaped_settings().to_string());
    let obsidian = vault.join(".obsidian");
    let before = snapshot(&obsidian);

    let plan = plan_import(&vault).unwrap();
    assert_eq!(
        plan.reminders,
        Some(ImportedReminders {
            vault_reminders: Some(true),
            default_reminders: Some(true),
            default_minutes: Some(20),
        })
    );
    assert_eq!(
        plan.found_not_applied,
        vec![FoundSetting {
            key: "fcrReminderCompanion".into(),
            value: json!({"enabled": false, "apiUrl": "http://127.0.0.1:45677"}),
        }]
    );
    let fresh = Settings::default();
    let applied = fresh
        .patched(&plan.settings_patch(&fresh).unwrap())
        .unwrap();
    assert!(applied.reminders.vault_reminders);
    assert!(applied.reminders.default_reminders);
    assert_eq!(applied.reminders.default_minutes, 20);
    assert_eq!(applied.vault_name(), "My Vault");
    assert_eq!(applied.reminders.horizon_days, 30, "untouched");
    assert_eq!(snapshot(&obsidian), before, ".obsidian must stay untouched");

    // The plugin's master switch off: no reminder of either kind.
    let mut off = default_shaped_settings();
    off["enableReminders"] = json!(false);
    let (_dir, vault) = vault_with(&off.to_string());
    let reminders = plan_import(&vault).unwrap().reminders.unwrap();
    assert_eq!(reminders.vault_reminders, Some(false));
    assert_eq!(reminders.default_reminders, Some(false));

    // A value Almanac cannot take is listed, not applied.
    let mut odd = default_shaped_settings();
    odd["defaultReminderMinutes"] = json!(-5);
    let (_dir, vault) = vault_with(&odd.to_string());
    let plan = plan_import(&vault).unwrap();
    assert_eq!(plan.reminders.unwrap().default_minutes, None);
    assert!(plan.found_not_applied.contains(&FoundSetting {
        key: "defaultReminderMinutes".into(),
        value: json!(-5),
    }));
}

#[test]
fn caldav_sources_start_discovery_at_the_deeper_address() {
    let data = json!({"calendarSources": [
        // The plugin's original shape: `url` the calendar, `homeUrl` its home.
        {"type": "caldav", "id": "caldav_1", "name": "Nextcloud", "username": "ada",
         "url": "https://cloud.example.com/remote.php/dav/calendars/ada/personal/",
         "homeUrl": "https://cloud.example.com/remote.php/dav/calendars/ada/"},
        {"type": "caldav", "name": "Radicale", "url": "http://dav.example.org/", "username": "bob", "password": ""},
        {"type": "caldav", "name": "No user", "url": "https://dav.example.org/"}
    ]});
    let (_dir, vault) = vault_with(&data.to_string());
    let plan = plan_import(&vault).unwrap();
    let kinds: Vec<_> = plan.sources.iter().map(|s| (&s.id, &s.kind)).collect();
    assert_eq!(
        kinds,
        [
            (
                &"caldav_1".to_string(),
                &KindSettings::Caldav {
                    url: "https://cloud.example.com/remote.php/dav/calendars/ada/personal/".into(),
                    username: "ada".into(),
                    calendar_url: String::new(),
                }
            ),
            (
                &"caldav_2".to_string(),
                &KindSettings::Caldav {
                    url: "http://dav.example.org/".into(),
                    username: "bob".into(),
                    calendar_url: String::new(),
                }
            ),
        ]
    );
    assert_eq!(
        plan.skipped,
        [SkippedSource {
            name: "No user".into(),
            kind: "caldav".into(),
            reason: "`username` is missing".into(),
        }]
    );
    assert!(
        plan.passwords_to_keyring.is_empty(),
        "no password, none moved"
    );
}

/// `almanac --vault` at start: nobody is there to confirm, so CalDAV
/// accounts are left out (the log says where to add them), the rest is
/// imported, and the log holds counts, never a calendar's address.
#[tokio::test(flavor = "multi_thread")]
async fn unattended_import_leaves_accounts_out_and_logs_no_address() {
    almanac_testkit::captured_logs();
    let secret_feed = "https://calendar.example.com/private-5f3e9a7c/basic.ics";
    let mut data = plugin_settings();
    data["calendarSources"][2]["url"] = json!(secret_feed);
    let (_dir, vault) = vault_with(&data.to_string());
    let instance = almanac_testkit::InstanceBuilder::new().open().await;

    tokio::task::block_in_place(|| import_unattended(&instance, &vault)).unwrap();

    let kinds: Vec<_> = instance
        .settings
        .get()
        .calendar_sources
        .iter()
        .map(|source| source.id.clone())
        .collect();
    assert_eq!(
        kinds,
        ["local_1", "dailynote_1", "ical_1"],
        "no CalDAV account"
    );
    // Onboarding's own lines (the feed's fetch logs on its own behalf).
    let logs: String = almanac_testkit::logs_text()
        .lines()
        .filter(|line| line.contains("onboarding"))
        .collect();
    assert!(logs.contains("accounts=1"), "{logs}");
    assert!(logs.contains("Settings › Calendars"), "{logs}");
    assert!(
        logs.contains("3 calendars (1 ICS feeds, 0 CalDAV accounts)"),
        "{logs}"
    );
    for private in [
        secret_feed,
        "private-5f3e9a7c",
        "caldav.icloud.com",
        "me@example.com",
        "hunter2",
    ] {
        assert!(!logs.contains(private), "`{private}` reached the log");
    }
}

#[test]
fn a_plan_without_accounts_drops_them_and_their_passwords() {
    let (_dir, vault) = vault_with(&plugin_settings().to_string());
    let plan = plan_import(&vault).unwrap();
    assert_eq!(plan.passwords_to_keyring, ["iCloud"]);
    let (plan, accounts) = plan.without_accounts();
    assert_eq!(accounts, 1);
    assert!(plan.passwords_to_keyring.is_empty());
    assert!(
        plan.sources
            .iter()
            .all(|source| !matches!(source.kind, KindSettings::Caldav { .. }))
    );
    let patch = plan.settings_patch(&Settings::default()).unwrap();
    let passwords = almanac_core::calendar::sources::caldav::password::Passwords::default();
    assert_eq!(plan.store_passwords(&patch, &passwords).unwrap(), 0);
}
