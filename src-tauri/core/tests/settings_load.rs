//! A settings file naming values only the shipped data refuses (a holiday
//! place, a time zone, a view an update dropped) loads whole: the file is
//! not touched, every other setting is kept, and the calendar's status says
//! what is wrong. A change naming such a value is still refused, over real
//! HTTP. Run under `scripts/session.sh` (tokens use the real keyring).

use std::path::Path;
use std::sync::Arc;

use almanac_core::api::{DeclineAll, HeadlessUi};
use almanac_core::app::Core;
use almanac_core::data_lock::DataLock;
use almanac_core::rest::{self, Listening, RestState};
use almanac_core::settings::{CalendarSource, KindSettings, Settings, SettingsStore};
use almanac_core::tokens::{Expiry, Scope};
use almanac_testkit::{new_token, paths_in, real_keyring};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn calendar(id: &str, kind: KindSettings) -> CalendarSource {
    CalendarSource {
        id: id.into(),
        name: id.into(),
        color: "#3366cc".into(),
        kind,
        order: None,
        components: None,
    }
}

fn holidays(country: &str, subdivision: &str) -> KindSettings {
    KindSettings::Holidays {
        country: country.into(),
        subdivision: subdivision.into(),
    }
}

/// The settings a user's earlier version left: a vault, a notes calendar,
/// reminders set up, and a holiday calendar for `country`/`subdivision`
/// shown in `zone`, first in `view`.
fn earlier_settings(root: &Path, place: (&str, &str), zone: &str, view: &str) -> Settings {
    let mut settings = Settings {
        vault_path: root.join("vault"),
        display_timezone: zone.into(),
        initial_view: view.into(),
        first_day: 1,
        vault_name: Some("Work notes".into()),
        ..Settings::default()
    };
    settings.reminders.default_minutes = 25;
    settings.reminders.default_reminders = true;
    settings.calendar_sources = vec![
        calendar(
            "notes",
            KindSettings::FullNote {
                directory: "events".into(),
            },
        ),
        calendar("holidays", holidays(place.0, place.1)),
        calendar("us_holidays", holidays("US", "")),
    ];
    settings
}

/// Writes `settings` as the settings file of an instance in `root`, as an
/// earlier run did, and returns the bytes written.
fn write_file(root: &Path, settings: &Settings) -> Vec<u8> {
    std::fs::create_dir_all(root.join("vault/events")).unwrap();
    let file = paths_in(root).settings_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let bytes = serde_json::to_vec_pretty(settings).unwrap();
    std::fs::write(&file, &bytes).unwrap();
    bytes
}

