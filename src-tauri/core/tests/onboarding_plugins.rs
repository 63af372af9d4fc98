//! The import plan from each Full Calendar plugin as Obsidian keeps it:
//! Full Calendar Remastered (`full-calendar-remastered`) and the original
//! (`obsidian-full-calendar`), from data shaped as each plugin's
//! `DEFAULT_SETTINGS` plus sources of every type the plugins know, written
//! at the real paths. The vault's `.obsidian` tree is compared byte for
//! byte, modification times included, before and after.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use almanac_core::onboarding::{
    ImportedReminders, MAX_SETTINGS_BYTES, ORIGINAL_SETTINGS, OnboardingError, REMASTERED_SETTINGS,
    plan_import,
};
use almanac_core::settings::{KindSettings, Settings, TaskDateField};
use serde_json::{Value, json};

/// Remastered's `DEFAULT_SETTINGS` (`src/types/settings.ts`, with the keys
/// its settings migration adds) as it saves them, reminders set by the user.
fn remastered_defaults(sources: Value) -> Value {
    let mut settings: Value = serde_json::from_str(REMASTERED_DEFAULTS).unwrap();
    settings["calendarSources"] = sources;
    settings
}

const REMASTERED_DEFAULTS: &str = r##"{
    "calendarSources": [],
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
    "googleUseCopyPasteAuth": false,
    "googleAccounts": [],
    "useCustomMicrosoftClient": false,
    "microsoftClientId": "",
    "microsoftProxyBaseUrl": "",
    "microsoftAccounts": [],
    "enableLocalServer": false,
    "localServerPort": 8540,
    "useLegacyPlaintextCredentials": false,
    "businessHours": {"enabled": false, "daysOfWeek": [1, 2, 3, 4, 5], "startTime": "09:00", "endTime": "17:00"},
    "enableBackgroundEvents": true,
    "enableReminders": true,
    "enableDefaultReminder": true,
    "defaultReminderMinutes": 25,
    "workspaces": [],
    "activeWorkspace": null,
    "showEventInStatusBar": false,
    "highlightCurrentOrNextEvent": true,
    "enableLivePreview": true,
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
    "fcrReminderCompanion": {"enabled": false, "apiUrl": "http://127.0.0.1:45677"},
    "apiTokens": {},
    "authorizedTokens": {},
    "milestones": {"counters": {}, "unlockedAt": {}, "shown": {}},
    "currentVersion": "0.13.1",
    "linkedNotesDirectory": "",
    "linkedNoteTemplate": "# {{title}}\n"
}"##;

/// A source of every type Remastered knows (`types/calendar_settings.ts`),
/// in its shapes, plus a vault `.ics` file, a `webcal` feed, a source whose
/// fields sit in a nested `config`, the early Journals shape (a daily-note
/// source with `provider: journals`) and a type no plugin has.
fn every_remastered_type() -> Value {
    json!([
        {"type": "local", "id": "local_1", "name": "Work", "directory": "Calendar/Work", "color": "#ff5733",
         "template": "", "taskCompletionStyle": "datetime"},
        {"type": "dailynote", "id": "dailynote_1", "name": "Daily", "heading": "Events", "format": "default",
         "provider": "daily-notes", "color": "#2ecc71"},
        {"type": "journals", "id": "journals_1", "name": "Journals: Diary", "heading": "Log", "format": "dayPlanner",
         "journalId": "Diary", "color": "#aa00aa"},
        {"type": "ical", "id": "ical_1", "name": "Holidays feed", "url": "https://example.com/holidays.ics", "color": "#9b59b6"},
        {"type": "ical", "id": "ical_2", "name": "Team", "url": "webcal://example.com/team.ics", "color": "#9b59b7"},
        {"type": "ical", "id": "ical_3", "name": "Exported", "url": "Calendars/export.ics", "color": "#9b59b8"},
        {"type": "caldav", "id": "caldav_1", "name": "Nextcloud", "url": "https://cloud.example.com/remote.php/dav",
         "homeUrl": "https://cloud.example.com/remote.php/dav/calendars/ada/", "username": "ada", "password": "", "color": "#e67e22"},
        {"type": "caldavtasks", "id": "caldavtasks_1", "name": "Chores", "url": "https://cloud.example.com/remote.php/dav",
         "homeUrl": "https://cloud.example.com/remote.php/dav/calendars/ada/chores/", "username": "ada", "password": "", "color": "#e67e23"},
        {"type": "google", "id": "google_1", "name": "Google", "calendarId": "me@gmail.com", "googleAccountId": "gcal_1", "color": "#3498db"},
        {"type": "googletasks", "id": "googletasks_1", "name": "Google Tasks", "listId": "abc", "color": "#3498dc"},
        {"type": "outlook", "id": "outlook_1", "name": "Outlook", "calendarId": "AAMk", "microsoftAccountId": "ms_1", "color": "#3498dd"},
        {"type": "tasks", "id": "tasks_1", "name": "Tasks", "color": "#111111"},
        {"type": "tasknotes", "id": "tasknotes_1", "name": "TaskNotes", "dispatchMode": "search", "color": "#222222"},
        {"type": "bases", "id": "bases_1", "name": "Projects base", "basePath": "Projects.base", "color": "#333333"},
        {"type": "holidays", "id": "holidays_1", "name": "Public holidays", "country": "DE", "state": "BE",
         "holidayTypes": "public", "color": "#444444"},
        {"type": "ical", "id": "ical_4", "name": "Nested", "config": {"url": "https://example.com/nested.ics"}, "color": "#555555"},
        {"type": "dailynote", "id": "dailynote_2", "name": "Old journal", "heading": "Log", "provider": "journals",
         "journalId": "Diary", "color": "#666666"},
        {"type": "weather", "id": "weather_1", "name": "Weather", "color": "#777777"}
    ])
}

