//! "Start Almanac when I log in", end to end: the first run asks once in the
//! Settings window, the switch showing the truth (off: no entry yet);
//! answering writes the XDG autostart
//! entry naming this executable, the switch removes it again, and the
//! reminder daemon's `/doctor` reports each state.

use crate::support;

use std::path::PathBuf;

use serde_json::Value;
use support::eventually;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

async fn doctor(instance: &AppHarness) -> Value {
    reqwest::get(format!("http://127.0.0.1:{}/doctor", instance.daemon_port))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn autostart_registered(instance: &AppHarness) -> bool {
    let doctor = doctor(instance).await;
    let autostart = &doctor["host"]["osRegistration"]["autostart"];
    assert_eq!(
        autostart["path"],
        entry(instance).display().to_string(),
        "{doctor}"
    );
    autostart["registered"].as_bool().expect("a boolean")
}

fn entry(instance: &AppHarness) -> PathBuf {
    instance.home().join(".config/autostart/Almanac.desktop")
}

#[tokio::test]
async fn the_first_run_asks_once_and_the_switch_writes_and_removes_the_entry() {
    let instance = AppHarness::new();
    let asked = instance.data_home().join("almanac/autostart-asked");
    std::fs::remove_file(&asked).unwrap();
    let session = Session::start(&instance, "settings", Theme::Light).await;
    session
        .wait_for("document.getElementById('startup').dataset.ready === 'true'")
        .await;

    // Asked, the switch off as the entry is absent: nothing is written
    // before an answer.
    let shown = session
        .execute(
            "return [document.getElementById('autostart-question').hidden,
                     document.getElementById('autostart-enabled').checked]",
            serde_json::json!([]),
        )
        .await;
    assert_eq!(shown, serde_json::json!([false, false]));
    assert!(!entry(&instance).exists() && !asked.exists());
    assert!(!autostart_registered(&instance).await);

    session.click("#autostart-yes").await;
    session
        .wait_for("document.getElementById('autostart-question').hidden")
        .await;
    let written = std::fs::read_to_string(entry(&instance)).expect("the autostart entry");
    let exec = written
        .lines()
        .find_map(|line| line.strip_prefix("Exec="))
        .expect("an Exec line")
        .trim();
    assert_eq!(exec, env!("CARGO_BIN_EXE_almanac"), "{written}");
    assert!(asked.exists(), "the answer is remembered");
    assert!(autostart_registered(&instance).await);

    // The switch turns it off: the entry goes, and /doctor says so.
    session.click("#autostart-enabled").await;
    eventually("the entry to disappear", || async {
        (!entry(&instance).exists()).then_some(())
    })
    .await;
    assert!(!autostart_registered(&instance).await);
    let doctor = doctor(&instance).await;
    let handlers = doctor["host"]["osRegistration"]["urlHandlers"]
        .as_array()
        .unwrap_or_else(|| panic!("{doctor}"));
    assert!(
        handlers.iter().any(|h| h["scheme"] == "obsidian"),
        "{doctor}"
    );
    assert!(doctor["host"]["osRegistration"]["desktopEntry"]["registered"].is_boolean());
    session
        .wait_for("!document.getElementById('autostart-enabled').checked")
        .await;
}
