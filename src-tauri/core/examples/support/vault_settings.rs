//! The settings that read a vault written by `vault_gen`: its Full Note
//! folder `events/` and its daily notes in `journal/`, display zone
//! Europe/Berlin. Shared by the benchmarks.

use std::path::Path;

use almanac_core::settings::{CalendarSource, KindSettings, Settings};

pub fn settings(vault: &Path) -> Settings {
    Settings {
        vault_path: vault.to_path_buf(),
        display_timezone: "Europe/Berlin".into(),
        calendar_sources: vec![
            CalendarSource {
                id: "local".into(),
                name: "Events".into(),
                color: "#3788d8".into(),
                kind: KindSettings::FullNote {
                    directory: "events".into(),
                },
                order: None,
                components: None,
            },
            CalendarSource {
                id: "daily".into(),
                name: "Journal".into(),
                color: "#d83788".into(),
                kind: KindSettings::DailyNote {
                    directory: "journal".into(),
                    heading: "Events".into(),
                },
                order: None,
                components: None,
            },
        ],
        ..Settings::default()
    }
}