async fn open(root: &Path) -> Arc<Core> {
    let paths = paths_in(root);
    let lock = DataLock::acquire(&paths).expect("nobody else has the data folder");
    let core = Core::open(
        paths,
        lock,
        real_keyring(),
        Arc::new(HeadlessUi),
        Arc::new(DeclineAll),
    )
    .await
    .expect("the core opens");
    Arc::new(core)
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `PUT /api/v1/settings` (a partial update) with a full-access token.
async fn put(core: &Core, patch: Value) -> (StatusCode, Value) {
    let state = RestState::from(core);
    let server = Listening::bind(0, move |port| rest::router(state, port))
        .await
        .unwrap();
    let token = new_token(
        core,
        "settings load",
        &[Scope::SystemFullAccess],
        Expiry::Never,
    )
    .await;
    let response = reqwest::Client::new()
        .put(format!("http://{}/api/v1/settings", server.local_addr()))
        .bearer_auth(token)
        .json(&json!({ "settings": patch }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

fn last_error(core: &Core, id: &str) -> Option<String> {
    core.calendar
        .sources()
        .into_iter()
        .find(|source| source.id == id)
        .unwrap_or_else(|| panic!("calendar `{id}` is listed"))
        .last_error
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_naming_a_lost_place_zone_and_view_loads_whole_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let written = earlier_settings(root, ("XX", ""), "Mars/Olympus_Mons", "fortnightGrid");
    let bytes = write_file(root, &written);
    let config = paths_in(root)
        .settings_file()
        .parent()
        .unwrap()
        .to_path_buf();
    let before = files_in(&config);

    let core = open(root).await;

    assert_eq!(*core.settings.get(), written, "every setting kept");
    assert_eq!(
        std::fs::read(paths_in(root).settings_file()).unwrap(),
        bytes,
        "the file is not rewritten"
    );
    assert_eq!(files_in(&config), before, "nothing set aside");
    assert_eq!(core.calendar.display_timezone(), chrono_tz::Tz::UTC);

    let why = last_error(&core, "holidays").expect("the holiday calendar says why");
    assert!(
        why.contains("`XX`") && why.contains("choose another country"),
        "{why}"
    );
    assert_eq!(last_error(&core, "us_holidays"), None);
    assert_eq!(last_error(&core, "notes"), None);

    // Setting the unknown values again is refused, naming each field; the
    // file keeps what it had.
    for (patch, field) in [
        (
            json!({"displayTimezone": "Mars/Olympus_Mons"}),
            "displayTimezone",
        ),
        (json!({"initialView": "fortnightGrid"}), "initialView"),
    ] {
        let (status, body) = put(&core, patch).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.to_string().contains(field), "{body}");
    }
    assert_eq!(
        std::fs::read(paths_in(root).settings_file()).unwrap(),
        bytes
    );

    // Any other change goes through and keeps the values it did not name,
    // including a change to the calendar list that leaves the lost place
    // as it was.
    let (status, body) = put(&core, json!({"firstDay": 0})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut sources = serde_json::to_value(&written.calendar_sources).unwrap();
    sources[2]["name"] = json!("US public holidays");
    let (status, body) = put(&core, json!({"calendarSources": sources})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let now = core.settings.get();
    assert_eq!(now.first_day, 0);
    assert_eq!(now.display_timezone, "Mars/Olympus_Mons");
    assert_eq!(now.calendar_sources[1], written.calendar_sources[1]);
    assert_eq!(now.calendar_sources[2].name, "US public holidays");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lost_subdivision_keeps_the_file_and_names_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let written = earlier_settings(root, ("DE", "ZZ"), "Europe/Berlin", "timeGridWeek");
    let bytes = write_file(root, &written);

    let core = open(root).await;

    assert_eq!(*core.settings.get(), written);
    assert_eq!(
        std::fs::read(paths_in(root).settings_file()).unwrap(),
        bytes
    );
    let why = last_error(&core, "holidays").expect("the holiday calendar says why");
    assert!(
        why.contains("`ZZ`") && why.contains("BY") && why.contains("subdivision"),
        "{why}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_naming_an_unknown_place_or_zone_is_refused_with_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let written = earlier_settings(root, ("DE", "BY"), "Europe/Berlin", "dayGridMonth");
    let bytes = write_file(root, &written);
    let core = open(root).await;
    assert_eq!(last_error(&core, "holidays"), None);

    let mut sources = serde_json::to_value(&written.calendar_sources).unwrap();
    sources[1]["country"] = json!("XX");
    sources[1]["subdivision"] = json!("");
    let mut lost_subdivision = serde_json::to_value(&written.calendar_sources).unwrap();
    lost_subdivision[1]["subdivision"] = json!("ZZ");
    for (patch, field) in [
        (
            json!({"calendarSources": sources}),
            "calendarSources[1].country",
        ),
        (
            json!({"calendarSources": lost_subdivision}),
            "calendarSources[1].subdivision",
        ),
        (
            json!({"displayTimezone": "Mars/Olympus_Mons"}),
            "displayTimezone",
        ),
    ] {
        let (status, body) = put(&core, patch).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.to_string().contains(field), "{field}: {body}");
    }
    assert_eq!(*core.settings.get(), written);
    assert_eq!(
        std::fs::read(paths_in(root).settings_file()).unwrap(),
        bytes
    );
}

#[test]
fn a_file_with_a_bad_port_is_still_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let mut broken = serde_json::to_value(Settings::default()).unwrap();
    broken["localServerPort"] = json!(80);
    std::fs::write(&path, broken.to_string()).unwrap();
    let store = SettingsStore::open(&path).unwrap();
    assert_eq!(*store.get(), Settings::default());
    assert!(
        files_in(dir.path())
            .iter()
            .any(|name| name.starts_with("settings.json.corrupt-")),
        "{:?}",
        files_in(dir.path())
    );
}