/// The Journals plugin's settings, as it saves them: a daily journal
/// `Diary` in `Journal/`, a weekly one, a daily one with a folder per year.
fn journals_settings() -> Value {
    json!({
        "version": 3,
        "journals": {
            "Diary": {"name": "Diary", "write": {"type": "day"}, "nameTemplate": "{{date}}",
                      "dateFormat": "YYYY-MM-DD", "folder": "Journal", "templates": [], "start": "", "end": {"type": "never"}},
            "Weekly": {"name": "Weekly", "write": {"type": "week"}, "nameTemplate": "{{date}}",
                       "dateFormat": "YYYY-[W]w", "folder": "Weekly"},
            "Yearly folders": {"name": "Yearly folders", "write": {"type": "day"}, "nameTemplate": "{{date}}",
                               "dateFormat": "YYYY-MM-DD", "folder": "Days/{{date:YYYY}}"},
            "Titled": {"name": "Titled", "write": {"type": "day"}, "nameTemplate": "{{journal_name}} {{date}}",
                       "dateFormat": "YYYY-MM-DD", "folder": "Titled"},
            "Dotted": {"name": "Dotted", "write": {"type": "day"}, "dateFormat": "DD.MM.YYYY", "folder": ""},
            "Root": {"name": "Root", "write": {"type": "day"}, "folder": ""}
        },
        "shelves": {},
        "commands": []
    })
}

/// A vault named `Notes` with `files` (vault-relative path, content).
fn vault_with(files: &[(&str, String)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("Notes");
    for (file, content) in files {
        let path = vault.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    (dir, vault)
}

/// Every file and folder under `dir`: its bytes (files) and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut tree = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        if path.is_dir() {
            tree.insert(path.clone(), (Vec::new(), modified));
            tree.extend(snapshot(&path));
        } else {
            tree.insert(path.clone(), (std::fs::read(&path).unwrap(), modified));
        }
    }
    tree
}

fn remastered_vault(sources: Value) -> (tempfile::TempDir, PathBuf) {
    vault_with(&[
        (
            REMASTERED_SETTINGS,
            remastered_defaults(sources).to_string(),
        ),
        (
            ".obsidian/plugins/journals/data.json",
            journals_settings().to_string(),
        ),
        (".obsidian/daily-notes.json", r#"{"folder":"Daily"}"#.into()),
    ])
}

#[test]
fn every_remastered_type_is_imported_or_listed_with_its_reason() {
    let (_dir, vault) = remastered_vault(every_remastered_type());
    let obsidian = vault.join(".obsidian");
    let before = snapshot(&obsidian);

    let plan = plan_import(&vault).unwrap();

    assert_eq!(plan.settings_file, REMASTERED_SETTINGS);
    assert!(plan.also_found.is_empty());
    let imported: Vec<_> = plan
        .sources
        .iter()
        .map(|s| (s.id.as_str(), s.kind.clone()))
        .collect();
    let caldav = |url: &str| KindSettings::Caldav {
        url: url.into(),
        username: "ada".into(),
        calendar_url: String::new(),
    };
    let ical = |url: &str| KindSettings::Ical {
        url: url.into(),
        allow_private_network: false,
    };
    let journal = KindSettings::DailyNote {
        directory: "Journal".into(),
        heading: "Log".into(),
    };
    assert_eq!(
        imported,
        [
            (
                "local_1",
                KindSettings::FullNote {
                    directory: "Calendar/Work".into()
                }
            ),
            (
                "dailynote_1",
                KindSettings::DailyNote {
                    directory: String::new(),
                    heading: "Events".into()
                }
            ),
            ("journals_1", journal.clone()),
            ("ical_1", ical("https://example.com/holidays.ics")),
            // The plugin fetches `webcal://` as `https://`.
            ("ical_2", ical("https://example.com/team.ics")),
            // No scheme: a file of the vault, as the plugin reads it.
            (
                "ical_3",
                KindSettings::IcsFile {
                    path: "Calendars/export.ics".into()
                }
            ),
            (
                "caldav_1",
                caldav("https://cloud.example.com/remote.php/dav/calendars/ada/")
            ),
            (
                "caldavtasks_1",
                caldav("https://cloud.example.com/remote.php/dav/calendars/ada/chores/")
            ),
            // Remastered's `calendarDisplayDateTarget` places the tasks.
            (
                "tasks_1",
                KindSettings::Tasks {
                    directory: String::new(),
                    date_field: TaskDateField::Scheduled,
                }
            ),
            (
                "holidays_1",
                KindSettings::Holidays {
                    country: "DE".into(),
                    subdivision: "BE".into()
                }
            ),
            ("ical_4", ical("https://example.com/nested.ics")),
            ("dailynote_2", journal),
        ]
    );
    assert_eq!(plan.sources[0].name, "Work");
    assert_eq!(plan.sources[0].color, "#ff5733");

    let skipped: BTreeMap<_, _> = plan
        .skipped
        .iter()
        .map(|s| (s.kind.as_str(), (s.name.as_str(), s.reason.as_str())))
        .collect();
    let reason = |kind: &str| skipped[kind].1;
    for (kind, instead) in [
        ("google", "secret address in iCal format"),
        ("google", "CalDAV"),
        ("outlook", "ICS link"),
        ("outlook", "CalDAV"),
        ("googletasks", "CalDAV task list"),
        ("tasknotes", "Full Calendar in Obsidian"),
        ("bases", "notes-folder calendar"),
    ] {
        assert!(reason(kind).contains(instead), "{kind}: {}", reason(kind));
    }
    assert_eq!(
        skipped["weather"],
        ("Weather", "unknown calendar type weather")
    );
    assert_eq!(plan.skipped.len(), 6, "{:?}", plan.skipped);

    // Remastered keeps CalDAV passwords in Obsidian's own secret storage:
    // the user enters them after the import.
    assert!(plan.passwords_to_keyring.is_empty());
    assert_eq!(plan.passwords_to_enter, ["Nextcloud", "Chores"]);
    assert_eq!(
        plan.reminders,
        Some(ImportedReminders {
            vault_reminders: Some(true),
            default_reminders: Some(true),
            default_minutes: Some(25),
        })
    );
    // The daily-note formats are reported, not applied.
    let formats: Vec<_> = plan
        .found_not_applied
        .iter()
        .map(|found| (found.key.as_str(), found.value.clone()))
        .collect();
    assert!(formats.contains(&("calendarSources[1].format", json!("default"))));
    assert!(formats.contains(&("calendarSources[2].format", json!("dayPlanner"))));

    // The plan applies as settings Almanac takes.
    let fresh = Settings::default();
    let applied = fresh
        .patched(&plan.settings_patch(&fresh).unwrap())
        .unwrap();
    assert_eq!(applied.calendar_sources, plan.sources);
    assert_eq!(applied.reminders.default_minutes, 25);
    assert_eq!(snapshot(&obsidian), before, ".obsidian must stay untouched");
}

#[test]
fn holiday_calendars_the_data_lacks_are_skipped_and_filters_reported() {
    let (_dir, vault) = remastered_vault(json!([
        {"type": "holidays", "id": "holidays_1", "name": "California", "country": "us", "state": "ca",
         "region": "la", "holidayTypes": "public_bank", "color": "#111111"},
        {"type": "holidays", "id": "holidays_2", "name": "Nowhere", "country": "XX", "color": "#222222"},
        {"type": "holidays", "id": "holidays_3", "name": "Bad state", "config": {"country": "DE", "state": "ZZ"}},
        {"type": "ical", "id": "ical_1", "name": "Not ics", "url": "Calendars/notes.md"},
        {"type": "ical", "id": "ical_2", "name": "Hidden", "url": ".obsidian/cal.ics"}
    ]));
    let plan = plan_import(&vault).unwrap();
    assert_eq!(
        plan.sources
            .iter()
            .map(|s| s.kind.clone())
            .collect::<Vec<_>>(),
        [KindSettings::Holidays {
            country: "US".into(),
            subdivision: "CA".into()
        }]
    );
    let found: Vec<_> = plan
        .found_not_applied
        .iter()
        .map(|found| (found.key.as_str(), found.value.clone()))
        .collect();
    assert_eq!(
        found,
        [
            ("calendarSources[0].region", json!("la")),
            ("calendarSources[0].holidayTypes", json!("public_bank")),
            // In the plugin's defaults, not the holidays' doing.
            (
                "fcrReminderCompanion",
                json!({"apiUrl": "http://127.0.0.1:45677", "enabled": false})
            ),
        ]
    );
    let reasons: Vec<_> = plan.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert!(reasons[0].contains("`XX`"), "{reasons:?}");
    assert!(
        reasons[1].contains("`ZZ`") && reasons[1].contains("BY"),
        "{reasons:?}"
    );
    assert!(reasons[2].contains(".ics"), "{reasons:?}");
    assert!(reasons[3].contains("hidden"), "{reasons:?}");
    // What is imported, the settings take.
    let fresh = Settings::default();
    assert!(fresh.patched(&plan.settings_patch(&fresh).unwrap()).is_ok());
}

#[test]
fn the_original_plugins_sources_get_its_names_and_ids() {
    // The original's `DEFAULT_SETTINGS` (`src/ui/settings.ts`): no reminder
    // settings, sources without ids and, but for CalDAV, without names.
    let data = json!({
        "calendarSources": [
            {"type": "local", "directory": "Calendar/Work", "color": "#ff5733"},
            {"type": "dailynote", "heading": "Events", "color": "#2ecc71"},
            {"type": "ical", "url": "https://calendar.example.com/private-5f3e9a7c/basic.ics", "color": "#9b59b6"},
            {"type": "caldav", "name": "iCloud", "url": "https://caldav.icloud.com",
             "homeUrl": "https://caldav.icloud.com/123/calendars/", "username": "me@example.com",
             "password": "hunter2", "color": "#e67e22"},
            {"type": "local", "directory": "Calendar/Home", "color": "#123456"}
        ],
        "defaultCalendar": 0,
        "firstDay": 0,
        "initialView": {"desktop": "timeGridWeek", "mobile": "timeGrid3Days"},
        "timeFormat24h": false,
        "clickToCreateEventFromMonthView": true
    });
    let (_dir, vault) = vault_with(&[(ORIGINAL_SETTINGS, data.to_string())]);
    let before = snapshot(&vault.join(".obsidian"));

    let plan = plan_import(&vault).unwrap();

    assert_eq!(plan.settings_file, ORIGINAL_SETTINGS);
    let named: Vec<_> = plan
        .sources
        .iter()
        .map(|s| (s.id.as_str(), s.name.as_str()))
        .collect();
    assert_eq!(
        named,
        [
            ("local_1", "Calendar/Work"),
            ("dailynote_1", "Daily Note"),
            // Named by its host: the address itself carries a secret.
            ("ical_1", "calendar.example.com"),
            ("caldav_1", "iCloud"),
            ("local_2", "Calendar/Home"),
        ]
    );
    assert!(plan.skipped.is_empty());
    assert_eq!(plan.passwords_to_keyring, ["iCloud"]);
    assert_eq!(plan.reminders, None, "the original has no reminders");
    let fresh = Settings::default();
    assert!(fresh.patched(&plan.settings_patch(&fresh).unwrap()).is_ok());
    assert_eq!(snapshot(&vault.join(".obsidian")), before);
}

#[test]
fn a_vault_with_both_plugins_offers_the_maintained_ones_settings() {
    let original =
        json!({"calendarSources": [{"type": "local", "directory": "Old", "color": "#000000"}]});
    let (_dir, vault) = vault_with(&[
        (
            REMASTERED_SETTINGS,
            remastered_defaults(json!([
                {"type": "local", "id": "local_1", "name": "New", "directory": "New", "color": "#ffffff"}
            ]))
            .to_string(),
        ),
        (ORIGINAL_SETTINGS, original.to_string()),
    ]);
    let plan = plan_import(&vault).unwrap();
    assert_eq!(plan.settings_file, REMASTERED_SETTINGS);
    assert_eq!(plan.also_found, [ORIGINAL_SETTINGS]);
    assert_eq!(plan.sources.len(), 1);
    assert_eq!(plan.sources[0].name, "New");
}

#[test]
fn a_journal_almanac_cannot_follow_is_listed_with_why() {
    let source = |journal: &str| {
        json!({"type": "journals", "id": format!("j_{journal}"), "name": journal, "heading": "Log",
               "journalId": journal, "color": "#000000"})
    };
    let sources = json!([
        source("Weekly"),
        source("Yearly folders"),
        source("Titled"),
        source("Dotted"),
        source("Missing"),
        source("Root"),
        {"type": "journals", "id": "j_none", "name": "No journal", "heading": "Log", "color": "#000000"}
    ]);
    let (_dir, vault) = remastered_vault(sources);
    let plan = plan_import(&vault).unwrap();
    let reasons: BTreeMap<_, _> = plan
        .skipped
        .iter()
        .map(|s| (s.name.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(reasons["Weekly"], "journal `Weekly` is not a daily journal");
    assert!(
        reasons["Yearly folders"].contains("folders made from their date (`Days/{{date:YYYY}}`)"),
        "{reasons:?}"
    );
    assert!(
        reasons["Titled"].contains("names its notes `{{journal_name}} {{date}}`"),
        "{reasons:?}"
    );
    assert!(
        reasons["Dotted"].contains("names its notes `DD.MM.YYYY`")
            && reasons["Dotted"].contains("(`YYYY-MM-DD`)"),
        "{reasons:?}"
    );
    assert_eq!(
        reasons["Missing"],
        "the Journals plugin has no journal `Missing`"
    );
    assert_eq!(reasons["No journal"], "`journalId` is missing");
    // A journal in the vault's root: `.`, since an empty folder would be
    // Obsidian's Daily notes folder.
    assert_eq!(plan.sources.len(), 1);
    assert_eq!(
        plan.sources[0].kind,
        KindSettings::DailyNote {
            directory: ".".into(),
            heading: "Log".into()
        }
    );
    let fresh = Settings::default();
    assert!(fresh.patched(&plan.settings_patch(&fresh).unwrap()).is_ok());

    // Without the Journals plugin's settings, the reason names the file.
    let (_dir, vault) = vault_with(&[(
        REMASTERED_SETTINGS,
        remastered_defaults(json!([source("Diary")])).to_string(),
    )]);
    let plan = plan_import(&vault).unwrap();
    assert_eq!(
        plan.skipped[0].reason,
        "the Journals plugin's settings (.obsidian/plugins/journals/data.json) are not in the vault"
    );
}

#[test]
fn an_oversized_settings_file_is_not_read() {
    let huge = format!(
        "{{\"calendarSources\": [], \"pad\": \"{}\"}}",
        "x".repeat(MAX_SETTINGS_BYTES as usize)
    );
    let (_dir, vault) = vault_with(&[(REMASTERED_SETTINGS, huge)]);
    let err = plan_import(&vault).unwrap_err();
    assert!(matches!(err, OnboardingError::Unreadable { .. }), "{err}");
    assert!(err.to_string().contains("larger than"), "{err}");
}
